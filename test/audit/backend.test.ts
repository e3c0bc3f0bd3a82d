import pino from 'pino';
import t from 'tap';
import { createBackend } from '../../src/audit/backend';
import type { BackendSettings } from '../../src/audit/backend';
import type { AuditEvent } from '../../src/audit/types';

const logger = pino({ level: 'silent' });
const settings = (extra: Partial<BackendSettings>): BackendSettings => ({
  mode: 'batch', bufferSize: 100, maxBatchSize: 3, maxBatchWaitMs: 50, throttleEnable: false, throttleQps: 0, throttleBurst: 0,
  truncateEnabled: false, truncateMaxBatchSize: 10485760, truncateMaxEventSize: 102400, version: 'audit.k8s.io/v1', ...extra,
});
const ev = (id: string): AuditEvent => ({
  kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: id, stage: 'ResponseComplete', requestURI: '/', verb: 'get',
  user: {}, requestReceivedTimestamp: '', stageTimestamp: '',
});

function recorder(fail = false) {
  const batches: AuditEvent[][] = [];
  let closed = false;
  return {
    batches,
    isClosed: () => closed,
    sink: {
      async write(events: AuditEvent[]) {
        if (fail) throw new Error('down');
        batches.push(events);
      },
      async close() {
        closed = true;
      },
    },
  };
}

t.test('batch mode: full batches at once, the rest after max wait, all at shutdown', async (t) => {
  const r = recorder();
  const b = createBackend({ name: 'test', sink: r.sink, settings: settings({ maxBatchWaitMs: 60_000 }), logger });
  for (const id of ['1', '2', '3', '4']) t.equal(await b.processEvents([ev(id)]), true);
  await new Promise((r) => setTimeout(r, 20));
  t.same(r.batches.map((x) => x.map((e) => e.auditID)), [['1', '2', '3']]);
  await b.shutdown();
  t.same(r.batches.map((x) => x.map((e) => e.auditID)), [['1', '2', '3'], ['4']]);
  t.ok(r.isClosed());

  const timed = recorder();
  const b2 = createBackend({ name: 'test', sink: timed.sink, settings: settings({ maxBatchWaitMs: 30 }), logger });
  await b2.processEvents([ev('a')]);
  await new Promise((r) => setTimeout(r, 100));
  t.same(timed.batches.map((x) => x.length), [1], 'written after batch-max-wait');
  await b2.shutdown();
});

t.test('batch mode drops over the buffer and never fails a request', async (t) => {
  const r = recorder();
  const b = createBackend({ name: 'test', sink: r.sink, settings: settings({ bufferSize: 2, maxBatchSize: 10, maxBatchWaitMs: 60_000 }), logger });
  t.equal(await b.processEvents([ev('1'), ev('2'), ev('3')]), true);
  await b.shutdown();
  t.same(r.batches.map((x) => x.map((e) => e.auditID)), [['1', '2']]);
});

t.test('throttle spaces batches', async (t) => {
  const r = recorder();
  const b = createBackend({ name: 'test', sink: r.sink, settings: settings({ maxBatchSize: 1, throttleEnable: true, throttleQps: 20, throttleBurst: 1 }), logger });
  const start = Date.now();
  for (const id of ['1', '2', '3']) await b.processEvents([ev(id)]);
  await b.shutdown();
  t.equal(r.batches.length, 3);
  t.ok(Date.now() - start >= 80, 'three batches at 20/s with burst 1 take at least ~100ms');
});

t.test('blocking and blocking-strict report failures differently; version and truncation apply', async (t) => {
  const blocking = createBackend({ name: 'test', sink: recorder(true).sink, settings: settings({ mode: 'blocking' }), logger });
  t.equal(await blocking.processEvents([ev('1')]), true, 'blocking: the request goes on');
  const strict = createBackend({ name: 'test', sink: recorder(true).sink, settings: settings({ mode: 'blocking-strict' }), logger });
  t.equal(await strict.processEvents([ev('1')]), false, 'blocking-strict: the failure is reported');
  const r = recorder();
  const v1beta1 = createBackend({ name: 'test', sink: r.sink, settings: settings({ mode: 'blocking', version: 'audit.k8s.io/v1beta1', truncateEnabled: true, truncateMaxEventSize: 400 }), logger });
  const big = { ...ev('2'), requestObject: { x: 'x'.repeat(1000) } };
  await v1beta1.processEvents([big]);
  t.equal(r.batches[0][0].apiVersion, 'audit.k8s.io/v1beta1');
  t.equal(r.batches[0][0].requestObject, undefined);
  t.equal(r.batches[0][0].annotations?.['audit.k8s.io/truncated'], 'true');
});
