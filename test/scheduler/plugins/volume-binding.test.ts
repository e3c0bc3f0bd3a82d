import t from 'tap';
import { RESOURCES } from '../../../src/client/resources';
import type { KubeObject } from '../../../src/client/types';
import { Code } from '../../../src/scheduler/framework/status';
import type { FrameworkHandle, Plugin } from '../../../src/scheduler/framework/types';
import { ERR_REASON_BIND_CONFLICT, ERR_REASON_NODE_CONFLICT } from '../../../src/scheduler/plugins/volume/volume-binder';
import {
  ERR_REASON_UNBOUND_IMMEDIATE, VOLUME_BINDING, createVolumeBinding, newVolumeBinding, volumeBindingArgs,
} from '../../../src/scheduler/plugins/volume/volume-binding';
import { makeNode } from '../helpers';
import { makeClass, makePV, makePVC, newState, podWith, volumeHandle, type VolumeWorld } from './volume-fixtures';
import { FeatureGates } from '../../../src/options/feature-gates';

const HOST = 'kubernetes.io/hostname';
const onNode = (name: string) => [{ matchExpressions: [{ key: HOST, operator: 'In', values: [name] }] }];
const nodes = [makeNode('n1', { labels: { zone: 'a' } }), makeNode('n2', { labels: { zone: 'b' } })];

interface Writes {
  volumes: KubeObject[];
  claims: KubeObject[];
}

function setup(w: Partial<VolumeWorld>, args?: unknown, onWrite?: (handle: FrameworkHandle, obj: KubeObject) => void) {
  const { handle, snapshot } = volumeHandle({ nodes, ...w });
  const writes: Writes = { volumes: [], claims: [] };
  const bump = (obj: KubeObject) => ({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(Number(obj.metadata?.resourceVersion ?? '0') + 1) } });
  const plugin = createVolumeBinding({
    pollIntervalMs: 5,
    writer: (h) => ({
      updateVolume: async (pv) => {
        const out = bump(pv);
        writes.volumes.push(out);
        onWrite?.(h, out);
        return out;
      },
      updateClaim: async (pvc) => {
        const out = bump(pvc);
        writes.claims.push(out);
        onWrite?.(h, out);
        return out;
      },
    }),
  })(args, handle);
  return { plugin, handle, snapshot, writes };
}

function filterAll(plugin: Plugin, snapshot: ReturnType<typeof volumeHandle>['snapshot'], pod: KubeObject, state = newState()) {
  const pre = plugin.preFilter!(state, pod);
  if (pre) return { pre, state, byNode: {} as Record<string, ReturnType<NonNullable<Plugin['filter']>>> };
  const byNode: Record<string, ReturnType<NonNullable<Plugin['filter']>>> = {};
  for (const info of snapshot.list()) byNode[info.name] = plugin.filter!(state, pod, info);
  return { pre, state, byNode };
}

t.test('name and args', async (t) => {
  t.equal(VOLUME_BINDING, 'VolumeBinding');
  t.equal(newVolumeBinding(undefined, volumeHandle({ nodes }).handle).name, 'VolumeBinding');
  t.same(volumeBindingArgs(undefined), { bindTimeoutSeconds: 600 });
  t.same(volumeBindingArgs({ bindTimeoutSeconds: 30 }), { bindTimeoutSeconds: 30 });
  t.throws(() => volumeBindingArgs({ bindTimeoutSeconds: -1 }), { message: 'bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value' });
  t.throws(() => volumeBindingArgs({ bindTimeoutSeconds: 0 }), { message: 'invalid BindTimeoutSeconds: 0, must be positive integer' });
  t.throws(() => newVolumeBinding({ bindTimeoutSeconds: 0 }, volumeHandle({ nodes }).handle));
});

t.test('PreFilter: pods without claims skip the plugin', async (t) => {
  const { plugin, snapshot } = setup({});
  const r = filterAll(plugin, snapshot, podWith('p', [{ emptyDir: {} }]));
  t.equal(r.pre, undefined);
  t.same(r.byNode, { n1: undefined, n2: undefined });
});

t.test('PreFilter: a missing or deleting claim is unresolvable', async (t) => {
  const { plugin } = setup({ pvcs: [makePVC('gone', { deleting: true })] });
  let s = plugin.preFilter!(newState(), podWith('p', ['x']));
  t.equal(s?.code, Code.UnschedulableAndUnresolvable);
  t.same(s?.reasons, ['persistentvolumeclaim "x" not found']);
  s = plugin.preFilter!(newState(), podWith('p', ['gone']));
  t.same(s?.reasons, ['persistentvolumeclaim "gone" is being deleted']);
});

t.test('PreFilter: unbound Immediate claims (and claims pre-bound but not yet bound) are unresolvable', async (t) => {
  const { plugin } = setup({
    pvcs: [makePVC('now', { storageClass: 'fast' }), makePVC('noclass'), makePVC('pre', { storageClass: 'late', volumeName: 'pv1' }), makePVC('late', { storageClass: 'late' })],
    classes: [makeClass('fast', { mode: 'Immediate' }), makeClass('late')],
  });
  for (const claim of ['now', 'noclass', 'pre']) {
    const s = plugin.preFilter!(newState(), podWith('p', [claim]));
    t.equal(s?.code, Code.UnschedulableAndUnresolvable, claim);
    t.same(s?.reasons, [ERR_REASON_UNBOUND_IMMEDIATE], claim);
  }
  t.equal(ERR_REASON_UNBOUND_IMMEDIATE, 'pod has unbound immediate PersistentVolumeClaims');
  t.equal(plugin.preFilter!(newState(), podWith('p', ['late'])), undefined);
});

t.test('PreFilter: a class without a binding mode is an error', async (t) => {
  const { plugin } = setup({ pvcs: [makePVC('c', { storageClass: 'x' })], classes: [makeClass('x', { mode: null })] });
  const s = plugin.preFilter!(newState(), podWith('p', ['c']));
  t.equal(s?.code, Code.Error);
  t.same(s?.reasons, ['VolumeBindingMode not set for StorageClass "x"']);
});

t.test('Filter: a bound claim\'s volume must accept the node', async (t) => {
  const { plugin, snapshot } = setup({
    pvcs: [makePVC('c', { volumeName: 'pv1', bound: true })],
    pvs: [makePV('pv1', { nodeTerms: onNode('n1'), claimRef: { namespace: 'default', name: 'c', uid: 'uid-pvc-c' }, phase: 'Bound' })],
  });
  const r = filterAll(plugin, snapshot, podWith('p', ['c']));
  t.equal(r.byNode.n1, undefined);
  t.equal(r.byNode.n2?.code, Code.UnschedulableAndUnresolvable);
  t.same(r.byNode.n2?.reasons, [ERR_REASON_NODE_CONFLICT]);
  t.equal(ERR_REASON_NODE_CONFLICT, 'node(s) had volume node affinity conflict');
});

t.test('Filter: a bound claim whose volume is gone is an error', async (t) => {
  const { plugin, snapshot } = setup({ pvcs: [makePVC('c', { volumeName: 'pv1', bound: true })] });
  const r = filterAll(plugin, snapshot, podWith('p', ['c']));
  t.equal(r.byNode.n1?.code, Code.Error);
  t.same(r.byNode.n1?.reasons, ['could not find v1.PersistentVolume "pv1"']);
});

const lateClaim = (name: string, s: Parameters<typeof makePVC>[1] = {}) => makePVC(name, { storageClass: 'local', ...s });
const localClass = makeClass('local', { provisioner: 'kubernetes.io/no-provisioner' });

t.test('Filter: a WaitForFirstConsumer claim needs an available volume the node can reach', async (t) => {
  const { plugin, snapshot } = setup({
    pvcs: [lateClaim('c')],
    pvs: [makePV('pv1', { storageClass: 'local', nodeTerms: onNode('n1') })],
    classes: [localClass],
  });
  const r = filterAll(plugin, snapshot, podWith('p', ['c']));
  t.equal(r.byNode.n1, undefined);
  t.equal(r.byNode.n2?.code, Code.UnschedulableAndUnresolvable);
  t.same(r.byNode.n2?.reasons, [ERR_REASON_BIND_CONFLICT]);
  t.equal(ERR_REASON_BIND_CONFLICT, "node(s) didn't find available persistent volumes to bind");
});

t.test('Filter: volumes of another class, too small, of other modes, not selected, or not available do not match', async (t) => {
  const cases: Array<[string, KubeObject, KubeObject]> = [
    ['class', lateClaim('c'), makePV('pv1', { storageClass: 'other' })],
    ['size', lateClaim('c', { request: '20Gi' }), makePV('pv1', { storageClass: 'local', capacity: '10Gi' })],
    ['access modes', lateClaim('c', { accessModes: ['ReadWriteMany'] }), makePV('pv1', { storageClass: 'local' })],
    ['selector', lateClaim('c', { selector: { matchLabels: { tier: 'gold' } } }), makePV('pv1', { storageClass: 'local', labels: { tier: 'iron' } })],
    ['phase', lateClaim('c'), makePV('pv1', { storageClass: 'local', phase: 'Released' })],
    ['claimed', lateClaim('c'), makePV('pv1', { storageClass: 'local', claimRef: { namespace: 'default', name: 'other' } })],
  ];
  for (const [what, pvc, pv] of cases) {
    const { plugin, snapshot } = setup({ pvcs: [pvc], pvs: [pv], classes: [localClass] });
    t.same(filterAll(plugin, snapshot, podWith('p', ['c'])).byNode.n1?.reasons, [ERR_REASON_BIND_CONFLICT], what);
  }
  const { plugin, snapshot } = setup({
    pvcs: [lateClaim('c', { selector: { matchLabels: { tier: 'gold' } } })],
    pvs: [makePV('pv1', { storageClass: 'local', labels: { tier: 'gold' } })],
    classes: [localClass],
  });
  t.equal(filterAll(plugin, snapshot, podWith('p', ['c'])).byNode.n1, undefined, 'the selector matches');
});

t.test('Reserve picks the smallest fitting volume; two claims of one pod get different volumes', async (t) => {
  const { plugin, snapshot, writes } = setup({
    pvcs: [lateClaim('big', { request: '5Gi' }), lateClaim('small', { request: '1Gi' })],
    pvs: [makePV('pv-20', { storageClass: 'local', capacity: '20Gi' }), makePV('pv-5', { storageClass: 'local', capacity: '5Gi' }), makePV('pv-2', { storageClass: 'local', capacity: '2Gi' })],
    classes: [localClass],
  }, undefined, (h, obj) => {
    // the PV controller binds the claim the volume names
    const ref = (obj.spec as { claimRef?: { name: string } }).claimRef;
    if (!ref) return;
    const claims = h.lister(RESOURCES.persistentVolumeClaims);
    const pvc = claims.getObject('default', ref.name)!;
    claims.upsert({ ...pvc, metadata: { ...pvc.metadata, resourceVersion: '5', annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }, spec: { ...pvc.spec as object, volumeName: obj.metadata?.name } });
    h.lister(RESOURCES.persistentVolumes).upsert(obj);
  });
  const pod = podWith('p', ['big', 'small']);
  const r = filterAll(plugin, snapshot, pod);
  t.equal(r.byNode.n1, undefined);
  t.equal(await plugin.reserve!(r.state, pod, 'n1'), undefined);
  t.equal(await plugin.preBind!(r.state, pod, 'n1'), undefined);
  const chosen = Object.fromEntries(writes.volumes.map((pv) => [(pv.spec as { claimRef: { name: string } }).claimRef.name, pv.metadata?.name]));
  t.same(chosen, { small: 'pv-2', big: 'pv-5' });
  const pv = writes.volumes[0];
  t.match((pv.spec as { claimRef: unknown }).claimRef, { kind: 'PersistentVolumeClaim', namespace: 'default', uid: /uid-pvc-/ });
  t.equal(pv.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
});

t.test('a volume pre-bound to the claim decides alone', async (t) => {
  const { plugin, snapshot } = setup({
    pvcs: [lateClaim('c')],
    pvs: [
      makePV('mine', { storageClass: 'local', capacity: '50Gi', nodeTerms: onNode('n1'), claimRef: { namespace: 'default', name: 'c' } }),
      makePV('small', { storageClass: 'local', capacity: '1Gi' }),
    ],
    classes: [localClass],
  });
  const r = filterAll(plugin, snapshot, podWith('p', ['c']));
  t.equal(r.byNode.n1, undefined);
  t.same(r.byNode.n2?.reasons, [ERR_REASON_BIND_CONFLICT], 'the free volume is not considered');
});

t.test('Reserve assumes the choice so the next pod does not get the volume; Unreserve forgets it', async (t) => {
  const { plugin, snapshot } = setup({
    pvcs: [lateClaim('a'), lateClaim('b')],
    pvs: [makePV('pv1', { storageClass: 'local' })],
    classes: [localClass],
  });
  const first = podWith('p1', ['a']);
  const r1 = filterAll(plugin, snapshot, first);
  t.equal(r1.byNode.n1, undefined);
  t.equal(await plugin.reserve!(r1.state, first, 'n1'), undefined);
  const second = podWith('p2', ['b']);
  t.same(filterAll(plugin, snapshot, second).byNode.n1?.reasons, [ERR_REASON_BIND_CONFLICT]);
  await plugin.unreserve!(r1.state, first, 'n1');
  t.equal(filterAll(plugin, snapshot, second).byNode.n1, undefined);
});

const dynClass = (topologies?: unknown[]) => makeClass('dyn', { provisioner: 'example.com/csi', allowedTopologies: topologies });

t.test('Filter: dynamic provisioning when no volume fits, within the class\'s allowed topologies', async (t) => {
  let { plugin, snapshot } = setup({ pvcs: [makePVC('c', { storageClass: 'dyn' })], classes: [dynClass()] });
  t.same(filterAll(plugin, snapshot, podWith('p', ['c'])).byNode, { n1: undefined, n2: undefined });
  ({ plugin, snapshot } = setup({ pvcs: [makePVC('c', { storageClass: 'dyn' })], classes: [dynClass([{ matchLabelExpressions: [{ key: 'zone', values: ['b'] }] }])] }));
  const r = filterAll(plugin, snapshot, podWith('p', ['c']));
  t.same(r.byNode.n1?.reasons, [ERR_REASON_BIND_CONFLICT]);
  t.equal(r.byNode.n2, undefined);
});

t.test('Filter: a claim with a selected node fits that node only', async (t) => {
  const { plugin, snapshot } = setup({ pvcs: [makePVC('c', { storageClass: 'dyn', annotations: { 'volume.kubernetes.io/selected-node': 'n2' } })], classes: [dynClass()] });
  const r = filterAll(plugin, snapshot, podWith('p', ['c']));
  t.same(r.byNode.n1?.reasons, [ERR_REASON_BIND_CONFLICT]);
  t.equal(r.byNode.n2, undefined);
});

t.test('Filter: both reasons when a bound volume and an unbound claim both fail', async (t) => {
  const { plugin, snapshot } = setup({
    pvcs: [makePVC('b', { volumeName: 'pv1', bound: true }), lateClaim('c')],
    pvs: [makePV('pv1', { nodeTerms: onNode('n1'), claimRef: { namespace: 'default', name: 'b' } })],
    classes: [localClass],
  });
  const r = filterAll(plugin, snapshot, podWith('p', ['b', 'c']));
  t.same(r.byNode.n2?.reasons, [ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT]);
});

t.test('PreBind: dynamic provisioning writes the selected node and waits for the claim to be bound', async (t) => {
  const { plugin, snapshot, writes } = setup({ pvcs: [makePVC('c', { storageClass: 'dyn' })], classes: [dynClass()] }, undefined, (h, obj) => {
    // the provisioner creates a volume and the PV controller binds the claim
    const claims = h.lister(RESOURCES.persistentVolumeClaims);
    setTimeout(() => {
      claims.upsert({ ...obj, metadata: { ...obj.metadata, resourceVersion: '9', annotations: { ...obj.metadata?.annotations, 'pv.kubernetes.io/bind-completed': 'yes' } }, spec: { ...obj.spec as object, volumeName: 'pvc-new' } });
      h.lister(RESOURCES.persistentVolumes).upsert(makePV('pvc-new', { storageClass: 'dyn', nodeTerms: onNode('n2') }));
    }, 20);
  });
  const pod = podWith('p', ['c']);
  const r = filterAll(plugin, snapshot, pod);
  t.equal(await plugin.reserve!(r.state, pod, 'n2'), undefined);
  t.equal(await plugin.preBind!(r.state, pod, 'n2'), undefined);
  t.equal(writes.claims.length, 1);
  t.equal(writes.claims[0].metadata?.annotations?.['volume.kubernetes.io/selected-node'], 'n2');
  t.equal(writes.volumes.length, 0);
});

t.test('PreBind: the provisioner dropping the selected node fails the pod', async (t) => {
  const { plugin, snapshot } = setup({ pvcs: [makePVC('c', { storageClass: 'dyn' })], classes: [dynClass()] }, undefined, (h, obj) => {
    const { 'volume.kubernetes.io/selected-node': _dropped, ...rest } = obj.metadata?.annotations ?? {};
    h.lister(RESOURCES.persistentVolumeClaims).upsert({ ...obj, metadata: { ...obj.metadata, resourceVersion: '9', annotations: rest } });
  });
  const pod = podWith('p', ['c']);
  const r = filterAll(plugin, snapshot, pod);
  await plugin.reserve!(r.state, pod, 'n1');
  const s = await plugin.preBind!(r.state, pod, 'n1');
  t.equal(s?.code, Code.Error);
  t.same(s?.reasons, ['binding volumes: provisioning failed for PVC "c"']);
});

t.test('PreBind: gives up after bindTimeoutSeconds', async (t) => {
  const { plugin, snapshot } = setup({ pvcs: [makePVC('c', { storageClass: 'dyn' })], classes: [dynClass()] }, { bindTimeoutSeconds: 1 });
  const pod = podWith('p', ['c']);
  const r = filterAll(plugin, snapshot, pod);
  await plugin.reserve!(r.state, pod, 'n1');
  const started = Date.now();
  const s = await plugin.preBind!(r.state, pod, 'n1');
  t.equal(s?.code, Code.Error);
  t.same(s?.reasons, ['binding volumes: timed out waiting for the condition']);
  t.ok(Date.now() - started >= 990);
});

t.test('PreBind: nothing to do when every claim is bound, or for pods without claims', async (t) => {
  const { plugin, snapshot, writes } = setup({
    pvcs: [makePVC('c', { volumeName: 'pv1', bound: true })],
    pvs: [makePV('pv1', { claimRef: { namespace: 'default', name: 'c', uid: 'uid-pvc-c' } })],
  });
  const pod = podWith('p', ['c']);
  const r = filterAll(plugin, snapshot, pod);
  await plugin.reserve!(r.state, pod, 'n1');
  t.equal(await plugin.preBind!(r.state, pod, 'n1'), undefined);
  const none = podWith('q', []);
  const r2 = filterAll(plugin, snapshot, none);
  await plugin.reserve!(r2.state, none, 'n1');
  t.equal(await plugin.preBind!(r2.state, none, 'n1'), undefined);
  t.same(writes, { volumes: [], claims: [] });
});

t.test('PreBind: a write the API server refuses fails the pod and un-assumes the volume', async (t) => {
  const { handle, snapshot } = volumeHandle({ nodes, pvcs: [lateClaim('a'), lateClaim('b')], pvs: [makePV('pv1', { storageClass: 'local' })], classes: [localClass] });
  const plugin = createVolumeBinding({ pollIntervalMs: 5, writer: () => ({ updateVolume: () => Promise.reject(new Error('conflict')), updateClaim: () => Promise.reject(new Error('conflict')) }) })(undefined, handle);
  const pod = podWith('p1', ['a']);
  const r = filterAll(plugin, snapshot, pod);
  await plugin.reserve!(r.state, pod, 'n1');
  const s = await plugin.preBind!(r.state, pod, 'n1');
  t.same(s?.reasons, ['conflict']);
  t.equal(filterAll(plugin, snapshot, podWith('p2', ['b'])).byNode.n1, undefined, 'the volume is free again');
});

t.test('PreBind: the PV controller dropping the claimRef fails the pod', async (t) => {
  const { plugin, snapshot } = setup({ pvcs: [lateClaim('c')], pvs: [makePV('pv1', { storageClass: 'local' })], classes: [localClass] }, undefined, (h, obj) => {
    h.lister(RESOURCES.persistentVolumes).upsert({ ...obj, metadata: { ...obj.metadata, resourceVersion: '9' }, spec: { ...obj.spec as object, claimRef: undefined } });
  });
  const pod = podWith('p', ['c']);
  const r = filterAll(plugin, snapshot, pod);
  await plugin.reserve!(r.state, pod, 'n1');
  const s = await plugin.preBind!(r.state, pod, 'n1');
  t.same(s?.reasons, ['binding volumes: ClaimRef got reset for pv "pv1"']);
});

t.test('local volumes pinned to a hostname are merged by size with the other volumes', async (t) => {
  const chosenOn = async (pvs: KubeObject[], node: string) => {
    const { plugin, snapshot, writes } = setup({ pvcs: [lateClaim('c')], pvs, classes: [localClass] }, { bindTimeoutSeconds: 1 });
    const pod = podWith('p', ['c']);
    const r = filterAll(plugin, snapshot, pod);
    if (r.byNode[node]) return r.byNode[node]?.reasons;
    await plugin.reserve!(r.state, pod, node);
    void plugin.preBind!(r.state, pod, node);
    await new Promise((resolve) => setTimeout(resolve, 10));
    return writes.volumes.map((v) => v.metadata?.name);
  };
  const pvs = [
    makePV('any-big', { storageClass: 'local', capacity: '50Gi' }),
    makePV('n1-small', { storageClass: 'local', capacity: '5Gi', nodeTerms: onNode('n1') }),
    makePV('n2-mid', { storageClass: 'local', capacity: '20Gi', nodeTerms: onNode('n2') }),
    makePV('zone-a', { storageClass: 'local', capacity: '10Gi', nodeTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] }),
  ];
  t.same(await chosenOn(pvs, 'n1'), ['n1-small']);
  t.same(await chosenOn(pvs, 'n2'), ['n2-mid']);
  t.same(await chosenOn([pvs[0], pvs[3], makePV('n1-10', { storageClass: 'local', capacity: '10Gi', nodeTerms: onNode('n1') })], 'n1'), ['zone-a'], 'equal sizes: the first listed wins');
  t.same(await chosenOn([pvs[2]], 'n1'), [ERR_REASON_BIND_CONFLICT]);
});

t.test('generic ephemeral volumes use the claim named <pod>-<volume>, when the gate is on', async (t) => {
  const pod = podWith('web', [{ ephemeral: { volumeClaimTemplate: {} } }]);
  const owned = makePVC('web-v0', { storageClass: 'dyn' });
  owned.metadata!.ownerReferences = [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: pod.metadata!.uid!, controller: true }];
  const run = (gate: boolean, pvcs: KubeObject[]) => {
    const { handle } = volumeHandle({ nodes, pvcs, classes: [dynClass()] });
    const plugin = newVolumeBinding(undefined, { ...handle, featureGates: new FeatureGates({ GenericEphemeralVolume: gate }) });
    return plugin.preFilter!(newState(), pod);
  };
  t.same(run(true, [])?.reasons, ['persistentvolumeclaim "web-v0" not found']);
  t.equal(run(true, [owned]), undefined);
  t.same(run(true, [makePVC('web-v0', { storageClass: 'dyn' })])?.reasons, ['persistentvolumeclaim "web-v0" was not created for the pod']);
  t.equal(run(false, []), undefined, 'gate off: the volume is not a claim');
});

t.test('Filter, Reserve and PreBind without a PreFilter state are errors', async (t) => {
  const { plugin, snapshot } = setup({});
  const pod = podWith('p', ['c']);
  t.same(plugin.filter!(newState(), pod, snapshot.get('n1')!)?.reasons, ['not found']);
  t.equal((await plugin.reserve!(newState(), pod, 'n1'))?.code, Code.Error);
  t.equal((await plugin.preBind!(newState(), pod, 'n1'))?.code, Code.Error);
});
