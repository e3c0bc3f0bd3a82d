import t from 'tap';
import { makeFixture, storeKinds, configMap, write, type Fixture } from '../../helpers/registry-fixture';
import type { KubeList } from '../../../src/api/registry/types';
import { isApiError } from '../../../src/api/errors';
import { rejects } from '../../helpers/registry-assert';

async function seed(f: Fixture, n: number, namespace = 'default', labels?: (i: number) => Record<string, string>): Promise<void> {
  for (let i = 0; i < n; i++) {
    await f.registry.create(f.target('configmaps', namespace), configMap(`cm-${String(i).padStart(2, '0')}`, namespace, labels?.(i)), write);
  }
}

function names(l: KubeList): string[] {
  return l.items.map((o) => o.metadata!.name!);
}


for (const backend of storeKinds()) {
  t.test(`list (${backend})`, async (t) => {
    t.test('list kind, version, revision, across and within namespaces', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await f.registry.create(f.target('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } }, write);
      await seed(f, 3);
      await seed(f, 2, 'other');
      const inDefault = await f.registry.list(f.target('configmaps', 'default'), {});
      t.equal(inDefault.kind, 'ConfigMapList');
      t.equal(inDefault.apiVersion, 'v1');
      t.equal(inDefault.metadata.resourceVersion, String(f.store.currentRevision()));
      t.same(names(inDefault), ['cm-00', 'cm-01', 'cm-02']);
      t.equal(inDefault.metadata.continue, undefined);
      const all = await f.registry.list(f.target('configmaps'), {});
      t.equal(all.items.length, 5);
      t.same(all.items.map((o) => o.metadata!.namespace), ['default', 'default', 'default', 'other', 'other']);
      t.equal(all.items[0].apiVersion, 'v1');
      t.equal(all.items[0].kind, 'ConfigMap');
      t.match(all.items[0].metadata!.resourceVersion, /^\d+$/);
    });

    t.test('limit and continue give a consistent snapshot with remainingItemCount', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, 5);
      const first = await f.registry.list(f.target('configmaps', 'default'), { limit: 2 });
      t.same(names(first), ['cm-00', 'cm-01']);
      t.ok(first.metadata.continue);
      t.equal(first.metadata.remainingItemCount, 3);
      const token = JSON.parse(Buffer.from(first.metadata.continue!, 'base64url').toString());
      t.same(token, { v: 'meta.k8s.io/v1', rv: Number(first.metadata.resourceVersion), start: 'cm-01\u0000' });
      // changes after the first page are invisible to the rest of the list
      await f.registry.delete(f.target('configmaps', 'default', 'cm-03'), write);
      await f.registry.create(f.target('configmaps', 'default'), configMap('cm-02a'), write);
      const second = await f.registry.list(f.target('configmaps', 'default'), { limit: 2, continue: first.metadata.continue });
      t.same(names(second), ['cm-02', 'cm-03']);
      t.equal(second.metadata.resourceVersion, first.metadata.resourceVersion);
      const third = await f.registry.list(f.target('configmaps', 'default'), { limit: 2, continue: second.metadata.continue });
      t.same(names(third), ['cm-04']);
      t.equal(third.metadata.continue, undefined);
      t.equal(third.metadata.remainingItemCount, undefined);
      // rv=0 with continue is tolerated and the token wins
      const again = await f.registry.list(f.target('configmaps', 'default'), { limit: 2, continue: first.metadata.continue, resourceVersion: '0' });
      t.same(names(again), ['cm-02', 'cm-03']);
    });

    t.test('selectors filter while paging; no remainingItemCount with a selector', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, 10, 'default', (i) => ({ parity: i % 2 ? 'odd' : 'even', n: String(i) }));
      const p1 = await f.registry.list(f.target('configmaps', 'default'), { limit: 3, labelSelector: 'parity=odd' });
      t.same(names(p1), ['cm-01', 'cm-03', 'cm-05']);
      t.ok(p1.metadata.continue);
      t.equal(p1.metadata.remainingItemCount, undefined);
      const p2 = await f.registry.list(f.target('configmaps', 'default'), { limit: 3, labelSelector: 'parity=odd', continue: p1.metadata.continue });
      t.same(names(p2), ['cm-07', 'cm-09']);
      t.equal(p2.metadata.continue, undefined);
      const byName = await f.registry.list(f.target('configmaps'), { fieldSelector: 'metadata.name=cm-04' });
      t.same(names(byName), ['cm-04']);
      const notDefault = await f.registry.list(f.target('configmaps'), { fieldSelector: 'metadata.namespace!=default' });
      t.same(names(notDefault), []);
      const set = await f.registry.list(f.target('configmaps'), { labelSelector: 'n in (1,2,3),parity!=odd' });
      t.same(names(set), ['cm-02']);
    });

    t.test('bad selectors are 400 before anything is read', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await rejects(t, f.registry.list(f.target('configmaps'), { labelSelector: 'a in (' }), 400, 'BadRequest');
      await rejects(t, f.registry.list(f.target('configmaps'), { fieldSelector: 'spec.nodeName=x' }), 400, 'BadRequest', '"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"');
      // pods do know spec.nodeName
      const pods = await f.registry.list(f.target('pods'), { fieldSelector: 'spec.nodeName=n1' });
      t.same(pods.items, []);
      await rejects(t, f.registry.list(f.target('pods'), { fieldSelector: 'spec.bogus=x' }), 400, 'BadRequest', 'field label not supported: spec.bogus');
    });

    t.test('resourceVersion matrix (spec 4.7)', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, 3);
      const rvAfter3 = f.store.currentRevision();
      await f.registry.create(f.target('configmaps', 'default'), configMap('late'), write);
      const newest = f.store.currentRevision();
      const target = f.target('configmaps', 'default');
      // unset / 0: newest
      t.equal((await f.registry.list(target, {})).metadata.resourceVersion, String(newest));
      t.equal((await f.registry.list(target, { resourceVersion: '0' })).items.length, 4);
      t.equal((await f.registry.list(target, { resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' })).items.length, 4);
      // other value, no limit: not older than -> served at the newest
      const nlt = await f.registry.list(target, { resourceVersion: String(rvAfter3) });
      t.equal(nlt.metadata.resourceVersion, String(newest));
      t.equal(nlt.items.length, 4);
      const nlt2 = await f.registry.list(target, { resourceVersion: String(rvAfter3), resourceVersionMatch: 'NotOlderThan', limit: 1 });
      t.equal(nlt2.metadata.resourceVersion, String(newest));
      // other value + limit (legacy) or Exact: exactly that revision
      const exactLimited = await f.registry.list(target, { resourceVersion: String(rvAfter3), limit: 10 });
      t.equal(exactLimited.metadata.resourceVersion, String(rvAfter3));
      t.same(names(exactLimited), ['cm-00', 'cm-01', 'cm-02']);
      const exact = await f.registry.list(target, { resourceVersion: String(rvAfter3), resourceVersionMatch: 'Exact' });
      t.equal(exact.metadata.resourceVersion, String(rvAfter3));
      t.equal(exact.items.length, 3);
      t.same(exact.items.map((o) => o.metadata!.resourceVersion), exactLimited.items.map((o) => o.metadata!.resourceVersion));
      // future: wait, then 504
      await rejects(t, f.registry.list(target, { resourceVersion: String(newest + 5) }), 504, 'Timeout', `Too large resource version: ${newest + 5}, current: ${newest}`);
      await rejects(t, f.registry.list(target, { resourceVersion: String(newest + 5), resourceVersionMatch: 'Exact' }), 504, 'Timeout');
      // a future revision reached while waiting is served
      const pending = f.registry.list(target, { resourceVersion: String(newest + 1) });
      await f.registry.create(target, configMap('later'), write);
      t.equal((await pending).items.length, 5);
      // invalid cells: 422 Invalid ListOptions, as kube's handler validation says
      await rejects(t, f.registry.list(target, { resourceVersionMatch: 'Exact' }), 422, 'Invalid',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
      await rejects(t, f.registry.list(target, { resourceVersionMatch: 'NotOlderThan' }), 422, 'Invalid');
      await rejects(t, f.registry.list(target, { resourceVersion: '0', resourceVersionMatch: 'Exact' }), 422, 'Invalid',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
      await rejects(t, f.registry.list(target, { resourceVersion: '1', resourceVersionMatch: 'Newest' }), 422, 'Invalid',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""');
      await rejects(t, f.registry.list(target, { sendInitialEvents: true }), 422, 'Invalid', /sendInitialEvents is forbidden for list/);
      // continue with an rv other than 0: 400
      const page = await f.registry.list(target, { limit: 1 });
      await rejects(t, f.registry.list(target, { limit: 1, continue: page.metadata.continue, resourceVersion: String(newest) }), 400, 'BadRequest',
        'specifying resource version is not allowed when using continue');
      await rejects(t, f.registry.list(target, { limit: 1, continue: page.metadata.continue, resourceVersion: '5', resourceVersionMatch: 'Exact' }), 422, 'Invalid',
        /resourceVersionMatch is forbidden when continue is provided/);
      // unparseable rv
      await rejects(t, f.registry.list(target, { resourceVersion: 'abc' }), 400, 'BadRequest',
        'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax');
    });

    t.test('compaction: Exact at a compacted revision is 410; an expired continue token gets a fresh one', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await seed(f, 4);
      const old = f.store.currentRevision();
      const target = f.target('configmaps', 'default');
      const first = await f.registry.list(target, { limit: 2 });
      await f.registry.update(f.target('configmaps', 'default', 'cm-00'), configMap('cm-00', 'default', undefined, { k: 'changed' }), write);
      await f.registry.update(f.target('configmaps', 'default', 'cm-03'), configMap('cm-03', 'default', undefined, { k: 'changed' }), write);
      await f.store.compact(f.store.currentRevision());
      await rejects(t, f.registry.list(target, { resourceVersion: String(old - 1), resourceVersionMatch: 'Exact' }), 410, 'Expired',
        'The resourceVersion for the provided list is too old.');
      try {
        await f.registry.list(target, { limit: 2, continue: first.metadata.continue });
        t.fail('expected 410');
      } catch (err) {
        if (!isApiError(err)) throw err;
        t.equal(err.code, 410);
        t.equal(err.status.reason, 'Expired');
        t.match(err.status.message, /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token in this response/);
        const fresh = err.status.metadata.continue!;
        t.same(JSON.parse(Buffer.from(fresh, 'base64url').toString()), { v: 'meta.k8s.io/v1', rv: -1, start: 'cm-01\u0000' });
        // the fresh token continues at the newest revision (an inconsistent list, as kube warns)
        const rest = await f.registry.list(target, { limit: 5, continue: fresh });
        t.same(names(rest), ['cm-02', 'cm-03']);
        t.equal((rest.items[1].data as Record<string, string>).k, 'changed');
        t.equal(rest.metadata.resourceVersion, String(f.store.currentRevision()));
      }
    });

    t.test('malformed continue tokens are 400', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const target = f.target('configmaps', 'default');
      const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
      await rejects(t, f.registry.list(target, { continue: '!!!' }), 400, 'BadRequest', /^invalid continue token: continue key is not valid/);
      await rejects(t, f.registry.list(target, { continue: enc({ v: 'meta.k8s.io/v2', rv: 3, start: 'a' }) }), 400, 'BadRequest',
        /server does not recognize this encoded version/);
      await rejects(t, f.registry.list(target, { continue: enc({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' }) }), 400, 'BadRequest',
        'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
      await rejects(t, f.registry.list(target, { continue: enc({ v: 'meta.k8s.io/v1', rv: 3, start: '' }) }), 400, 'BadRequest', /encoded start key empty/);
      await rejects(t, f.registry.list(target, { continue: enc({ v: 'meta.k8s.io/v1', rv: 3, start: '../kube-system/x' }) }), 400, 'BadRequest');
    });

    t.test('objects are served in the requested version (CronJob stored as batch/v1, read as v1beta1)', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const v1 = f.kind('cronjobs', 'batch', 'v1');
      const beta = f.kind('cronjobs', 'batch', 'v1beta1');
      await f.registry.create({ kind: v1, namespace: 'default' }, {
        apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly' },
        spec: { schedule: '0 1 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } },
      }, write);
      const l = await f.registry.list({ kind: beta, namespace: 'default' }, {});
      t.equal(l.apiVersion, 'batch/v1beta1');
      t.equal(l.items[0].apiVersion, 'batch/v1beta1');
      const raw = await f.store.get('/registry/batch/cronjobs/default/nightly');
      t.equal(JSON.parse(raw!.value).apiVersion, 'batch/v1');
      t.equal(JSON.parse(raw!.value).metadata.resourceVersion, undefined, 'resourceVersion is never stored');
    });
  });
}
