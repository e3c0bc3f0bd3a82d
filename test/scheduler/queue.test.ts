import t from 'tap';
import { SchedulingQueue, UNSCHEDULABLE_TIMEOUT_MS } from '../../src/scheduler/queue/scheduling-queue';
import { prioritySort } from '../../src/scheduler/plugins/core';
import type { QueuedPodInfo } from '../../src/scheduler/framework/types';
import { fakeHandle, makePod, Snapshot } from './helpers';

function newQueue(now: { t: number }) {
  const sort = prioritySort(undefined, fakeHandle(new Snapshot()));
  return new SchedulingQueue({ less: (a, b) => sort.less!(a, b), initialBackoffMs: 1000, maxBackoffMs: 10_000, now: () => now.t });
}

const names = (infos: Array<QueuedPodInfo | undefined>) => infos.map((i) => i?.pod.metadata?.name);

t.test('active queue: higher priority first, then arrival order', async (t) => {
  const now = { t: 1000 };
  const q = newQueue(now);
  q.add(makePod('low', { priority: 1 }));
  now.t++;
  q.add(makePod('high', { priority: 100 }));
  now.t++;
  q.add(makePod('low2', { priority: 1 }));
  t.same(names([await q.pop(), await q.pop(), await q.pop()]), ['high', 'low', 'low2']);
  t.equal(q.schedulingCycle, 3, 'each pop starts a cycle');
});

t.test('pop waits for a pod; close releases waiters', async (t) => {
  const q = newQueue({ t: 0 });
  const waiting = q.pop();
  q.add(makePod('later'));
  t.equal((await waiting)?.pod.metadata?.name, 'later');
  const pending = q.pop();
  q.close();
  t.equal(await pending, undefined);
});

t.test('unschedulable pods wait for a cluster event, then go back with backoff', async (t) => {
  const now = { t: 0 };
  const q = newQueue(now);
  q.add(makePod('p'));
  const info = (await q.pop())!;
  q.addUnschedulableIfNotPresent(info, q.schedulingCycle);
  t.same(q.counts(), { active: 0, backoff: 0, unschedulable: 1 });
  // an event while backing off: to the backoff queue
  q.moveAllToActiveOrBackoff();
  t.same(q.counts(), { active: 0, backoff: 1, unschedulable: 0 });
  now.t += 999;
  q.flushBackoffCompleted();
  t.equal(q.counts().backoff, 1, 'still backing off (1 s after the first attempt)');
  now.t += 2;
  q.flushBackoffCompleted();
  t.same(q.counts(), { active: 1, backoff: 0, unschedulable: 0 });
  const again = (await q.pop())!;
  t.equal(again.attempts, 2);
});

t.test('a move request during the cycle sends the failed pod to backoff, not unschedulable', async (t) => {
  const now = { t: 0 };
  const q = newQueue(now);
  q.add(makePod('p'));
  const info = (await q.pop())!;
  const cycle = q.schedulingCycle;
  q.moveAllToActiveOrBackoff();
  q.addUnschedulableIfNotPresent(info, cycle);
  t.same(q.counts(), { active: 0, backoff: 1, unschedulable: 0 });
});

t.test('backoff doubles per attempt up to the maximum', async (t) => {
  const now = { t: 0 };
  const q = newQueue(now);
  q.add(makePod('p'));
  let info = (await q.pop())!;
  for (let attempt = 1; attempt <= 6; attempt++) {
    q.addBackoff(info);
    const expected = Math.min(1000 * 2 ** (attempt - 1), 10_000);
    now.t += expected - 1;
    q.flushBackoffCompleted();
    t.equal(q.counts().backoff, 1, `attempt ${attempt}: waiting ${expected} ms`);
    now.t += 1;
    q.flushBackoffCompleted();
    t.equal(q.counts().active, 1);
    info = (await q.pop())!;
  }
});

t.test('leftover unschedulable pods are retried after a minute', async (t) => {
  const now = { t: 0 };
  const q = newQueue(now);
  q.add(makePod('p'));
  q.addUnschedulableIfNotPresent((await q.pop())!, q.schedulingCycle);
  now.t += UNSCHEDULABLE_TIMEOUT_MS;
  q.flushUnschedulableLeftover();
  t.equal(q.counts().unschedulable, 1);
  now.t += 1;
  q.flushUnschedulableLeftover();
  t.equal(q.counts().active, 1);
});

t.test('an update that changes the spec moves an unschedulable pod; a status-only one does not', async (t) => {
  const now = { t: 0 };
  const q = newQueue(now);
  const pod = makePod('p');
  q.add(pod);
  q.addUnschedulableIfNotPresent((await q.pop())!, q.schedulingCycle);
  q.update(pod, { ...pod, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] } });
  t.equal(q.counts().unschedulable, 1);
  now.t += 5000;
  q.update(pod, { ...pod, metadata: { ...pod.metadata, labels: { a: 'b' } } });
  t.same(q.counts(), { active: 1, backoff: 0, unschedulable: 0 });
});

t.test('an assigned pod matching a waiting pod\'s required affinity moves it', async (t) => {
  const now = { t: 0 };
  const q = newQueue(now);
  const affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' }] } };
  q.add(makePod('wants-db', { spec: { affinity } }));
  q.add(makePod('other'));
  const a = (await q.pop())!;
  const b = (await q.pop())!;
  q.addUnschedulableIfNotPresent(a, q.schedulingCycle);
  q.addUnschedulableIfNotPresent(b, q.schedulingCycle);
  now.t += 20_000;
  const match = (w: { requiredAffinityTerms: Array<{ selector: { matches(l: Record<string, string> | undefined): boolean } }> }, p: { metadata?: { labels?: Record<string, string> } }) =>
    w.requiredAffinityTerms.some((term) => term.selector.matches(p.metadata?.labels));
  q.assignedPodAddedOrUpdated(makePod('db', { node: 'n1', labels: { app: 'db' } }), match);
  t.same(q.counts(), { active: 1, backoff: 0, unschedulable: 1 });
  t.equal((await q.pop())?.pod.metadata?.name, 'wants-db');
});

t.test('nominations follow the pod and are dropped on delete', async (t) => {
  const q = newQueue({ t: 0 });
  const pod = makePod('p', { spec: {} });
  const nominated = { ...pod, status: { nominatedNodeName: 'n1' } };
  q.add(nominated);
  t.same(q.nominator.nominatedPodsForNode('n1').map((p) => p.pod.metadata?.name), ['p']);
  q.delete(nominated);
  t.same(q.nominator.nominatedPodsForNode('n1'), []);
});
