import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { create, fields, kind } from './helpers';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const now = new Date('2024-05-01T12:00:00Z');

function pv(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv1', creationTimestamp: '2024-05-01T11:00:00Z', ...meta },
    spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' }, ...spec },
  };
}

function pvc(spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'claim', namespace: 'default', creationTimestamp: '2024-05-01T11:00:00Z' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
  };
}

t.test('PersistentVolume: defaults, status on create, cluster scope', async (t) => {
  const def = kind('', 'v1', 'PersistentVolume');
  t.equal(def.namespaced, false);
  t.same(def.shortNames, ['pv']);
  const obj = pv({ iscsi: undefined });
  t.same(create(def, obj), []);
  const spec = obj.spec as Record<string, unknown>;
  t.equal(spec.persistentVolumeReclaimPolicy, 'Retain');
  t.equal(spec.volumeMode, 'Filesystem');
  t.same(spec.hostPath, { path: '/data', type: '' });
  t.equal((obj.status as Record<string, unknown>).phase, 'Pending');
  t.match((obj.status as Record<string, unknown>).lastPhaseTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // a stored object without status reads Pending too (SetDefaults_PersistentVolume)
  const read = pv();
  def.strategy.defaults(read);
  t.same(read.status, { phase: 'Pending' });
  // source defaults
  const rbd = pv({ hostPath: undefined, rbd: { monitors: ['m'], image: 'img' } });
  def.strategy.defaults(rbd);
  t.same((rbd.spec as Record<string, unknown>).rbd, { monitors: ['m'], image: 'img', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
});

t.test('PersistentVolume: validation', async (t) => {
  const def = kind('', 'v1', 'PersistentVolume');
  // (kube prints the Go value of the capacity map, which we can only approximate)
  t.match(create(def, pv({ capacity: {}, accessModes: [] })), [
    { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.accessModes' },
    { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.capacity' },
    { reason: 'FieldValueNotSupported', message: /^Unsupported value: .*: supported values: "storage"$/, field: 'spec.capacity' },
  ]);
  t.same(fields(create(def, pv({ accessModes: ['ReadWriteOncePod', 'ReadWriteOnce', 'Sometimes'] }))), ['spec.accessModes', 'spec.accessModes']);
  t.match(create(def, pv({ capacity: { storage: '0' } })), [{ field: 'spec.capacity[storage]', message: 'Invalid value: "0": must be greater than zero' }]);
  t.match(create(def, pv({ persistentVolumeReclaimPolicy: 'Keep' })), [
    { field: 'spec.persistentVolumeReclaimPolicy', message: 'Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"' },
  ]);
  // exactly one source
  t.same(create(def, pv({ hostPath: undefined })), [{ reason: 'FieldValueRequired', message: 'Required value: must specify a volume type', field: 'spec' }]);
  t.same(create(def, pv({ nfs: { server: 'nfs.local', path: '/exports' }, cephfs: { monitors: ['m'] } })), [
    { reason: 'FieldValueForbidden', message: 'Forbidden: may not specify more than 1 volume type', field: 'spec.nfs' },
    { reason: 'FieldValueForbidden', message: 'Forbidden: may not specify more than 1 volume type', field: 'spec.cephFS' },
  ]);
  t.same(fields(create(def, pv({ hostPath: undefined, nfs: { server: '', path: 'rel' } }))), ['spec.nfs.server', 'spec.nfs.path']);
  t.same(fields(create(def, pv({ hostPath: undefined, gcePersistentDisk: {} }))), ['spec.persistentDisk.pdName']);
  t.same(fields(create(def, pv({ hostPath: undefined, csi: { driver: 'x.csi' } }))), ['spec.csi.volumeHandle']);
  // a local volume needs node affinity; the affinity needs terms with valid requirements
  t.same(create(def, pv({ hostPath: undefined, local: { path: '/mnt/disk' } })), [
    { reason: 'FieldValueRequired', message: 'Required value: Local volume requires node affinity', field: 'spec.nodeAffinity' },
  ]);
  const affinity = (terms: unknown[]) => ({ required: { nodeSelectorTerms: terms } });
  t.same(create(def, pv({ hostPath: undefined, local: { path: '/mnt/disk' }, nodeAffinity: affinity([{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }]) })), []);
  t.same(create(def, pv({ nodeAffinity: affinity([]) })), [
    { reason: 'FieldValueRequired', message: 'Required value: must have at least one node selector term', field: 'spec.nodeAffinity.required.nodeSelectorTerms' },
  ]);
  t.same(create(def, pv({ nodeAffinity: {} })), [
    { reason: 'FieldValueRequired', message: 'Required value: must specify required node constraints', field: 'spec.nodeAffinity.required' },
  ]);
  t.same(
    fields(create(def, pv({ nodeAffinity: affinity([{ matchExpressions: [{ key: 'k', operator: 'Near' }], matchFields: [{ key: 'spec.x', operator: 'In', values: ['a', 'b'] }] }]) }))),
    [
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator',
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].values',
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].key',
    ],
  );
  t.match(create(def, pv({ hostPath: { path: '/' }, persistentVolumeReclaimPolicy: 'Recycle' })), [
    { field: 'spec.persistentVolumeReclaimPolicy', message: "Forbidden: may not be 'recycle' for a hostPath mount of '/'" },
  ]);
  t.match(create(def, pv({ storageClassName: 'Fast_SSD', volumeMode: 'Raw' })), [{ field: 'spec.storageClassName' }, { field: 'spec.volumeMode' }]);
  // mount options only for plugins that take them (kube's checkMountOption looks at the beta annotation)
  const withMountOptions = { annotations: { 'volume.beta.kubernetes.io/mount-options': 'ro' } };
  t.same(create(def, pv({}, withMountOptions)), [
    {
      reason: 'FieldValueForbidden',
      message: 'Forbidden: may not specify mount options for this volume type',
      field: 'metadata.annotations.volume.beta.kubernetes.io/mount-options',
    },
  ]);
  t.same(create(def, pv({ hostPath: undefined, nfs: { server: 's', path: '/e' } }, withMountOptions)), []);
});

t.test('PersistentVolume: update rules', async (t) => {
  const def = kind('', 'v1', 'PersistentVolume');
  const old = pv({ csi: { driver: 'd.csi', volumeHandle: 'h' }, hostPath: undefined, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }] } } });
  def.strategy.defaults(old);
  const next = clone(old);
  (next.spec as Record<string, Record<string, unknown>>).csi.volumeHandle = 'other';
  (next.spec as Record<string, unknown>).volumeMode = 'Block';
  (next.spec as Record<string, unknown>).nodeAffinity = undefined;
  t.same(fields(def.strategy.validate(next, old)), ['spec.persistentvolumesource', 'volumeMode', 'nodeAffinity']);
  t.equal(def.strategy.validate(next, old)[0].message, 'Forbidden: is immutable after creation');
  // the reclaim policy, capacity and claimRef may change; a controllerExpandSecretRef may be added once
  const ok = clone(old);
  const spec = ok.spec as Record<string, Record<string, unknown>>;
  spec.capacity = { storage: '20Gi' };
  (ok.spec as Record<string, unknown>).persistentVolumeReclaimPolicy = 'Delete';
  (ok.spec as Record<string, unknown>).claimRef = { namespace: 'default', name: 'claim' };
  spec.csi.controllerExpandSecretRef = { name: 's', namespace: 'kube-system' };
  t.same(def.strategy.validate(ok, old), []);
});

t.test('PersistentVolume: table as kubectl 1.32 prints it', async (t) => {
  const def = kind('', 'v1', 'PersistentVolume');
  t.same(def.table!.columns.map((c) => [c.name, c.priority]), [
    ['Name', 0], ['Capacity', 0], ['Access Modes', 0], ['Reclaim Policy', 0], ['Status', 0], ['Claim', 0], ['StorageClass', 0],
    ['VolumeAttributesClass', 0], ['Reason', 0], ['Age', 0], ['VolumeMode', 1],
  ]);
  const obj = pv({ accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'], claimRef: { namespace: 'ns', name: 'c' }, storageClassName: 'fast', persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block' });
  obj.status = { phase: 'Bound', reason: '' };
  t.same(def.table!.cells(obj, now), ['pv1', '10Gi', 'RWO,RWX', 'Delete', 'Bound', 'ns/c', 'fast', '<unset>', '', '60m', 'Block']);
  obj.metadata!.annotations = { 'volume.beta.kubernetes.io/storage-class': 'old' };
  obj.metadata!.deletionTimestamp = '2024-05-01T11:59:00Z';
  const cells = def.table!.cells(obj, now);
  t.equal(cells[4], 'Terminating');
  t.equal(cells[6], 'old', 'the beta annotation wins');
  t.same(def.selectableFields!(obj), { name: 'pv1' });
});

t.test('PersistentVolumeClaim: defaults, validation, table', async (t) => {
  const def = kind('', 'v1', 'PersistentVolumeClaim');
  t.same(def.shortNames, ['pvc']);
  const claim = pvc();
  t.same(create(def, claim), []);
  t.equal((claim.spec as Record<string, unknown>).volumeMode, 'Filesystem');
  t.same(claim.status, { phase: 'Pending' });
  t.same(create(def, pvc({ accessModes: [], resources: {} })), [
    { reason: 'FieldValueRequired', message: 'Required value: at least 1 access mode is required', field: 'spec.accessModes' },
    { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.resources[storage]' },
  ]);
  t.match(create(def, pvc({ resources: { requests: { storage: '-1Gi' } } })), [{ field: 'spec.resources[storage]', message: 'Invalid value: "-1Gi": must be greater than zero' }]);
  t.match(create(def, pvc({ selector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } })), [{ field: 'spec.selector.matchExpressions[0].operator' }]);
  t.match(create(def, pvc({ dataSource: { kind: 'VolumeSnapshot', name: 's' } })), [{ field: 'spec.dataSource', message: 'Invalid value: "VolumeSnapshot"' }]);
  t.same(create(def, pvc({ dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } })), []);

  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
  t.same(def.table!.cells(claim, now), ['claim', 'Pending', '', '', '', '', '<unset>', '60m', 'Filesystem']);
  const bound = clone(claim);
  (bound.spec as Record<string, unknown>).volumeName = 'pv1';
  (bound.spec as Record<string, unknown>).storageClassName = 'fast';
  bound.status = { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'] };
  t.same(def.table!.cells(bound, now).slice(0, 6), ['claim', 'Bound', 'pv1', '10Gi', 'RWO', 'fast']);
});

t.test('PersistentVolumeClaim: kube 1.20 update rules', async (t) => {
  const def = kind('', 'v1', 'PersistentVolumeClaim');
  const old = pvc();
  create(def, old);
  // volumeName may be set once
  const bind = clone(old);
  (bind.spec as Record<string, unknown>).volumeName = 'pv1';
  t.same(def.strategy.validate(bind, old), []);
  const rebind = clone(bind);
  (rebind.spec as Record<string, unknown>).volumeName = 'pv2';
  t.same(def.strategy.validate(rebind, bind), [
    { reason: 'FieldValueForbidden', message: 'Forbidden: spec is immutable after creation except resources.requests for bound claims', field: 'spec' },
  ]);
  // growing the request: only for a bound claim; shrinking never
  const grow = (from: KubeObject, size: string): KubeObject => {
    const next = clone(from);
    ((next.spec as Record<string, Record<string, Record<string, unknown>>>).resources.requests).storage = size;
    return next;
  };
  t.same(fields(def.strategy.validate(grow(old, '2Gi'), old)), ['spec']);
  const boundOld = clone(bind);
  boundOld.status = { phase: 'Bound' };
  const bigger = grow(boundOld, '2Gi');
  t.same(def.strategy.validate(bigger, boundOld), []);
  t.same(def.strategy.validate(grow(boundOld, '1024Mi'), boundOld), [], 'the same size written differently');
  t.same(def.strategy.validate(grow(boundOld, '500Mi'), boundOld), [
    { reason: 'FieldValueForbidden', message: 'Forbidden: field can not be less than previous value', field: 'spec.resources.requests.storage' },
  ]);
  const mode = clone(old);
  (mode.spec as Record<string, unknown>).volumeMode = 'Block';
  t.same(fields(def.strategy.validate(mode, old)), ['spec', 'volumeMode']);
  // the beta storage class annotation may move into spec.storageClassName, and is otherwise fixed
  const annotated = pvc();
  annotated.metadata!.annotations = { 'volume.beta.kubernetes.io/storage-class': 'gold' };
  create(def, annotated);
  const moved = clone(annotated);
  (moved.spec as Record<string, unknown>).storageClassName = 'gold';
  t.same(def.strategy.validate(moved, annotated), []);
  const changed = clone(annotated);
  changed.metadata!.annotations = { 'volume.beta.kubernetes.io/storage-class': 'silver' };
  t.same(fields(def.strategy.validate(changed, annotated)), ['metadata.annotations.volume.beta.kubernetes.io/storage-class']);
  // status writes need access modes
  t.same(def.strategy.validateStatus!(pvc({ accessModes: [] }), old), [{ reason: 'FieldValueRequired', message: 'Required value', field: 'Spec.accessModes' }]);
});
