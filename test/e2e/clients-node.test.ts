/**
 * The official JavaScript client (@kubernetes/client-node 1.x) against the real server process,
 * loading the admin kubeconfig: CRUD of ConfigMaps and a Deployment (json-patch, its default, and
 * merge patch), and an informer that follows every change, survives a server restart on the same
 * data dir (resuming its watch) and relists after its resourceVersion is compacted (410).
 */
import fs from 'node:fs';
import t from 'tap';
import type { Test } from 'tap';
import { AppsV1Api, CoreV1Api, KubeConfig, PatchStrategy, makeInformer, setHeaderOptions } from '@kubernetes/client-node';
import type { Informer, ObjectCache, V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { MAIN_JS, freePort, startApiServer, tempDir, waitFor } from './harness';
import type { ApiServerProcess } from './harness';

const skip = fs.existsSync(MAIN_JS) ? false : `${MAIN_JS} is missing: run make build`;

function clientsFor(server: ApiServerProcess): { core: CoreV1Api; apps: AppsV1Api; kc: KubeConfig } {
  const kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfig);
  return { kc, core: kc.makeApiClient(CoreV1Api), apps: kc.makeApiClient(AppsV1Api) };
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

t.test('@kubernetes/client-node CRUD', { skip }, async (t) => {
  const server = await startApiServer(t);
  const { core, apps } = clientsFor(server);
  const namespace = 'node-client';
  const ns = await core.createNamespace({ body: { metadata: { name: namespace } } });
  t.equal(ns.metadata?.name, namespace);
  t.equal(ns.status?.phase, 'Active');

  t.test('ConfigMaps: create, get, list, json-patch, merge patch, replace, delete', async (t) => {
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'settings', labels: { app: 'demo' } }, data: { mode: 'fast' } },
    });
    t.ok(created.metadata?.uid);
    t.match(created.metadata?.resourceVersion, /^\d+$/);
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'other' }, data: { x: '1' } } });

    const got = await core.readNamespacedConfigMap({ name: 'settings', namespace });
    t.same(got.data, { mode: 'fast' });
    t.ok(got.metadata?.creationTimestamp instanceof Date, 'timestamps decode as dates');

    const all = await core.listNamespacedConfigMap({ namespace });
    t.same(all.items.map((c) => c.metadata?.name).sort(), ['other', 'settings']);
    t.match(all.metadata?.resourceVersion, /^\d+$/);
    const labelled = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app=demo' });
    t.same(labelled.items.map((c) => c.metadata?.name), ['settings']);

    // the client's default patch type is application/json-patch+json
    const jsonPatched = await core.patchNamespacedConfigMap({
      name: 'settings',
      namespace,
      body: [
        { op: 'replace', path: '/data/mode', value: 'slow' },
        { op: 'add', path: '/data/extra', value: 'yes' },
      ],
    });
    t.same(jsonPatched.data, { mode: 'slow', extra: 'yes' });

    const merged = await core.patchNamespacedConfigMap(
      { name: 'settings', namespace, body: { data: { extra: null, added: 'by-merge' }, metadata: { labels: { tier: 'back' } } } },
      mergePatch,
    );
    t.same(merged.data, { mode: 'slow', added: 'by-merge' });
    t.same(merged.metadata?.labels, { app: 'demo', tier: 'back' });

    const replaced = await core.replaceNamespacedConfigMap({
      name: 'settings',
      namespace,
      body: { ...merged, data: { only: 'this' } },
    });
    t.same(replaced.data, { only: 'this' });
    t.not(replaced.metadata?.resourceVersion, merged.metadata?.resourceVersion);

    // a stale resourceVersion is a 409 Conflict
    await t.rejects(core.replaceNamespacedConfigMap({ name: 'settings', namespace, body: { ...merged, data: {} } }), { code: 409 });

    const status = await core.deleteNamespacedConfigMap({ name: 'settings', namespace });
    t.equal(status.status, 'Success');
    await t.rejects(core.readNamespacedConfigMap({ name: 'settings', namespace }), { code: 404 });
    await t.rejects(core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'other' } } }), { code: 409 });
  });

  t.test('a Deployment: create (defaults), get, list, json-patch, merge patch, replace, scale, delete', async (t) => {
    const body: V1Deployment = {
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] } },
      },
    };
    const created = await apps.createNamespacedDeployment({ namespace, body });
    t.equal(created.metadata?.generation, 1);
    t.equal(created.spec?.strategy?.type, 'RollingUpdate', 'defaulted');
    t.equal(created.spec?.revisionHistoryLimit, 10);

    const got = await apps.readNamespacedDeployment({ name: 'web', namespace });
    t.equal(got.spec?.template.spec?.containers[0].image, 'nginx:1.25');
    const list = await apps.listNamespacedDeployment({ namespace });
    t.same(list.items.map((d) => d.metadata?.name), ['web']);

    const jsonPatched = await apps.patchNamespacedDeployment({
      name: 'web',
      namespace,
      body: [{ op: 'replace', path: '/spec/replicas', value: 2 }],
    });
    t.equal(jsonPatched.spec?.replicas, 2);
    t.equal(jsonPatched.metadata?.generation, 2, 'a spec change bumps generation');

    const merged = await apps.patchNamespacedDeployment({ name: 'web', namespace, body: { metadata: { annotations: { owner: 'team-a' } } } }, mergePatch);
    t.same(merged.metadata?.annotations, { owner: 'team-a' });
    t.equal(merged.metadata?.generation, 2, 'a metadata change does not');

    const next = structuredClone(merged);
    next.spec!.template.spec!.containers[0].image = 'nginx:1.27';
    const replaced = await apps.replaceNamespacedDeployment({ name: 'web', namespace, body: next });
    t.equal(replaced.spec?.template.spec?.containers[0].image, 'nginx:1.27');

    const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace });
    t.equal(scale.spec?.replicas, 2);
    const scaled = await apps.patchNamespacedDeploymentScale({ name: 'web', namespace, body: { spec: { replicas: 4 } } }, mergePatch);
    t.equal(scaled.spec?.replicas, 4);
    t.equal((await apps.readNamespacedDeployment({ name: 'web', namespace })).spec?.replicas, 4);

    await apps.deleteNamespacedDeployment({ name: 'web', namespace });
    await waitFor('the deployment to be gone', async () => {
      try {
        await apps.readNamespacedDeployment({ name: 'web', namespace });
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 404;
      }
    });
    t.same((await apps.listNamespacedDeployment({ namespace })).items, []);
  });
});

/** what the informer reported, in order */
interface Seen {
  type: 'add' | 'update' | 'delete';
  name: string;
  data?: Record<string, string>;
}

/**
 * an informer on ConfigMaps in one namespace, with the usual client-node error handling: the
 * informer stops on a failed watch and the application restarts it after a short pause. `hold`
 * keeps it disconnected (to make changes while it is away).
 */
class WatchedConfigMaps {
  readonly seen: Seen[] = [];
  lists = 0;
  errors = 0;
  hold = false;
  #stopped = false;
  readonly informer: Informer<V1ConfigMap> & ObjectCache<V1ConfigMap>;

  constructor(kc: KubeConfig, core: CoreV1Api, namespace: string) {
    this.informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => {
      this.lists++;
      return core.listNamespacedConfigMap({ namespace });
    });
    const record = (type: Seen['type']) => (cm: V1ConfigMap) => this.seen.push({ type, name: cm.metadata?.name ?? '', data: cm.data });
    this.informer.on('add', record('add'));
    this.informer.on('update', record('update'));
    this.informer.on('delete', record('delete'));
    this.informer.on('error', () => {
      this.errors++;
      this.#restartLater();
    });
  }

  #restartLater(): void {
    setTimeout(() => {
      if (this.#stopped) return;
      if (this.hold) return this.#restartLater();
      void this.informer.start();
    }, 250);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.informer.stop();
  }

  /** name -> data of the informer's cache */
  cache(): Record<string, Record<string, string> | undefined> {
    return Object.fromEntries(this.informer.list().map((c) => [c.metadata?.name ?? '', c.data]));
  }
}

async function serverView(core: CoreV1Api, namespace: string): Promise<Record<string, Record<string, string> | undefined>> {
  const list = await core.listNamespacedConfigMap({ namespace });
  return Object.fromEntries(list.items.map((c) => [c.metadata?.name ?? '', c.data]));
}

/** until a watch from `rv` is answered with a 410 (the compactor passed it) */
async function waitCompacted(t: Test, server: ApiServerProcess, namespace: string, rv: string): Promise<void> {
  await waitFor(
    `resourceVersion ${rv} to be compacted`,
    async () => {
      const res = await server.request('GET', `/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
      return res.status === 410 || /"code":410/.test(res.body);
    },
    20_000,
  );
  t.pass(`a watch from ${rv} is now 410 Gone`);
}

t.test('@kubernetes/client-node informer: events, server restart, relist after 410', { skip }, async (top) => {
  const t = top;
  const dataDir = tempDir(t, 'informer');
  const port = await freePort();
  let server = await startApiServer(t, { dataDir, port });
  const first = clientsFor(server);
  const kc = first.kc;
  let core = first.core;
  const namespace = 'informed';
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'before' }, data: { v: '0' } } });

  const watched = new WatchedConfigMaps(kc, core, namespace);
  t.teardown(() => watched.stop());
  await watched.informer.start();
  await waitFor('the initial list', () => watched.seen.some((s) => s.type === 'add' && s.name === 'before'));

  // live events
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'a' }, data: { v: '1' } } });
  await core.patchNamespacedConfigMap({ name: 'a', namespace, body: { data: { v: '2' } } }, mergePatch);
  await core.deleteNamespacedConfigMap({ name: 'before', namespace });
  await waitFor('add, update and delete events', () => watched.seen.some((s) => s.type === 'delete' && s.name === 'before'));
  t.same(
    watched.seen.map((s) => [s.type, s.name, s.data?.v]),
    [
      ['add', 'before', '0'],
      ['add', 'a', '1'],
      ['update', 'a', '2'],
      ['delete', 'before', '0'],
    ],
    'every change, in order',
  );

  // restart the server on the same data dir; change things before the informer is back
  t.test('the informer resumes its watch after a server restart', async (t) => {
    const listsBefore = watched.lists;
    const errorsBefore = watched.errors;
    watched.hold = true;
    await server.stop();
    await waitFor('the informer to notice', () => watched.errors > errorsBefore);
    // owned by the outer test: the server outlives this subtest
    server = await startApiServer(top, { dataDir, port });
    ({ core } = clientsFor(server));
    const mark = watched.seen.length;
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'b' }, data: { v: '1' } } });
    await core.patchNamespacedConfigMap({ name: 'a', namespace, body: { data: { v: '3' } } }, mergePatch);
    await core.deleteNamespacedConfigMap({ name: 'b', namespace });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'c' }, data: { v: '1' } } });
    watched.hold = false;
    await waitFor('the changes made while away', () => watched.seen.some((s) => s.name === 'c'));
    t.same(
      watched.seen.slice(mark).map((s) => [s.type, s.name, s.data?.v]),
      [
        ['add', 'b', '1'],
        ['update', 'a', '3'],
        ['delete', 'b', '1'],
        ['add', 'c', '1'],
      ],
      'replayed from the revision log, in order',
    );
    t.equal(watched.lists, listsBefore, 'resumed from its resourceVersion: no relist');
    t.same(watched.cache(), await serverView(core, namespace));
  });

  // restart with a fast compactor while the informer is away, so its resourceVersion is compacted
  t.test('the informer relists after its resourceVersion is compacted (410)', async (t) => {
    const listsBefore = watched.lists;
    const errorsBefore = watched.errors;
    watched.hold = true;
    await server.stop();
    await waitFor('the informer to notice', () => watched.errors > errorsBefore);
    const rv = watched.informer.latestResourceVersion();
    t.match(rv, /^\d+$/);
    server = await startApiServer(top, { dataDir, port, args: ['--etcd-compaction-interval=1s'] });
    ({ core } = clientsFor(server));
    const mark = watched.seen.length;
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'd' }, data: { v: '1' } } });
    await core.patchNamespacedConfigMap({ name: 'c', namespace, body: { data: { v: '2' } } }, mergePatch);
    await core.deleteNamespacedConfigMap({ name: 'a', namespace });
    await waitCompacted(t, server, namespace, rv);
    watched.hold = false;
    await waitFor('the relist', () => watched.lists > listsBefore && watched.seen.some((s) => s.name === 'd'));
    t.equal(watched.lists, listsBefore + 1, 'one relist');
    t.same(
      watched.seen
        .slice(mark)
        .map((s) => [s.type, s.name, s.data?.v])
        .sort(),
      [
        ['add', 'd', '1'],
        ['delete', 'a', '3'],
        ['update', 'c', '2'],
      ].sort(),
      'the relist reports what changed',
    );
    // and it keeps watching from the fresh list
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'e' }, data: { v: '1' } } });
    await waitFor('a live event after the relist', () => watched.seen.some((s) => s.name === 'e'));
    t.same(watched.cache(), await serverView(core, namespace), "the informer's cache equals the server's list");
    t.same(Object.keys(watched.cache()).sort(), ['c', 'd', 'e']);
  });
});
