/**
 * Several stores (as several API servers would hold) on one PostgreSQL database: one ordered stream
 * of revisions for all, every commit seen by every store's watchers once and in order, optimistic
 * concurrency and continue tokens across stores, and recovery from a dropped connection and from a
 * database restart.
 */
import t, { type Test } from 'tap';
import { parseStoreUrl } from '../../src/storage/open';
import { openPostgresStore } from '../../src/storage/postgres/open-postgres-store';
import type { PostgresStore } from '../../src/storage/postgres/postgres-store';
import { isStorageError, type StoreEvent } from '../../src/storage/store';
import { postgresSkipReason, startPostgres, type PrivatePostgres } from '../helpers/postgres';
import { recordWatch, sleep, until } from './contract/helpers';

const skip = postgresSkipReason();

let n = 0;
async function pair(t: Test, pg: PrivatePostgres, options: { pollIntervalMs?: number } = {}): Promise<[PostgresStore, PostgresStore]> {
  const url = await pg.database(`shared_${++n}`);
  const { id } = parseStoreUrl(url) as { id: string };
  const a = await openPostgresStore(url, id, options);
  const b = await openPostgresStore(url, id, options);
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  return [a, b];
}

const summary = (events: StoreEvent[]) => events.map((e) => `${e.revision} ${e.type} ${e.key}=${e.value}`);

t.test('stores sharing a PostgreSQL database', { skip }, async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());

  t.test('a write on one is seen by a watch on the other within 100 ms (LISTEN/NOTIFY, not the poll)', async (t) => {
    const [a, b] = await pair(t, pg, { pollIntervalMs: 60_000 });
    const w = recordWatch(b, { prefix: '/k/', afterRevision: 0 });
    t.teardown(() => w.watch.cancel());
    await sleep(50);
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      const sent = performance.now();
      const kv = await a.create(`/k/${i}`, `v${i}`);
      t.ok(await until(() => w.events.some((e) => e.revision === kv.modRevision), 2000), `event ${i} arrived`);
      delays.push(performance.now() - sent);
    }
    delays.sort((x, y) => x - y);
    t.ok(delays[delays.length - 1] < 100, `slowest write -> event on the other store: ${delays[delays.length - 1].toFixed(1)} ms`);
    t.equal(b.currentRevision(), a.currentRevision());
  });

  t.test('concurrent writes on both: gap-free revisions, and both see the same ordered stream', async (t) => {
    const [a, b] = await pair(t, pg);
    const wa = recordWatch(a, { prefix: '/', afterRevision: 0 });
    const wb = recordWatch(b, { prefix: '/', afterRevision: 0 });
    t.teardown(() => {
      wa.watch.cancel();
      wb.watch.cancel();
    });
    const writes: Promise<{ modRevision: number }>[] = [];
    for (let i = 0; i < 200; i++) {
      const store = i % 2 === 0 ? a : b;
      writes.push(store.create(`/c/${i}`, `v${i}`));
      if (i % 3 === 0) writes.push(store.create(`/d/${i}`, 'x').then((kv) => store.update(kv.key, 'y', kv.modRevision)));
    }
    const revisions = (await Promise.all(writes)).map((kv) => kv.modRevision);
    const total = 200 + 2 * Math.ceil(200 / 3);
    t.ok(await until(() => wa.events.length === total && wb.events.length === total, 10_000), 'every event reached both');
    t.same(
      wa.events.map((e) => e.revision),
      Array.from({ length: total }, (_, i) => i + 1),
      'revisions 1..N, in order, none missing or repeated',
    );
    t.same(summary(wb.events), summary(wa.events), 'the same stream on both');
    t.ok(revisions.every((r) => r >= 1 && r <= total));
    t.equal(a.currentRevision(), total);
    t.ok(await until(() => b.currentRevision() === total));
    t.ok(a.stats().largestBatch > 1, `writes share transactions (largest batch ${a.stats().largestBatch})`);
  });

  t.test('optimistic concurrency across stores, and a continue token of one read on the other', async (t) => {
    const [a, b] = await pair(t, pg);
    const first = await a.create('/o/x', '1');
    const seen = await b.get('/o/x');
    t.equal(seen?.modRevision, first.modRevision, 'a get on the other store reads the newest row');
    await a.update('/o/x', '2', first.modRevision);
    await t.rejects(b.update('/o/x', '3', first.modRevision), { code: 'Conflict' }, 'a stale update on the other store conflicts');
    for (let i = 0; i < 5; i++) await a.create(`/o/p${i}`, String(i));
    const page = await a.list('/o/p', { limit: 2 });
    t.equal(page.items.length, 2);
    t.ok(page.more);
    await b.delete('/o/p2');
    const next = await b.list('/o/p', { revision: page.revision, startKey: page.items[1].key + '\u0000', limit: 10 });
    t.same(
      next.items.map((kv) => kv.key),
      ['/o/p2', '/o/p3', '/o/p4'],
      'the page at the token revision, read on the other store (the later delete does not show)',
    );
    // a revision the other store has not followed yet is waited for, not refused
    const kv = await a.create('/o/late', '1');
    t.ok(await b.waitForRevision(kv.modRevision, 2000));
    t.equal((await b.get('/o/late', kv.modRevision))?.value, '1');
  });

  t.test('compaction on one is known to the other; one compacts at a time', async (t) => {
    const [a, b] = await pair(t, pg);
    for (let i = 0; i < 10; i++) await a.create(`/m/${i}`, 'x');
    for (let i = 0; i < 10; i++) await b.update(`/m/${i}`, 'y');
    t.ok(await until(() => a.currentRevision() === 20));
    const target = 15;
    const [ra, rb] = await Promise.all([a.compact(target), b.compact(target)]);
    t.equal(ra + rb, 5, `the five superseded creates removed once (${ra} + ${rb})`);
    t.ok(await until(() => b.compactRevision() === target && a.compactRevision() === target));
    const w = recordWatch(b, { prefix: '/m/', afterRevision: 1 });
    t.ok(await until(() => w.errors.length === 1));
    t.equal(w.errors[0].code, 'Compacted');
    await t.rejects(b.get('/m/0', 2), { code: 'Compacted' });
  });

  t.test('compaction is skipped while another server holds the compaction lock', async (t) => {
    const [a] = await pair(t, pg);
    let kv = await a.create('/cl/x', '0');
    for (let i = 1; i <= 5; i++) kv = await a.update('/cl/x', String(i));
    // what another server's compactor holds while it runs (postgres-store.ts COMPACTION_LOCK)
    const { default: pgdriver } = await import('pg');
    const holder = new pgdriver.Client(pg.url.replace(/\/[^/]*$/, `/shared_${n}`));
    await holder.connect();
    t.teardown(() => holder.end());
    await holder.query('SELECT pg_advisory_lock($1)', [0x62616c6c]);
    t.equal(await a.compact(kv.modRevision), 0, 'nothing removed while the lock is held elsewhere');
    t.equal(a.compactRevision(), 0);
    await holder.query('SELECT pg_advisory_unlock($1)', [0x62616c6c]);
    t.equal(await a.compact(kv.modRevision), 5, 'the superseded rows go once it is free');
    t.equal(a.compactRevision(), kv.modRevision);
  });

  t.test('a store that finds the log compacted past it ends its watches with Compacted and goes on', async (t) => {
    const url = await pg.database(`shared_${++n}`);
    const { id } = parseStoreUrl(url) as { id: string };
    const a = await openPostgresStore(url, id);
    // b hears no notifications and polls rarely: it reads the log only when asked to
    const b = await openPostgresStore(url, id, { channel: 'elsewhere', pollIntervalMs: 600_000 });
    t.teardown(async () => {
      await a.close();
      await b.close();
    });
    const w = recordWatch(b, { prefix: '/h/', afterRevision: 0 });
    await sleep(50);
    let kv = await a.create('/h/x', '0');
    for (let i = 1; i <= 10; i++) kv = await a.update('/h/x', String(i));
    await a.compact(kv.modRevision);
    t.equal(b.currentRevision(), 0, 'b has not read the log yet');
    t.ok(await b.waitForRevision(kv.modRevision, 5000), 'b follows the log to the newest revision');
    t.ok(await until(() => w.errors.length === 1));
    t.equal(w.errors[0].code, 'Compacted', 'its watch ended with Compacted (the events it missed are gone)');
    t.same(w.events, [], 'no event delivered across the hole');
    const after = recordWatch(b, { prefix: '/h/', afterRevision: kv.modRevision });
    t.teardown(() => after.watch.cancel());
    await sleep(50);
    const next = await a.update('/h/x', 'later');
    t.ok(await b.waitForRevision(next.modRevision, 5000));
    t.ok(await until(() => after.events.length === 1));
    t.equal(after.events[0].value, 'later', 'a watch started after the hole gets the later events');
  });

  t.test('the listening connection dropped: writes on the other are still seen once, in order', async (t) => {
    const [a, b] = await pair(t, pg, { pollIntervalMs: 200 });
    const w = recordWatch(b, { prefix: '/l/', afterRevision: 0 });
    t.teardown(() => w.watch.cancel());
    await a.create('/l/0', 'x');
    t.ok(await until(() => w.events.length === 1));
    // end every listening connection (LISTEN shows in pg_stat_activity's query column)
    const { default: pgdriver } = await import('pg');
    const c = new pgdriver.Client(pg.url);
    await c.connect();
    await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`);
    await c.end();
    for (let i = 1; i <= 20; i++) await a.create(`/l/${i}`, 'x');
    t.ok(await until(() => w.events.length === 21, 5000), 'every write arrived');
    t.same(
      w.events.map((e) => e.key),
      Array.from({ length: 21 }, (_, i) => `/l/${i}`),
    );
  });

  t.test('a database restart: writes fail while it is down, then everything resumes by itself', async (t) => {
    const [a, b] = await pair(t, pg, { pollIntervalMs: 200 });
    const w = recordWatch(b, { prefix: '/r/', afterRevision: 0 });
    t.teardown(() => w.watch.cancel());
    await a.create('/r/before', 'x');
    await pg.stopServer();
    const down = await a.create('/r/down', 'x').then(
      () => undefined,
      (err: unknown) => err,
    );
    t.ok(isStorageError(down, 'Unavailable'), `a write while down fails with Unavailable: ${(down as Error)?.message}`);
    await t.rejects(b.ping(), { code: 'Unavailable' });
    await pg.start();
    let after: number | undefined;
    for (const end = Date.now() + 10_000; after === undefined && Date.now() < end; ) {
      after = await a.create('/r/after', 'x').then(
        (kv) => kv.modRevision,
        async () => void (await sleep(100)),
      );
    }
    t.ok(after, 'writes work again');
    await b.ping();
    t.ok(await until(() => w.events.some((e) => e.key === '/r/after'), 5000));
    t.same(
      w.events.map((e) => e.key),
      ['/r/before', '/r/after'],
      'the watch on the other store saw both, once',
    );
  });
});
