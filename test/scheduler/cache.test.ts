import t from 'tap';
import { SchedulerCache } from '../../src/scheduler/cache';
import { Snapshot } from '../../src/scheduler/framework/snapshot';
import { makeNode, makePod } from './helpers';

t.test('assumed pods count at once; confirmed, forgotten or expired later', async (t) => {
  const now = { t: 0 };
  const cache = new SchedulerCache({ now: () => now.t, assumedTtlMs: 1000 });
  cache.addNode(makeNode('n1'));
  const pod = makePod('p', { node: 'n1', requests: [{ cpu: '500m' }] });
  cache.assumePod(pod);
  const snap = new Snapshot();
  cache.updateSnapshot(snap);
  t.equal(snap.get('n1')?.requested.milliCPU, 500);
  t.ok(cache.isAssumed(pod));
  t.throws(() => cache.assumePod(pod), /can't be assumed/);

  cache.forgetPod(pod);
  cache.updateSnapshot(snap);
  t.equal(snap.get('n1')?.requested.milliCPU, 0, 'forgotten');

  cache.assumePod(pod);
  cache.finishBinding(pod);
  cache.addPod(pod);
  t.notOk(cache.isAssumed(pod), 'confirmed by the informer');
  now.t += 5000;
  t.same(cache.cleanupExpiredAssumedPods(), [], 'confirmed pods never expire');

  const other = makePod('q', { node: 'n1', requests: [{ cpu: '1' }] });
  cache.assumePod(other);
  cache.finishBinding(other);
  now.t += 1001;
  t.same(cache.cleanupExpiredAssumedPods().map((p) => p.metadata?.name), ['q'], 'unconfirmed ones expire');
  cache.updateSnapshot(snap);
  t.equal(snap.get('n1')?.requested.milliCPU, 500);
});

t.test('snapshots copy only what changed and order nodes zone by zone', async (t) => {
  const cache = new SchedulerCache();
  const zone = (z: string) => ({ 'topology.kubernetes.io/zone': z });
  for (const [n, z] of [['a1', 'a'], ['a2', 'a'], ['a3', 'a'], ['b1', 'b'], ['c1', 'c']]) cache.addNode(makeNode(n, { labels: zone(z) }));
  const snap = new Snapshot();
  cache.updateSnapshot(snap);
  t.same(snap.list().map((i) => i.name), ['a1', 'b1', 'c1', 'a2', 'a3']);
  const before = snap.get('b1');
  cache.addPod(makePod('p', { node: 'a1' }));
  cache.updateSnapshot(snap);
  t.equal(snap.get('b1'), before, 'unchanged NodeInfo kept');
  t.equal(snap.get('a1')?.pods.length, 1);
  t.equal(snap.list()[0], snap.get('a1'), 'the list holds the new copy');
  cache.removeNode(makeNode('c1'));
  cache.updateSnapshot(snap);
  t.same(snap.list().map((i) => i.name), ['a1', 'b1', 'a2', 'a3']);
});

t.test('images: size on the node and how many nodes have it', async (t) => {
  const cache = new SchedulerCache();
  cache.addNode(makeNode('n1', { images: [{ names: ['busybox:latest'], sizeBytes: 1000 }] }));
  cache.addNode(makeNode('n2', { images: [{ names: ['busybox:latest'], sizeBytes: 1000 }] }));
  const snap = new Snapshot();
  cache.updateSnapshot(snap);
  t.same(snap.get('n1')?.imageStates.get('busybox:latest'), { size: 1000, numNodes: 2 });
});

t.test('pods with affinity are listed for the affinity plugins', async (t) => {
  const cache = new SchedulerCache();
  cache.addNode(makeNode('n1'));
  cache.addNode(makeNode('n2'));
  const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { a: 'b' } }, topologyKey: 'kubernetes.io/hostname' }] } };
  cache.addPod(makePod('p', { node: 'n2', spec: { affinity: anti } }));
  const snap = new Snapshot();
  cache.updateSnapshot(snap);
  t.same(snap.havePodsWithAffinityList().map((i) => i.name), ['n2']);
  t.same(snap.havePodsWithRequiredAntiAffinityList().map((i) => i.name), ['n2']);
});
