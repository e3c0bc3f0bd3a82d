import type { Test } from 'tap';
import type { StoreEvent } from '../../../src/storage/store';
import { HISTORY } from './lists';
import { recordWatch, runHistory, sleep, until, type MakeStore, type Step } from './helpers';

/** the events a script of steps produces on an empty store */
export function expectedEvents(steps: Step[]): StoreEvent[] {
  const live = new Map<string, { value: string; createRevision: number }>();
  return steps.map((step, i): StoreEvent => {
    const revision = i + 1;
    const key = step[1];
    const prev = live.get(key);
    if (step[0] === 'create') {
      live.set(key, { value: step[2], createRevision: revision });
      return { type: 'ADDED', key, revision, value: step[2], createRevision: revision };
    }
    if (!prev) throw new Error(`bad script at ${revision}`);
    if (step[0] === 'update') {
      live.set(key, { value: step[2], createRevision: prev.createRevision });
      return { type: 'MODIFIED', key, revision, value: step[2], prevValue: prev.value, createRevision: prev.createRevision };
    }
    live.delete(key);
    return { type: 'DELETED', key, revision, value: prev.value, prevValue: prev.value, createRevision: prev.createRevision };
  });
}

export function watchContract(t: Test, makeStore: MakeStore): void {
  t.test('watch from now: live events of the prefix with values and prevValues', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    await store.create('/w/a', 'before');
    const w = recordWatch(store, { prefix: '/w/', afterRevision: store.currentRevision() });
    t.same(w.events, [], 'nothing is delivered before watch() returns');
    await store.update('/w/a', 'a2');
    await store.create('/other/a', 'x');
    await store.create('/w/b', 'b1');
    await store.delete('/w/a');
    t.ok(await until(() => w.events.length === 3));
    t.same(w.events, [
      { type: 'MODIFIED', key: '/w/a', revision: 2, value: 'a2', prevValue: 'before', createRevision: 1 },
      { type: 'ADDED', key: '/w/b', revision: 4, value: 'b1', createRevision: 4 },
      { type: 'DELETED', key: '/w/a', revision: 5, value: 'a2', prevValue: 'a2', createRevision: 1 },
    ]);
    w.watch.cancel();
    w.watch.cancel();
    await store.create('/w/c', '');
    await sleep(20);
    t.equal(w.events.length, 3, 'no events after cancel');
    t.same(w.errors, []);
  });

  t.test('watch from history replays the log, then continues live', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    await runHistory(store, HISTORY);
    const all = expectedEvents(HISTORY);
    const fromZero = recordWatch(store, { prefix: '/p/', afterRevision: 0 });
    const fromMiddle = recordWatch(store, { prefix: '/', afterRevision: 9 });
    await store.update('/p/c', 'c3');
    const extra: StoreEvent = { type: 'MODIFIED', key: '/p/c', revision: 18, value: 'c3', prevValue: 'c2', createRevision: 11 };
    const wantP = [...all.filter((e) => e.key.startsWith('/p/')), extra];
    const wantAll = [...all.filter((e) => e.revision > 9), extra];
    t.ok(await until(() => fromZero.events.length >= wantP.length && fromMiddle.events.length >= wantAll.length));
    await sleep(20);
    t.same(fromZero.events, wantP);
    t.same(fromMiddle.events, wantAll);
    t.same([...fromZero.errors, ...fromMiddle.errors], []);
  });

  t.test('watch from a future revision delivers only events after it', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    const w = recordWatch(store, { prefix: '/', afterRevision: 2 });
    for (const k of ['/a', '/b', '/c', '/d']) await store.create(k, '');
    t.ok(await until(() => w.events.length >= 2));
    await sleep(20);
    t.same(w.events.map((e) => e.revision), [3, 4]);
  });

  t.test('concurrent writes: every watcher sees its prefix in revision order, no gaps or duplicates', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    for (let i = 0; i < 30; i++) await store.create(`/c/${i % 3}/seed${i}`, 's');
    const watchers = [
      recordWatch(store, { prefix: '/c/', afterRevision: 0 }),
      recordWatch(store, { prefix: '/c/1/', afterRevision: 10 }),
      recordWatch(store, { prefix: '/c/2/', afterRevision: store.currentRevision() }),
    ];
    const writes: Promise<unknown>[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 60; i++) {
        const key = `/c/${i % 3}/k${i}`;
        writes.push(round === 0 ? store.create(key, 'v0') : round === 1 ? store.update(key, 'v1') : store.delete(key));
      }
      // a watcher that starts in the middle of the burst, from history
      if (round === 1) watchers.push(recordWatch(store, { prefix: '/c/0/', afterRevision: 5 }));
      await sleep(1);
    }
    await Promise.all(writes);
    t.equal(store.currentRevision(), 30 + 180);
    const expectCount = (prefix: string, after: number) => {
      const byKeyPrefix = (k: string) => k.startsWith(prefix);
      const seeds = Array.from({ length: 30 }, (_, i) => ({ rev: i + 1, key: `/c/${i % 3}/seed${i}` })).filter((s) => s.rev > after && byKeyPrefix(s.key));
      const burst = Array.from({ length: 60 }, (_, i) => `/c/${i % 3}/k${i}`).filter(byKeyPrefix).length * 3;
      return seeds.length + burst;
    };
    const want = [expectCount('/c/', 0), expectCount('/c/1/', 10), expectCount('/c/2/', 30), expectCount('/c/0/', 5)];
    t.ok(await until(() => watchers.every((w, i) => w.events.length >= want[i])), 'all events arrive');
    await sleep(20);
    watchers.forEach((w, i) => {
      const revs = w.events.map((e) => e.revision);
      t.equal(revs.length, want[i], `watcher ${i}: event count`);
      t.ok(revs.every((r, j) => j === 0 || r > revs[j - 1]), `watcher ${i}: strictly increasing revisions`);
      t.same(w.errors, []);
    });
    // the prefix watchers see exactly the '/c/' watcher's events of their prefix
    const everything = watchers[0].events;
    t.same(watchers[1].events, everything.filter((e) => e.key.startsWith('/c/1/') && e.revision > 10));
    t.same(watchers[3].events, everything.filter((e) => e.key.startsWith('/c/0/') && e.revision > 5));
    t.same(everything.map((e) => e.revision), Array.from({ length: 210 }, (_, i) => i + 1), 'no gaps');
  });

  t.test('watch from a compacted revision reports Compacted and nothing else', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    await runHistory(store, HISTORY);
    await store.compact(8);
    const old = recordWatch(store, { prefix: '/p/', afterRevision: 7 });
    const edge = recordWatch(store, { prefix: '/p/', afterRevision: 8 });
    t.ok(await until(() => old.errors.length === 1 && edge.events.length > 0));
    await store.create('/p/z', '');
    await sleep(20);
    t.equal(old.errors[0].code, 'Compacted');
    t.same(old.events, []);
    t.same(
      edge.events.slice(0, -1),
      expectedEvents(HISTORY).filter((e) => e.revision > 8 && e.key.startsWith('/p/')),
      'history after the compact revision is whole, prevValues included',
    );
    t.equal(edge.events[edge.events.length - 1].key, '/p/z');
  });
}
