import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { create, fields, kind } from './helpers';

const sc = (extra: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'standard', ...(annotations ? { annotations } : {}) },
  provisioner: 'ebs.csi.aws.com',
  ...extra,
});

t.test('StorageClass: defaults, validation, immutability, default marker in the table', async (t) => {
  const def = kind('storage.k8s.io', 'v1', 'StorageClass');
  const obj = sc({ parameters: { type: 'gp3' }, allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a', 'b'] }] }] });
  t.same(create(def, obj), []);
  t.equal(obj.reclaimPolicy, 'Delete');
  t.equal(obj.volumeBindingMode, 'Immediate');
  const bad = sc({
    provisioner: 'not a name',
    reclaimPolicy: 'Recycle',
    volumeBindingMode: 'Later',
    parameters: { '': 'x' },
    allowedTopologies: [
      { matchLabelExpressions: [{ key: 'zone', values: [] }, { key: 'zone', values: ['a', 'a'] }] },
      {},
    ],
  });
  t.same(create(def, bad).map((c) => [c.field, c.message.split(':')[0]]), [
    ['provisioner', 'Invalid value'],
    ['parameters', 'Invalid value'],
    ['reclaimPolicy', 'Unsupported value'],
    ['volumeBindingMode', 'Unsupported value'],
    ['allowedTopologies[0].matchLabelExpressions[0].values', 'Required value'],
    ['allowedTopologies[0].matchLabelExpressions[1].values[1]', 'Duplicate value'],
    ['allowedTopologies[0].matchLabelExpressions[1].key', 'Duplicate value'],
    // kube's quirk: a term without expressions equals the empty entries its list starts with
    ['allowedTopologies[1].matchLabelExpressions', 'Duplicate value'],
    ['allowedTopologies[1].matchLabelExpressions', 'Duplicate value'],
  ]);
  t.same(create(def, sc({ provisioner: '' })), [{ reason: 'FieldValueRequired', message: 'Required value', field: 'provisioner' }]);
  const old = sc({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate', parameters: { type: 'gp3' } });
  const changed = sc({ provisioner: 'other.csi.io', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', parameters: { type: 'io2' }, allowVolumeExpansion: true });
  t.same(def.strategy.validate(changed, old).map((c) => [c.field, c.message]), [
    ['parameters', 'Forbidden: updates to parameters are forbidden.'],
    ['provisioner', 'Forbidden: updates to provisioner are forbidden.'],
    ['reclaimPolicy', 'Forbidden: updates to reclaimPolicy are forbidden.'],
    ['volumeBindingMode', 'Invalid value: "WaitForFirstConsumer": field is immutable'],
  ]);
  t.same(def.strategy.validate(sc({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate', parameters: { type: 'gp3' }, allowVolumeExpansion: true, mountOptions: ['ro'] }), old), [], 'the rest may change');

  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
  const marked = sc({ reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true }, { 'storageclass.kubernetes.io/is-default-class': 'true' });
  t.same(def.table!.cells(marked, new Date()).slice(0, 5), ['standard (default)', 'ebs.csi.aws.com', 'Retain', 'WaitForFirstConsumer', true]);
  t.same(def.table!.cells(sc({}, { 'storageclass.beta.kubernetes.io/is-default-class': 'true' }), new Date())[0], 'standard (default)', 'the beta annotation too');
  t.same(def.table!.cells(sc({}, { 'storageclass.kubernetes.io/is-default-class': 'false' }), new Date()).slice(0, 5), ['standard', 'ebs.csi.aws.com', 'Delete', 'Immediate', false]);
  const beta = kind('storage.k8s.io', 'v1beta1', 'StorageClass');
  t.same(beta.toStorage!({ ...obj, apiVersion: 'storage.k8s.io/v1beta1' }), obj);
});

const va = (version: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: `storage.k8s.io/${version}`,
  kind: 'VolumeAttachment',
  metadata: { name: 'csi-123' },
  spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } },
  ...extra,
});

t.test('VolumeAttachment: status per version, source rules, immutable spec, table', async (t) => {
  const v1 = kind('storage.k8s.io', 'v1', 'VolumeAttachment');
  const obj = va('v1', { status: { attached: true } });
  t.same(create(v1, obj), []);
  t.same(obj.status, { attached: false }, 'v1 resets status on create');
  const beta = kind('storage.k8s.io', 'v1beta1', 'VolumeAttachment');
  const betaObj = va('v1beta1', { status: { attached: true } });
  t.same(create(beta, betaObj), []);
  t.same(betaObj.status, { attached: true }, 'v1beta1 lets the main resource write status');
  const alpha = kind('storage.k8s.io', 'v1alpha1', 'VolumeAttachment');
  const alphaNew = va('v1alpha1', { status: { attached: true } });
  alpha.strategy.prepareForUpdate!(alphaNew, va('v1alpha1', { status: { attached: false } }));
  t.same(alphaNew.status, { attached: false }, 'v1alpha1 keeps the old status on update');
  t.same([v1.statusSubresource, beta.statusSubresource, alpha.statusSubresource], [true, false, false]);

  t.same(create(v1, va('v1', { spec: { attacher: 'Bad_Driver', nodeName: 'node-1', source: {} } })).map((c) => [c.field, c.message.split(':')[0]]), [
    ['spec.source', 'Required value'],
    ['spec.attacher', 'Invalid value'],
  ]);
  t.same(create(beta, va('v1beta1', { spec: { attacher: 'Bad_Driver', nodeName: 'node-1', source: { persistentVolumeName: 'pv' } } })), [], 'v1beta1 does not check the driver name');
  t.same(fields(create(v1, va('v1', { spec: { attacher: '', nodeName: '', source: { persistentVolumeName: '', inlineVolumeSpec: {} } } }))), ['spec.attacher', 'spec.source', 'spec.nodeName', 'spec.attacher', 'spec.attacher', 'spec.source.persistentVolumeName']);
  t.same(fields(create(v1, va('v1', { spec: { attacher: 'd.io', nodeName: 'n', source: { inlineVolumeSpec: { capacity: { storage: '1Gi' }, claimRef: { name: 'c' } } } } }))), [
    'spec.source.inlineVolumeSpec.accessModes',
    'spec.source.inlineVolumeSpec.claimRef',
    'spec.source.inlineVolumeSpec.capacity',
    'spec.source.inlineVolumeSpec.csi',
  ]);
  const before = va('v1', { status: { attached: false } });
  const after = va('v1', { status: { attached: false } });
  (after.spec as any).nodeName = 'node-2';
  t.same(fields(v1.strategy.validate(after, before)), ['spec']);
  t.same(v1.strategy.validateStatus!({ ...before, status: { attached: true, attachError: { message: 'x'.repeat(1025) } } }, before).map((c) => c.field), ['status.attachError.message']);
  t.same(v1.table!.columns.map((c) => [c.name, c.format]), [['Name', 'name'], ['Attacher', 'name'], ['PV', ''], ['Node', ''], ['Attached', ''], ['Age', '']]);
  t.same(v1.table!.cells(va('v1', { status: { attached: true } }), new Date()).slice(0, 5), ['csi-123', 'ebs.csi.aws.com', 'pv-1', 'node-1', true]);
});

const driver = (spec: Record<string, unknown> = {}, name = 'ebs.csi.aws.com'): KubeObject => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name }, spec });

t.test('CSIDriver: defaults, validation, immutable spec (1.20), table', async (t) => {
  const def = kind('storage.k8s.io', 'v1', 'CSIDriver');
  const obj = driver();
  t.same(create(def, obj), []);
  t.same(obj.spec, {
    attachRequired: true,
    podInfoOnMount: false,
    storageCapacity: false,
    fsGroupPolicy: 'ReadWriteOnceWithFSType',
    volumeLifecycleModes: ['Persistent'],
    requiresRepublish: false,
    seLinuxMount: false,
  });
  const bad = driver({ fsGroupPolicy: 'Sometimes', volumeLifecycleModes: ['Persistent', 'Forever'], tokenRequests: [{ audience: 'a', expirationSeconds: 60 }, { audience: 'a' }, { audience: 'b', expirationSeconds: 2 ** 33 }] }, 'Bad_Driver');
  t.same(create(def, bad).map((c) => [c.field, c.message.split(':')[0]]), [
    ['name', 'Invalid value'],
    ['spec.fsGroupPolicy', 'Unsupported value'],
    ['spec.tokenRequests[0].expirationSeconds', 'Invalid value'],
    ['spec.tokenRequests[1].audience', 'Duplicate value'],
    ['spec.tokenRequests[2].expirationSeconds', 'Invalid value'],
    ['spec.volumeLifecycleModes', 'Unsupported value'],
  ]);
  t.same(def.strategy.validate({ ...driver(), spec: { attachRequired: null, podInfoOnMount: false, storageCapacity: false } }).map((c) => c.field), ['spec.attachedRequired']);
  const old = driver();
  create(def, old);
  const edited = structuredClone(old);
  (edited.spec as any).podInfoOnMount = true;
  t.same(fields(def.strategy.validate(edited, old)), ['spec']);
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'AttachRequired', 'PodInfoOnMount', 'StorageCapacity', 'TokenRequests', 'RequiresRepublish', 'Modes', 'Age']);
  t.same(def.table!.cells(obj, new Date()).slice(0, 7), ['ebs.csi.aws.com', true, false, false, '<unset>', false, 'Persistent']);
  t.same(def.table!.cells(driver({ tokenRequests: [{ audience: 'vault' }, { audience: 'gcp' }], volumeLifecycleModes: ['Persistent', 'Ephemeral'] }), new Date()).slice(4, 7), ['vault,gcp', false, 'Persistent,Ephemeral']);
});

t.test('CSINode: drivers validation, immutable entries, table', async (t) => {
  const def = kind('storage.k8s.io', 'v1', 'CSINode');
  const node = (drivers: unknown[]): KubeObject => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'node-1' }, spec: { drivers } });
  const d1 = { name: 'ebs.csi.aws.com', nodeID: 'i-0123', topologyKeys: ['topology.ebs.csi.aws.com/zone'], allocatable: { count: 25 } };
  t.same(create(def, node([d1])), []);
  t.same(create(def, node([d1, { ...d1, nodeID: 'x'.repeat(129), allocatable: { count: -1 }, topologyKeys: ['a', 'a', 'bad key'] }])).map((c) => [c.field, c.message.split(':')[0]]), [
    ['spec.drivers[1].nodeID', 'Invalid value'],
    ['spec.drivers[1].allocatable.count', 'Invalid value'],
    ['spec.drivers[1].name', 'Duplicate value'],
    ['spec.drivers[1]', 'Duplicate value'],
    ['spec.drivers[1]', 'Invalid value'],
  ]);
  t.same(fields(create(def, node([{ name: '', nodeID: '' }]))), ['spec.drivers[0].name', 'spec.drivers[0].name', 'spec.drivers[0].nodeID']);
  t.same(def.strategy.validate(node([d1, { name: 'efs.csi.aws.com', nodeID: 'i-0123' }]), node([d1])), [], 'drivers may be added');
  t.same(fields(def.strategy.validate(node([{ ...d1, nodeID: 'i-9' }]), node([d1]))), ['CSINodeDriver']);
  t.same(def.table!.cells(node([d1, d1]), new Date()).slice(0, 2), ['node-1', 2]);
});

t.test('CSIStorageCapacity: validation, immutable topology and class, table, three versions', async (t) => {
  const cap = (version: string, extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: `storage.k8s.io/${version}`,
    kind: 'CSIStorageCapacity',
    metadata: { name: 'csisc-abc', namespace: 'kube-system' },
    storageClassName: 'standard',
    nodeTopology: { matchLabels: { 'topology.kubernetes.io/zone': 'a' } },
    capacity: '100Gi',
    ...extra,
  });
  const def = kind('storage.k8s.io', 'v1', 'CSIStorageCapacity');
  t.same(create(def, cap('v1', { maximumVolumeSize: '16Ti' })), []);
  t.same(create(def, cap('v1', { storageClassName: 'Bad_Class', capacity: '-1Gi', maximumVolumeSize: -5 })).map((c) => [c.field, c.message]), [
    ['storageClassName', create(def, cap('v1', { storageClassName: 'Bad_Class' }))[0].message],
    ['capacity', 'Invalid value: "-1Gi": must be greater than or equal to 0'],
    ['maximumVolumeSize', 'Invalid value: "-5": must be greater than or equal to 0'],
  ]);
  t.same(fields(def.strategy.validate(cap('v1', { storageClassName: 'other', nodeTopology: {}, capacity: '1Gi' }), cap('v1'))), ['nodeTopology', 'storageClassName']);
  t.same(def.strategy.validate(cap('v1', { capacity: '1Gi' }), cap('v1')), [], 'capacity may change');
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'StorageClassName', 'Capacity']);
  t.same(def.table!.cells(cap('v1'), new Date()), ['csisc-abc', 'standard', '100Gi']);
  t.same(def.table!.cells(cap('v1', { capacity: undefined }), new Date())[2], '<unset>');
  for (const version of ['v1beta1', 'v1alpha1']) {
    const other = kind('storage.k8s.io', version, 'CSIStorageCapacity');
    t.same(other.fromStorage!(other.toStorage!(cap(version))), cap(version), version);
  }
});
