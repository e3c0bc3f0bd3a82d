import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openStore } from '../../src/storage/open';
import { newestRecordedTime, startExpiry, sweepInterval } from '../../src/storage/expiry';
import type { StoreEvent } from '../../src/storage/store';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';

const parse = (...args: string[]) => parseOptions(apiServerOptionGroups, args);
const PREFIX = '/registry/core/events/';
const event = (name: string, at: string) => JSON.stringify({ metadata: { name, namespace: 'default', creationTimestamp: at }, lastTimestamp: at });

t.test('--event-ttl: default 1h, must be positive; the sweep interval follows it', async (t) => {
  t.equal(apiServerConfig(parse('--data-dir=/x')).storage.eventTtlMs, 3_600_000);
  t.equal(apiServerConfig(parse('--data-dir=/x', '--event-ttl=3s')).storage.eventTtlMs, 3000);
  t.throws(() => parse('--event-ttl=0s'), { message: /--event-ttl.*must be greater than 0/ });
  t.equal(sweepInterval(3000), 1000);
  t.equal(sweepInterval(3_600_000), 60_000);
  t.equal(sweepInterval(60_000), 15_000);
});

t.test('newestRecordedTime reads the event\'s own timestamps', async (t) => {
  t.equal(newestRecordedTime({ metadata: { creationTimestamp: '2024-05-01T10:00:00Z' } }), Date.parse('2024-05-01T10:00:00Z'));
  t.equal(newestRecordedTime({
    metadata: { creationTimestamp: '2024-05-01T10:00:00Z', managedFields: [{ time: '2024-05-01T10:05:00Z' }] },
    lastTimestamp: '2024-05-01T10:03:00Z',
    series: { lastObservedTime: '2024-05-01T10:04:00.000000Z' },
  }), Date.parse('2024-05-01T10:05:00Z'));
  t.equal(newestRecordedTime({ eventTime: 'not a time' }), undefined);
  t.equal(newestRecordedTime(null), undefined);
});

t.test('the sweep deletes what is older than the TTL through the store; writes restart the clock', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-ttl-'));
  const store = await openStore(`sqlite://${path.join(dir, 'state.db')}`, { synchronous: 'NORMAL' });
  t.teardown(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  let now = Date.parse('2024-05-01T10:00:00Z');
  const seen: StoreEvent[] = [];
  const watch = store.watch({ afterRevision: 0, prefix: PREFIX, onEvent: (e) => seen.push(e), onError: () => undefined });
  t.teardown(() => watch.cancel());
  // written an hour before this process started (a restart): dated by its own timestamps
  await store.create(`${PREFIX}default/old`, event('old', '2024-05-01T08:59:00Z'));
  await store.create(`${PREFIX}default/recent`, event('recent', '2024-05-01T09:59:30Z'));
  await store.create(`${PREFIX}default/undated`, '{"metadata":{"name":"undated"}}');
  await store.create('/registry/core/configmaps/default/keep', event('keep', '2024-05-01T08:00:00Z'));
  const expiry = startExpiry({
    store,
    prefix: PREFIX,
    ttlMs: 60_000,
    intervalMs: 3_600_000,
    clock: () => now,
    writtenAt: (kv) => newestRecordedTime(JSON.parse(kv.value)),
  });
  t.teardown(() => expiry.stop());
  t.equal(await expiry.sweep(), 1, 'the event older than the TTL goes');
  t.equal(await store.get(`${PREFIX}default/old`), undefined);
  t.ok(await store.get('/registry/core/configmaps/default/keep'), 'other resources are untouched');

  now += 40_000; // recent was written 70 s ago, undated was first seen 40 s ago
  t.equal(await expiry.sweep(), 1);
  t.equal(await store.get(`${PREFIX}default/recent`), undefined);
  t.ok(await store.get(`${PREFIX}default/undated`), 'an undated key is dated by the sweep that first saw it');

  // a write renews the lease: dated by the sweep that sees its new revision
  await store.update(`${PREFIX}default/undated`, '{"metadata":{"name":"undated"},"count":2}');
  now += 10_000;
  t.equal(await expiry.sweep(), 0);
  now += 55_000; // 105 s after first seen, 55 s after the write was noticed
  t.equal(await expiry.sweep(), 0, 'the update restarted its clock');
  now += 10_000;
  t.equal(await expiry.sweep(), 1);
  t.equal(await store.get(`${PREFIX}default/undated`), undefined);

  await store.waitForRevision(store.currentRevision(), 1000);
  await new Promise((r) => setTimeout(r, 50));
  t.same(seen.filter((e) => e.type === 'DELETED').map((e) => e.key), [`${PREFIX}default/old`, `${PREFIX}default/recent`, `${PREFIX}default/undated`], 'watchers see DELETED');
});

t.test('a write between the list and the delete wins', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-ttl-'));
  const store = await openStore(`sqlite://${path.join(dir, 'state.db')}`, { synchronous: 'NORMAL' });
  t.teardown(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await store.create(`${PREFIX}default/racy`, event('racy', '2024-05-01T08:00:00Z'));
  const racing = {
    ...store,
    list: async (...args: Parameters<typeof store.list>) => {
      const res = await store.list(...args);
      await store.update(`${PREFIX}default/racy`, event('racy', '2024-05-01T10:00:00Z'));
      return res;
    },
    delete: store.delete.bind(store),
  };
  const expiry = startExpiry({ store: racing as typeof store, prefix: PREFIX, ttlMs: 60_000, intervalMs: 3_600_000, clock: () => Date.parse('2024-05-01T10:00:00Z'), writtenAt: (kv) => newestRecordedTime(JSON.parse(kv.value)) });
  t.teardown(() => expiry.stop());
  t.equal(await expiry.sweep(), 0);
  t.ok(await store.get(`${PREFIX}default/racy`));
});
