import t from 'tap';
import { NodeInfo } from '../../../src/scheduler/framework/node-info';
import { Code } from '../../../src/scheduler/framework/status';
import { ERR_REASON_VOLUME_ZONE_CONFLICT, VOLUME_ZONE, newVolumeZone } from '../../../src/scheduler/plugins/volume/volume-zone';
import { makeNode } from '../helpers';
import { makeClass, makePV, makePVC, newState, podWith, volumeHandle, type VolumeWorld } from './volume-fixtures';

const ZONE = 'topology.kubernetes.io/zone';
const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';

function run(w: Partial<VolumeWorld>, nodeLabels: Record<string, string>, claims: string[] = ['c1']) {
  const { handle, snapshot } = volumeHandle({ nodes: [makeNode('n1', { labels: nodeLabels })], ...w });
  return newVolumeZone(undefined, handle).filter!(newState(), podWith('p', claims), snapshot.get('n1')!);
}

const boundWorld = (pvLabels: Record<string, string>): Partial<VolumeWorld> => ({
  pvcs: [makePVC('c1', { volumeName: 'pv1', bound: true })],
  pvs: [makePV('pv1', { labels: pvLabels })],
});

t.test('name and reason', async (t) => {
  t.equal(VOLUME_ZONE, 'VolumeZone');
  t.equal(ERR_REASON_VOLUME_ZONE_CONFLICT, 'node(s) had no available volume zone');
});

t.test('a bound volume in another zone is unresolvable', async (t) => {
  const s = run(boundWorld({ [ZONE]: 'a' }), { [ZONE]: 'b' });
  t.equal(s?.code, Code.UnschedulableAndUnresolvable);
  t.same(s?.reasons, [ERR_REASON_VOLUME_ZONE_CONFLICT]);
  t.equal(run(boundWorld({ [ZONE]: 'a' }), { [ZONE]: 'a' }), undefined);
});

t.test('beta labels and regions count too; a multi-zone value lists zones joined by __', async (t) => {
  t.equal(run(boundWorld({ [BETA_ZONE]: 'a' }), { [BETA_ZONE]: 'b' })?.code, Code.UnschedulableAndUnresolvable);
  t.equal(run(boundWorld({ [REGION]: 'r1' }), { [REGION]: 'r2' })?.code, Code.UnschedulableAndUnresolvable);
  t.equal(run(boundWorld({ [ZONE]: 'a__b' }), { [ZONE]: 'b' }), undefined);
  t.equal(run(boundWorld({ [ZONE]: 'a__b' }), { [ZONE]: 'c' })?.code, Code.UnschedulableAndUnresolvable);
});

t.test('a node missing the label the volume has does not fit, once it has any zone label', async (t) => {
  t.equal(run(boundWorld({ [REGION]: 'r1' }), { [ZONE]: 'a' })?.code, Code.UnschedulableAndUnresolvable);
  t.equal(run(boundWorld({ [REGION]: 'r1' }), {}), undefined, 'a node without zone labels fits any volume');
});

t.test('other labels on the volume are ignored; a label with an empty zone is skipped', async (t) => {
  t.equal(run(boundWorld({ team: 'x' }), { [ZONE]: 'a' }), undefined);
  t.equal(run(boundWorld({ [ZONE]: 'a__' }), { [ZONE]: 'b' }), undefined);
});

t.test('unbound claims of WaitForFirstConsumer classes are skipped; others are errors', async (t) => {
  const wffc = { pvcs: [makePVC('c1', { storageClass: 'late' })], classes: [makeClass('late')] };
  t.equal(run(wffc, { [ZONE]: 'a' }), undefined);
  const immediate = { pvcs: [makePVC('c1', { storageClass: 'now' })], classes: [makeClass('now', { mode: 'Immediate' })] };
  t.same(run(immediate, { [ZONE]: 'a' })?.reasons, ['PersistentVolume had no name']);
  t.equal(run(immediate, { [ZONE]: 'a' })?.code, Code.Error);
  const noMode = { pvcs: [makePVC('c1', { storageClass: 'x' })], classes: [makeClass('x', { mode: null })] };
  t.same(run(noMode, { [ZONE]: 'a' })?.reasons, ['VolumeBindingMode not set for StorageClass "x"']);
  t.same(run({ pvcs: [makePVC('c1', { storageClass: 'gone' })] }, { [ZONE]: 'a' })?.reasons, ['StorageClass "gone" claimed by PersistentVolumeClaim "c1" not found']);
  t.same(run({ pvcs: [makePVC('c1')] }, { [ZONE]: 'a' })?.reasons, ['PersistentVolumeClaim had no pv name and storageClass name']);
});

t.test('missing objects are errors with the lister wording', async (t) => {
  t.same(run({}, { [ZONE]: 'a' })?.reasons, ['persistentvolumeclaim "c1" not found']);
  t.same(run({ pvcs: [makePVC('c1', { volumeName: 'pv9', bound: true })] }, { [ZONE]: 'a' })?.reasons, ['persistentvolume "pv9" not found']);
  t.same(run({}, { [ZONE]: 'a' }, [''])?.reasons, ['PersistentVolumeClaim had no name']);
  t.equal(run({}, {}), undefined, 'not looked up on a node without zone labels');
});

t.test('a NodeInfo without its Node is an error', async (t) => {
  const { handle } = volumeHandle({ nodes: [] });
  const s = newVolumeZone(undefined, handle).filter!(newState(), podWith('p', ['c1']), new NodeInfo());
  t.equal(s?.code, Code.Error);
  t.same(s?.reasons, ['node not found']);
});

t.test('pods without volumes pass', async (t) => {
  const { handle, snapshot } = volumeHandle({ nodes: [makeNode('n1', { labels: { [ZONE]: 'a' } })] });
  t.equal(newVolumeZone(undefined, handle).filter!(newState(), podWith('p', []), snapshot.get('n1')!), undefined);
});

t.test('the lookups are made once a cycle and reused for every node', async (t) => {
  const w = boundWorld({ [ZONE]: 'a' });
  const { handle, snapshot } = volumeHandle({ nodes: [makeNode('n1', { labels: { [ZONE]: 'a' } }), makeNode('n2', { labels: { [ZONE]: 'b' } })], ...w });
  const plugin = newVolumeZone(undefined, handle);
  const state = newState();
  const pod = podWith('p', ['c1']);
  t.equal(plugin.filter!(state, pod, snapshot.get('n1')!), undefined);
  t.equal(plugin.filter!(state, pod, snapshot.get('n2')!)?.code, Code.UnschedulableAndUnresolvable);
});
