import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import { NodeHealthMap } from '../../src/controllers/nodelifecycle/node-health';
import { RateLimitedTimedQueue } from '../../src/controllers/nodelifecycle/rate-limited-queue';
import { matchingTolerations, minTolerationSeconds, noScheduleTaintDiff, toleratesTaint } from '../../src/controllers/nodelifecycle/taints';
import { computeZoneState, zoneEvictionRate, zoneKey, ZoneStates } from '../../src/controllers/nodelifecycle/zones';

const ready = (status: string) => ({ type: 'Ready', status });

t.test('zone states', async (t) => {
  t.same(computeZoneState([ready('True'), ready('True')], 0.55), { notReady: 0, state: 'Normal' });
  t.same(computeZoneState([ready('False'), undefined], 0.55), { notReady: 2, state: 'FullDisruption' }, 'no ready node at all');
  t.same(computeZoneState([ready('False'), ready('Unknown'), ready('True')], 0.55), { notReady: 2, state: 'Normal' }, 'two unhealthy are never a partial disruption');
  t.same(computeZoneState([ready('False'), ready('Unknown'), undefined, ready('True')], 0.55), { notReady: 3, state: 'PartialDisruption' }, '3 of 4');
  t.same(computeZoneState([ready('False'), ready('Unknown'), undefined, ready('True'), ready('True'), ready('True')], 0.55), { notReady: 3, state: 'Normal' }, '3 of 6 is under 0.55');
  t.same(computeZoneState([], 0.55), { notReady: 0, state: 'Normal' });
});

t.test('eviction rate per zone state', async (t) => {
  const rates = { evictionRate: 0.1, secondaryEvictionRate: 0.01, largeClusterSizeThreshold: 50 };
  t.equal(zoneEvictionRate('Normal', 10, rates), 0.1);
  t.equal(zoneEvictionRate('FullDisruption', 10, rates), 0.1, 'HealthyQPSFunc');
  t.equal(zoneEvictionRate('PartialDisruption', 51, rates), 0.01, 'a large zone: the secondary rate');
  t.equal(zoneEvictionRate('PartialDisruption', 50, rates), 0, 'a small zone: no evictions');
});

t.test('disruption across zones: entering and leaving the all-down mode, per-zone rates', async (t) => {
  const zones = new ZoneStates({ evictionRate: 0.1, secondaryEvictionRate: 0.01, largeClusterSizeThreshold: 3, unhealthyZoneThreshold: 0.55 });
  t.ok(zones.add('a'));
  t.notOk(zones.add('a'));
  zones.add('b');
  const review = (a: string[], b: string[]) => zones.review(new Map([['a', a.map(ready)], ['b', b.map(ready)]]));
  t.same(review(['True', 'True'], ['True']), { kind: 'zones', rates: new Map([['a', 0.1], ['b', 0.1]]) }, 'Initial to Normal');
  t.same(review(['True', 'True'], ['True']), { kind: 'zones', rates: new Map() }, 'no change');
  t.same(review(['True', 'True'], ['False']), { kind: 'zones', rates: new Map([['b', 0.1]]) }, 'one zone fully down keeps the healthy rate');
  t.equal(zones.states.get('b'), 'FullDisruption');
  t.same(review(['False', 'Unknown', 'False', 'True'], ['False']), { kind: 'zones', rates: new Map([['a', 0.01]]) }, 'a partly down large zone: secondary rate');
  t.same(review(['False', 'Unknown', 'False', 'False'], ['False']), { kind: 'enterFullDisruption' }, 'every zone down');
  t.same(review(['False', 'Unknown', 'False', 'False'], ['False']), { kind: 'zones', rates: new Map() }, 'still all down: nothing new');
  t.same(review(['False', 'True'], ['False']), { kind: 'exitFullDisruption', rates: new Map([['a', 0.1], ['b', 0.1]]) }, 'a node is back');
  t.same(zones.review(new Map([['a', [ready('True')]]])), { kind: 'zones', rates: new Map() }, 'a zone without nodes is dropped');
  t.notOk(zones.states.has('b'));
});

t.test('zone keys', async (t) => {
  const node = (labels: Record<string, string>): KubeObject => ({ metadata: { name: 'n', labels } });
  t.equal(zoneKey(node({})), '');
  t.equal(zoneKey(node({ 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'z' })), 'r:\u0000:z');
  t.equal(zoneKey(node({ 'failure-domain.beta.kubernetes.io/zone': 'z' })), ':\u0000:z');
});

t.test('tolerations', async (t) => {
  const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
  t.ok(toleratesTaint({ operator: 'Exists' }, unreachable), 'an empty key with Exists tolerates everything');
  t.ok(toleratesTaint({ key: unreachable.key, operator: 'Exists' }, unreachable));
  t.notOk(toleratesTaint({ key: unreachable.key, operator: 'Exists', effect: 'NoSchedule' }, unreachable));
  t.notOk(toleratesTaint({ key: unreachable.key, value: 'x' }, unreachable), 'Equal compares values');
  t.same(matchingTolerations([unreachable, { key: 'other', effect: 'NoExecute' }], [{ key: unreachable.key, operator: 'Exists' }]), { all: false, used: [] });
  t.equal(minTolerationSeconds([]), 0, 'nothing tolerated: now');
  t.equal(minTolerationSeconds([{ operator: 'Exists' }]), -1, 'forever');
  t.equal(minTolerationSeconds([{ operator: 'Exists' }, { operator: 'Exists', tolerationSeconds: 30 }, { operator: 'Exists', tolerationSeconds: 10 }]), 10);
  t.equal(minTolerationSeconds([{ operator: 'Exists', tolerationSeconds: -5 }]), 0);
});

t.test('NoSchedule taints follow conditions and spec.unschedulable', async (t) => {
  const node: KubeObject = {
    metadata: { name: 'n' },
    spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }, { key: 'custom', effect: 'NoSchedule' }] },
    status: { conditions: [ready('Unknown'), { type: 'MemoryPressure', status: 'True' }, { type: 'DiskPressure', status: 'False' }] },
  };
  const { add, remove } = noScheduleTaintDiff(node);
  t.same(add.map((x) => x.key).sort(), ['node.kubernetes.io/memory-pressure', 'node.kubernetes.io/unreachable', 'node.kubernetes.io/unschedulable']);
  t.same(remove.map((x) => x.key), ['node.kubernetes.io/not-ready'], 'taints of others are left alone');
});

t.test('the rate-limited queue takes each node once until it is removed', async (t) => {
  const q = new RateLimitedTimedQueue(1000);
  t.ok(q.add('a', 'u'));
  t.notOk(q.add('a', 'u'), 'no duplicates');
  const seen: string[] = [];
  await q.try(async (v) => (seen.push(v), { done: true }));
  t.same(seen, ['a']);
  t.notOk(q.add('a', 'u'), 'taken values are remembered');
  t.ok(q.remove('a'));
  t.ok(q.add('a', 'u'), 'added again after removal');
  q.swapLimiter(0);
  await q.try(async (v) => (seen.push(v), { done: true }));
  t.same(seen, ['a'], 'a rate of 0 stops the queue');
});

t.test('node health: grace periods, heartbeats and leases', async (t) => {
  const created = '2020-01-01T00:00:00Z';
  const base = Date.parse(created);
  const opts = (now: number) => ({ monitorGracePeriodMs: 40_000, startupGracePeriodMs: 60_000, now });
  const map = new NodeHealthMap();
  const fresh: KubeObject = { metadata: { name: 'n', creationTimestamp: created } };
  t.notOk(map.check(fresh, undefined, opts(base + 59_000)).statusUpdate, 'within the startup grace');
  const late = map.check(fresh, undefined, opts(base + 61_000));
  t.match(late.current, { status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: created });
  t.equal((late.statusUpdate?.status as { conditions: unknown[] }).conditions.length, 4, 'Ready and the three pressure conditions');

  const posted: KubeObject = { metadata: { name: 'p', creationTimestamp: created }, status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: created }] } };
  t.notOk(map.check(posted, undefined, opts(base)).statusUpdate);
  t.notOk(map.check(posted, '2020-01-01T00:00:30.000000Z', opts(base + 30_000)).statusUpdate, 'a lease renewal');
  t.notOk(map.check(posted, '2020-01-01T00:00:30.000000Z', opts(base + 69_000)).statusUpdate, 'grace counted from the renewal');
  const stale = map.check(posted, '2020-01-01T00:00:30.000000Z', opts(base + 71_000));
  t.match(stale.observed, { status: 'True' });
  t.match(stale.current, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
});
