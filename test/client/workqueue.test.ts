import { Registry } from 'prom-client';
import t from 'tap';
import { ExponentialFailureRateLimiter, runWorkers, WorkQueue } from '../../src/client/workqueue';
import { TokenBucket } from '../../src/client/rate-limiter';
import { installWorkQueueMetrics } from '../../src/client/workqueue-metrics';

t.test('a key is queued once, and never handed to two workers at a time', async (t) => {
  const q = new WorkQueue<string>();
  q.add('a');
  q.add('a');
  q.add('b');
  t.equal(q.length, 2, 'duplicates collapse');
  const first = await q.get();
  t.equal(first, 'a');
  q.add('a'); // added again while being processed
  t.equal(q.length, 1, 'not queued while a worker holds it');
  t.equal(await q.get(), 'b');
  q.done('a');
  t.equal(q.length, 1, 'queued again once the worker is done');
  t.equal(await q.get(), 'a');
  q.done('a');
  q.done('b');
  t.equal(q.length, 0);
});

t.test('a waiting worker gets the next key; shutDown releases waiters with undefined', async (t) => {
  const q = new WorkQueue<string>();
  const waiting = q.get();
  q.add('x');
  t.equal(await waiting, 'x');
  const second = q.get();
  q.shutDown();
  t.equal(await second, undefined);
  q.add('y');
  t.equal(q.length, 0, 'nothing is queued after shutDown');
});

t.test('addAfter delays a key; the earlier of two delays wins', async (t) => {
  const q = new WorkQueue<string>();
  const start = Date.now();
  q.addAfter('k', 300);
  q.addAfter('k', 60);
  t.equal(await q.get(), 'k');
  const took = Date.now() - start;
  t.ok(took >= 50 && took < 250, `took ${took} ms`);
  q.done('k');
  q.shutDown();
});

t.test('per-key exponential backoff, reset by forget', async (t) => {
  const l = new ExponentialFailureRateLimiter<string>(5, 1000);
  t.same([l.when('a'), l.when('a'), l.when('a'), l.when('b')], [5, 10, 20, 5]);
  t.equal(l.numRequeues('a'), 3);
  for (let i = 0; i < 20; i++) l.when('a');
  t.equal(l.when('a'), 1000, 'capped');
  l.forget('a');
  t.equal(l.when('a'), 5);
});

t.test('runWorkers retries a failing key with backoff and forgets it after success', async (t) => {
  const q = new WorkQueue<string>();
  let attempts = 0;
  const errors: boolean[] = [];
  q.add('k');
  const done = runWorkers(
    q,
    2,
    async () => {
      attempts++;
      if (attempts < 3) throw new Error('not yet');
      q.shutDown();
    },
    (_k, _err, retry) => errors.push(retry),
  );
  await done;
  t.equal(attempts, 3);
  t.same(errors, [true, true]);
  t.equal(q.numRequeues('k'), 0, 'forgotten after the success');
});

t.test('token bucket: a burst at once, then qps', async (t) => {
  let now = 0;
  const b = new TokenBucket(10, 3, () => now);
  t.same([b.reserve(), b.reserve(), b.reserve()], [0, 0, 0], 'the burst');
  t.equal(b.reserve(), 100, 'the fourth waits one token at 10/s');
  t.equal(b.reserve(), 200, 'the fifth waits behind it');
  now = 1000;
  t.equal(b.tryAccept(), true, 'refilled after a second');
  t.equal(new TokenBucket(-1, 1).reserve(), 0, 'negative qps: no limit');
});

t.test('named queues report client-go\'s workqueue metrics once a registry is installed', async (t) => {
  const registry = new Registry();
  installWorkQueueMetrics(registry);
  const q = new WorkQueue<string>({ name: 'sample' });
  const unnamed = new WorkQueue<string>();
  t.teardown(() => {
    q.shutDown();
    unnamed.shutDown();
  });
  unnamed.add('x');
  q.add('a');
  q.add('b');
  q.add('a'); // already queued: not counted again
  const value = async (metric: string) => {
    const m = (await registry.getSingleMetric(metric)?.get())?.values.find((v) => v.labels.name === 'sample');
    return m?.value;
  };
  t.equal(await value('workqueue_adds_total'), 2);
  t.equal(await value('workqueue_depth'), 2);
  const key = await q.get();
  t.equal(key, 'a');
  t.equal(await value('workqueue_depth'), 1);
  t.equal(await value('workqueue_longest_running_processor_seconds') !== undefined, true, 'a key in a worker\'s hands is measured');
  q.addRateLimited('c');
  t.equal(await value('workqueue_retries_total'), 1);
  q.done('a');
  const text = await registry.metrics();
  t.match(text, /workqueue_work_duration_seconds_count\{name="sample"\} 1/);
  t.match(text, /workqueue_queue_duration_seconds_count\{name="sample"\} 1/);
  t.match(text, /workqueue_queue_duration_seconds_bucket\{le="1e-8",name="sample"\}/, 'client-go\'s buckets');
  t.notMatch(text, /name=""/, 'unnamed queues are not measured');
});
