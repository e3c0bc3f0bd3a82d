import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import { podsToDelete } from '../../src/controllers/replicaset/replica-set-controller';
import { slowStartBatch } from '../../src/controllers/util/pod-control';
import { calculateStatus } from '../../src/controllers/replicaset/status';
import { ControllerExpectations, EXPECTATIONS_TIMEOUT_MS } from '../../src/controllers/util/expectations';
import { podFromTemplate } from '../../src/controllers/util/pod-template';
import { isPodAvailable, rankForDeletion } from '../../src/controllers/util/pods';

function pod(name: string, o: { node?: string; phase?: string; ready?: boolean; readySince?: string; restarts?: number; created?: string } = {}): KubeObject {
  return {
    metadata: { name, creationTimestamp: o.created ?? '2024-01-01T00:00:00Z', labels: { app: 'x' } },
    spec: { nodeName: o.node },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: o.readySince ?? '2024-01-01T00:00:00Z' }],
      containerStatuses: [{ restartCount: o.restarts ?? 0 }],
    },
  };
}

t.test('kube ranking of pods to delete', async (t) => {
  const pods = [
    pod('old-ready', { node: 'n1', created: '2024-01-01T00:00:00Z' }),
    pod('new-ready', { node: 'n1', created: '2024-01-02T00:00:00Z' }),
    pod('restarting', { node: 'n1', restarts: 3 }),
    pod('recently-ready', { node: 'n1', readySince: '2024-01-05T00:00:00Z' }),
    pod('not-ready', { node: 'n1', ready: false }),
    pod('pending', { node: 'n1', phase: 'Pending', ready: false }),
    pod('unscheduled', { phase: 'Pending', ready: false }),
  ];
  t.same(rankForDeletion(pods).map((p) => p.metadata?.name), ['unscheduled', 'pending', 'not-ready', 'recently-ready', 'restarting', 'new-ready', 'old-ready']);
  const unstamped = pod('no-time', { node: 'n1' });
  delete unstamped.metadata!.creationTimestamp;
  t.equal(rankForDeletion([pod('dated', { node: 'n1' }), unstamped])[0]!.metadata?.name, 'no-time', 'no creation time first');
  // doubled-up pods go before lone ones of the same state
  const spread = [pod('alone', { node: 'a' }), pod('pair-1', { node: 'b' }), pod('pair-2', { node: 'b' })];
  t.same(podsToDelete(spread, 1).map((p) => p.metadata?.name), ['pair-1']);
});

t.test('slow-start batches 1, 2, 4 and stops after a failed batch', async (t) => {
  let calls = 0;
  t.same(await slowStartBatch(7, 1, async () => void calls++), { successes: 7 });
  t.equal(calls, 7);
  calls = 0;
  const r = await slowStartBatch(10, 1, async () => {
    calls += 1;
    if (calls === 3) throw new Error('quota');
  });
  t.equal(calls, 3, 'batches of 1 and 2, then stop');
  t.equal(r.successes, 2);
  t.match(r.error, { message: 'quota' });
});

t.test('expectations hold a sync until the informer has seen the writes', async (t) => {
  let now = 0;
  const e = new ControllerExpectations(() => now);
  t.ok(e.satisfied('a'));
  e.expectCreations('a', 2);
  t.notOk(e.satisfied('a'));
  e.creationObserved('a');
  t.notOk(e.satisfied('a'));
  e.creationObserved('a');
  t.ok(e.satisfied('a'));
  e.expectDeletions('a', ['u1']);
  e.deletionObserved('a', 'other');
  t.notOk(e.satisfied('a'), 'another pod');
  e.deletionObserved('a', 'u1');
  t.ok(e.satisfied('a'));
  e.expectCreations('a', 1);
  now += EXPECTATIONS_TIMEOUT_MS + 1;
  t.ok(e.satisfied('a'), 'expired');
});

t.test('pods from a template; availability with minReadySeconds; status counts', async (t) => {
  const rs: KubeObject = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'ns', uid: 'u' }, spec: { minReadySeconds: 10, template: { metadata: { labels: { app: 'x', tier: 'a' } }, spec: { containers: [] } } } };
  const p = podFromTemplate(rs, (rs.spec as { template: KubeObject }).template);
  t.match(p.metadata, { generateName: 'web-', namespace: 'ns', labels: { app: 'x', tier: 'a' }, ownerReferences: [{ kind: 'ReplicaSet', name: 'web', uid: 'u', controller: true, blockOwnerDeletion: true }] });
  const since = Date.parse('2024-01-01T00:00:00Z');
  const ready = pod('p', { readySince: '2024-01-01T00:00:00Z' });
  t.notOk(isPodAvailable(ready, 10, since + 5000));
  t.ok(isPodAvailable(ready, 10, since + 10_000));
  const s = calculateStatus(rs, [ready, pod('q', { ready: false })], { reason: 'FailedCreate', message: 'no' }, since + 5000);
  t.match(s, { replicas: 2, fullyLabeledReplicas: 0, readyReplicas: 1, availableReplicas: 0, conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'no' }] });
});
