import t from 'tap';
import { makeFixture, storeKinds, configMap, write, CollectingSink, type Fixture } from '../../helpers/registry-fixture';
import type { KubeObject } from '../../../src/api/kind';
import type { Status } from '../../../src/api/errors';
import { rejects } from '../../helpers/registry-assert';

async function seed(f: Fixture, names: string[], labels?: Record<string, string>): Promise<void> {
  for (const n of names) await f.registry.create(f.target('configmaps', 'default'), configMap(n, 'default', labels), write);
}

const obj = (e: { object: unknown }) => e.object as KubeObject;

for (const backend of storeKinds()) {
  t.test(`watch (${backend})`, async (t) => {
    t.test('rv unset: ADDED for the current state, then changes in order', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, ['a', 'b']);
      const sink = new CollectingSink();
      const h = await f.registry.watch(f.target('configmaps', 'default'), {}, sink);
      t.teardown(() => h.cancel());
      await sink.waitFor((e) => e.length >= 2);
      await f.registry.patch(f.target('configmaps', 'default', 'a'), 'merge', JSON.stringify({ data: { k: 'x' } }), write);
      await f.registry.delete(f.target('configmaps', 'default', 'b'), write);
      await f.registry.create(f.target('configmaps', 'default'), configMap('c'), write);
      await sink.waitFor((e) => e.length >= 5);
      t.same(sink.summary(), ['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b', 'ADDED c']);
      const del = obj(sink.events[3]);
      t.equal(del.kind, 'ConfigMap');
      t.equal(del.apiVersion, 'v1');
      t.equal(del.metadata!.resourceVersion, String(f.store.currentRevision() - 1), 'DELETED carries the revision of the deletion');
      t.same(obj(sink.events[2]).data, { k: 'x' });
    });

    t.test('served from the store (no watch cache): updates are MODIFIED, with or without a selector', async (t) => {
      // a watch resumed from a revision the cache does not hold (e.g. after a restart) is served by
      // the store; it must call an update MODIFIED just as the cache path does
      const f = await makeFixture(backend, { watchCache: false });
      t.teardown(() => f.close());
      await seed(f, ['a'], { app: 'x' });
      const from = String(f.store.currentRevision());
      const plain = new CollectingSink();
      const selected = new CollectingSink();
      const h1 = await f.registry.watch(f.target('configmaps', 'default'), { resourceVersion: from }, plain);
      const h2 = await f.registry.watch(f.target('configmaps', 'default'), { resourceVersion: from, labelSelector: 'app=x' }, selected);
      t.teardown(() => (h1.cancel(), h2.cancel()));
      await f.registry.patch(f.target('configmaps', 'default', 'a'), 'merge', JSON.stringify({ data: { k: 'y' } }), write);
      await plain.waitFor((e) => e.length >= 1);
      await selected.waitFor((e) => e.length >= 1);
      t.same(plain.summary(), ['MODIFIED a']);
      t.same(selected.summary(), ['MODIFIED a']);
    });

    t.test('rv=0 is the same Get State mode; namespace filtering', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, ['a']);
      await f.registry.create(f.target('configmaps', 'kube-system'), configMap('sys', 'kube-system'), write);
      const sink = new CollectingSink();
      const h = await f.registry.watch(f.target('configmaps', 'default'), { resourceVersion: '0' }, sink);
      t.teardown(() => h.cancel());
      await f.registry.create(f.target('configmaps', 'kube-system'), configMap('sys2', 'kube-system'), write);
      await f.registry.create(f.target('configmaps', 'default'), configMap('b'), write);
      await sink.waitFor((e) => e.length >= 2);
      t.same(sink.summary(), ['ADDED a', 'ADDED b']);
      const all = new CollectingSink();
      const h2 = await f.registry.watch(f.target('configmaps'), {}, all);
      t.teardown(() => h2.cancel());
      await all.waitFor((e) => e.length >= 4);
      t.same(all.summary(), ['ADDED a', 'ADDED b', 'ADDED sys', 'ADDED sys2']);
    });

    t.test('rv given: Start at Exact, no synthetic events', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, ['a', 'b']);
      const from = f.store.currentRevision();
      await f.registry.create(f.target('configmaps', 'default'), configMap('c'), write);
      await f.registry.delete(f.target('configmaps', 'default', 'a'), write);
      const sink = new CollectingSink();
      const h = await f.registry.watch(f.target('configmaps', 'default'), { resourceVersion: String(from) }, sink);
      t.teardown(() => h.cancel());
      await sink.waitFor((e) => e.length >= 2);
      t.same(sink.summary(), ['ADDED c', 'DELETED a']);
    });

    t.test('rv older than the compacted history: ERROR 410 on the stream, then the end', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, ['a', 'b', 'c']);
      await f.registry.delete(f.target('configmaps', 'default', 'a'), write);
      const compactedAt = f.store.currentRevision();
      await f.store.compact(compactedAt);
      const sink = new CollectingSink();
      await f.registry.watch(f.target('configmaps', 'default'), { resourceVersion: '2' }, sink);
      await sink.waitFor(() => sink.ended);
      t.same(sink.summary(), ['ERROR 410']);
      const status = sink.events[0].object as Status;
      t.equal(status.reason, 'Expired');
      t.equal(status.message, `too old resource version: 2 (${f.store.compactRevision()})`);
    });

    t.test('selectors: stop matching -> DELETED with the new state; start matching -> ADDED', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, ['a'], { tier: 'front' });
      await seed(f, ['b'], { tier: 'back' });
      const sink = new CollectingSink();
      const h = await f.registry.watch(f.target('configmaps', 'default'), { labelSelector: 'tier=front' }, sink);
      t.teardown(() => h.cancel());
      await sink.waitFor((e) => e.length >= 1);
      await f.registry.patch(f.target('configmaps', 'default', 'a'), 'merge', JSON.stringify({ metadata: { labels: { tier: 'back' } } }), write);
      await f.registry.patch(f.target('configmaps', 'default', 'b'), 'merge', JSON.stringify({ metadata: { labels: { tier: 'front' } } }), write);
      await f.registry.patch(f.target('configmaps', 'default', 'b'), 'merge', JSON.stringify({ data: { k: 'y' } }), write);
      await f.registry.patch(f.target('configmaps', 'default', 'a'), 'merge', JSON.stringify({ data: { k: 'z' } }), write);
      await f.registry.delete(f.target('configmaps', 'default', 'b'), write);
      await sink.waitFor((e) => e.length >= 5);
      t.same(sink.summary(), ['ADDED a', 'DELETED a', 'ADDED b', 'MODIFIED b', 'DELETED b']);
      t.same(obj(sink.events[1]).metadata!.labels, { tier: 'back' }, 'the new state');
    });

    t.test('a single object through fieldSelector metadata.name', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, ['web', 'web2', 'other']);
      const sink = new CollectingSink();
      const h = await f.registry.watch(f.target('configmaps', 'default'), { fieldSelector: 'metadata.name=web' }, sink);
      t.teardown(() => h.cancel());
      await f.registry.patch(f.target('configmaps', 'default', 'web2'), 'merge', JSON.stringify({ data: { k: '2' } }), write);
      await f.registry.patch(f.target('configmaps', 'default', 'web'), 'merge', JSON.stringify({ data: { k: '1' } }), write);
      await sink.waitFor((e) => e.length >= 2);
      t.same(sink.summary(), ['ADDED web', 'MODIFIED web']);
    });

    t.test('bookmarks and sendInitialEvents', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, ['a', 'b']);
      const rev = f.store.currentRevision();
      const sink = new CollectingSink();
      const h = await f.registry.watch(f.target('configmaps', 'default'),
        { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true }, sink);
      t.teardown(() => h.cancel());
      await sink.waitFor((e) => e.length >= 3);
      t.same(sink.summary().slice(0, 3), ['ADDED a', 'ADDED b', 'BOOKMARK']);
      t.same(sink.events[2].object, {
        apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: String(rev), annotations: { 'k8s.io/initial-events-end': 'true' } },
      });
      // later progress turns into plain bookmarks (only metadata.resourceVersion)
      await f.registry.create(f.target('configmaps', 'kube-system'), configMap('elsewhere', 'kube-system'), write);
      await sink.waitFor((e) => e.length >= 4 && e[e.length - 1].type === 'BOOKMARK' && obj(e[e.length - 1]).metadata!.resourceVersion === String(rev + 1));
      t.same(sink.events[sink.events.length - 1].object, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: String(rev + 1) } });
      // without allowWatchBookmarks: none
      const quiet = new CollectingSink();
      const h2 = await f.registry.watch(f.target('configmaps', 'default'), { sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan' }, quiet);
      t.teardown(() => h2.cancel());
      await f.registry.create(f.target('configmaps', 'default'), configMap('c'), write);
      await quiet.waitFor((e) => e.length >= 1);
      await new Promise((r) => setTimeout(r, 150));
      t.same(quiet.summary(), ['ADDED c'], 'sendInitialEvents=false: no initial state, no bookmarks');
    });

    t.test('rejections before streaming; cancel and a closed sink stop delivery', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const target = f.target('configmaps', 'default');
      const sink = new CollectingSink();
      await rejects(t, f.registry.watch(target, { labelSelector: '=oops' }, sink), 400, 'BadRequest');
      await rejects(t, f.registry.watch(target, { resourceVersion: 'later' }, sink), 400, 'BadRequest', /invalid resource version/);
      await rejects(t, f.registry.watch(target, { resourceVersionMatch: 'NotOlderThan' }, sink), 422, 'Invalid',
        /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/);
      await rejects(t, f.registry.watch(target, { sendInitialEvents: true }, sink), 422, 'Invalid',
        /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/);
      await rejects(t, f.registry.watch(target, { resourceVersion: String(f.store.currentRevision() + 100) }, sink), 504, 'Timeout');
      t.same(sink.events, []);
      const closing = new CollectingSink();
      const h = await f.registry.watch(target, {}, closing);
      await f.registry.create(target, configMap('x'), write);
      await closing.waitFor((e) => e.length >= 1);
      closing.close();
      await f.registry.create(target, configMap('y'), write);
      await new Promise((r) => setTimeout(r, 50));
      await f.registry.create(target, configMap('z'), write);
      await new Promise((r) => setTimeout(r, 50));
      t.equal(closing.events.length, 2, 'the refused event was the last one');
      h.cancel();
    });
  });
}
