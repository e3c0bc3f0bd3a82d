import t from 'tap';
import { QueueSet, RequestRejected } from '../../src/flowcontrol/queue-set';
import type { Seat } from '../../src/flowcontrol/queue-set';

/** a queue set on a clock the test moves; flows 0n and 1n land on queues 0 and 1 (hand size 1) */
function fixture(config: Partial<ConstructorParameters<typeof QueueSet>[0]['config']> = {}) {
  let now = 0;
  const qs = new QueueSet({ config: { concurrencyLimit: 1, queues: 8, handSize: 1, queueLengthLimit: 50, ...config }, now: () => now });
  const order: string[] = [];
  const seats = new Map<string, Seat>();
  const enter = (flow: bigint, name: string, waitMs = 60_000) =>
    qs.acquire(flow, waitMs).then((seat) => {
      order.push(name);
      seats.set(name, seat);
    });
  const finish = async (name: string, afterMs = 1000) => {
    now += afterMs;
    seats.get(name)!.release();
    await new Promise((r) => setImmediate(r));
  };
  return { qs, order, enter, finish };
}

const settle = () => new Promise((r) => setImmediate(r));

t.test('fair queuing: a newly active flow overtakes the backlog of a busy one', async (t) => {
  const { order, enter, finish } = fixture();
  const all = ['a1', 'a2', 'a3', 'a4'].map((n) => enter(0n, n));
  await settle();
  all.push(enter(1n, 'b1'));
  await settle();
  t.same(order, ['a1']);
  for (const n of ['a1', 'b1', 'a2', 'a3']) await finish(n);
  await Promise.all(all);
  t.same(order, ['a1', 'b1', 'a2', 'a3', 'a4'], 'FIFO would have served b1 last');
});

t.test('fair queuing: two backlogged flows alternate', async (t) => {
  const { order, enter, finish } = fixture();
  const all = ['a1', 'a2', 'a3'].map((n) => enter(0n, n));
  all.push(...['b1', 'b2', 'b3'].map((n) => enter(1n, n)));
  await settle();
  for (const n of ['a1', 'b1', 'a2', 'b2', 'a3']) await finish(n);
  await Promise.all(all);
  t.same(order, ['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
});

t.test('a full queue rejects at once', async (t) => {
  const { qs, enter, finish } = fixture({ queueLengthLimit: 1 });
  void enter(0n, 'running');
  const waiting = enter(0n, 'waiting');
  await settle();
  t.equal(qs.executing, 1);
  t.equal(qs.waiting, 1);
  await t.rejects(qs.acquire(0n, 60_000), new RequestRejected('queue-full'));
  t.equal(qs.waiting, 1, 'the rejected request never queued');
  await finish('running');
  await waiting;
});

t.test('Reject (no queues): a seat or a rejection, never a wait', async (t) => {
  const { qs } = fixture({ queues: 0, concurrencyLimit: 2 });
  const s1 = await qs.acquire(0n, 60_000);
  await qs.acquire(1n, 60_000);
  await t.rejects(qs.acquire(2n, 60_000), new RequestRejected('concurrency-limit'));
  s1.release();
  t.ok(await qs.acquire(2n, 60_000), 'a released seat is free again');
});

t.test('waiting longer than the wait limit is a rejection; the queue forgets the request', async (t) => {
  const { qs, enter } = fixture();
  void enter(0n, 'running');
  await settle();
  await t.rejects(qs.acquire(0n, 20), new RequestRejected('time-out'));
  t.equal(qs.waiting, 0);
  t.equal(qs.executing, 1);
});

t.test('an aborted waiter leaves its queue', async (t) => {
  const { qs, enter } = fixture();
  void enter(0n, 'running');
  await settle();
  const gone = new AbortController();
  const p = qs.acquire(0n, 60_000, gone.signal);
  t.equal(qs.waiting, 1);
  gone.abort();
  await t.rejects(p, new RequestRejected('cancelled'));
  t.equal(qs.waiting, 0);
});

t.test('more seats from a new configuration admit waiting requests at once', async (t) => {
  const { qs, order, enter } = fixture();
  const all = ['a1', 'a2', 'a3'].map((n) => enter(0n, n));
  await settle();
  t.same(order, ['a1']);
  qs.setConfig({ concurrencyLimit: 3, queues: 4, handSize: 2, queueLengthLimit: 50 });
  await Promise.all(all);
  t.equal(qs.waiting, 0);
  t.same([...order].sort(), ['a1', 'a2', 'a3'], 'the re-dealt flow may be spread over its hand');
  t.equal(qs.executing, 3);
});

t.test('a free seat with nobody waiting is taken at once; otherwise the request must queue', async (t) => {
  const qs = new QueueSet({ config: { concurrencyLimit: 2, queues: 8, handSize: 2, queueLengthLimit: 50 } });
  const a = qs.tryAcquire(0n);
  const b = qs.tryAcquire(1n);
  t.ok(a && b, 'two seats, taken without waiting');
  t.equal(qs.tryAcquire(2n), undefined, 'no seat left');
  const waiting = qs.acquire(2n, 60_000);
  t.equal(qs.waiting, 1);
  a!.release();
  await waiting.then((seat) => seat.release());
  t.equal(qs.waiting, 0);
  const c = qs.tryAcquire(3n);
  t.ok(c, 'a seat again once the waiting request was served');
  const blocked = qs.acquire(4n, 60_000);
  t.equal(qs.tryAcquire(5n), undefined, 'seats full and a request waiting: no seat at once');
  b!.release();
  (await blocked).release();
  c!.release();
  t.equal(qs.executing, 0);
});
