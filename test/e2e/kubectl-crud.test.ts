/**
 * kubectl 1.32 and 1.20 against the real server: get in every output form, create, apply, patch
 * (three types), label, annotate, scale, replace, delete --wait, server dry-run, health via --raw.
 */
import t from 'tap';
import yaml from 'js-yaml';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import type { KubectlVersion } from './harness';
import { configMap, deployment, namespace } from './manifests';
import type { Obj, ObjList } from './manifests';

const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];

for (const version of VERSIONS) {
  t.test(`kubectl ${version}`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    const k = kubectlFor(t, version, server);
    const ns = `e2e-${version.replace('.', '-')}`;

    t.test('get namespaces: table, wide, yaml, json', async (t) => {
      const table = await k.ok(['get', 'namespaces']);
      t.match(table, /^NAME\s+STATUS\s+AGE/m, 'server-side Table columns');
      t.match(table, /^default\s+Active\s/m);
      t.match(await k.ok(['get', 'namespaces', '-o', 'wide']), /^default\s+Active\s/m);
      const asYaml = yaml.load(await k.ok(['get', 'namespace', 'default', '-o', 'yaml'])) as Obj & { kind: string };
      t.equal(asYaml.kind, 'Namespace');
      t.equal(asYaml.metadata.name, 'default');
      const list = await k.json<ObjList>(['get', 'namespaces']);
      t.equal(list.kind, 'List');
      t.ok(list.items.some((i) => i.metadata.name === 'default'));
    });

    t.test('create -f a namespace and a configmap', async (t) => {
      t.match(await k.ok(['create', '-f', '-'], namespace(ns)), `namespace/${ns} created`);
      t.match(await k.ok(['create', '-f', '-'], configMap('settings', ns, { mode: 'fast' })), 'configmap/settings created');
      const cm = await k.json<Obj>(['get', 'configmap', 'settings', '-n', ns]);
      t.same(cm.data, { mode: 'fast' });
      t.ok(cm.metadata.uid);
      t.match(cm.metadata.resourceVersion, /^\d+$/);
    });

    t.test('apply -f creates, then updates with a strategic merge patch', async (t) => {
      t.match(await k.ok(['apply', '-f', '-'], deployment('web', ns, { replicas: 1 })), 'deployment.apps/web created');
      const created = await k.json<Obj>(['get', 'deployment', 'web', '-n', ns]);
      t.ok(created.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'], 'last-applied annotation kept');
      t.match(await k.ok(['apply', '-f', '-'], deployment('web', ns, { replicas: 2, image: 'nginx:1.26' })), 'deployment.apps/web configured');
      const updated = await k.json<Obj>(['get', 'deployment', 'web', '-n', ns]);
      t.equal(updated.spec?.replicas, 2);
      t.same(updated.spec?.template?.spec.containers.map((c) => c.image), ['nginx:1.26']);
      t.match(await k.ok(['get', 'deployments', '-n', ns]), /^web\s+\S+/m);
    });

    t.test('patch: strategic (default), merge and json', async (t) => {
      const strategic = JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } } } });
      t.match(await k.ok(['patch', 'deployment', 'web', '-n', ns, '-p', strategic]), 'deployment.apps/web patched');
      let d = await k.json<Obj>(['get', 'deployment', 'web', '-n', ns]);
      t.same(d.spec?.template?.spec.containers.map((c) => [c.name, c.image]), [['main', 'nginx:1.27']], 'merged by container name');

      await k.ok(['patch', 'deployment', 'web', '-n', ns, '--type=merge', '-p', '{"metadata":{"labels":{"tier":"front"}}}']);
      d = await k.json<Obj>(['get', 'deployment', 'web', '-n', ns]);
      t.same(d.metadata.labels, { app: 'web', tier: 'front' });

      await k.ok(['patch', 'deployment', 'web', '-n', ns, '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":4}]']);
      d = await k.json<Obj>(['get', 'deployment', 'web', '-n', ns]);
      t.equal(d.spec?.replicas, 4);
    });

    t.test('label, annotate and scale', async (t) => {
      t.match(await k.ok(['label', 'configmap', 'settings', '-n', ns, 'team=storage']), 'configmap/settings labeled');
      t.match(await k.ok(['annotate', 'configmap', 'settings', '-n', ns, 'note=hello world']), 'configmap/settings annotated');
      const cm = await k.json<Obj>(['get', 'configmap', 'settings', '-n', ns]);
      t.equal(cm.metadata.labels?.team, 'storage');
      t.equal(cm.metadata.annotations?.note, 'hello world');
      t.match(await k.ok(['get', 'configmaps', '-n', ns, '-l', 'team=storage', '-o', 'name']), 'configmap/settings');

      t.match(await k.ok(['scale', 'deployment', 'web', '-n', ns, '--replicas=3']), 'deployment.apps/web scaled');
      const d = await k.json<Obj>(['get', 'deployment', 'web', '-n', ns]);
      t.equal(d.spec?.replicas, 3);
    });

    t.test('replace -f swaps the whole object', async (t) => {
      t.match(await k.ok(['replace', '-f', '-'], configMap('settings', ns, { mode: 'safe', extra: '1' })), 'configmap/settings replaced');
      const cm = await k.json<Obj>(['get', 'configmap', 'settings', '-n', ns]);
      t.same(cm.data, { mode: 'safe', extra: '1' });
      t.equal(cm.metadata.labels?.team, undefined, 'labels not in the new manifest are gone');
    });

    // kubectl 1.20 downloads OpenAPI v2 (protobuf) for create --dry-run=server; validation stays on
    t.test('create --dry-run=server creates nothing', async (t) => {
      const out = await k.ok(['create', '--dry-run=server', '-f', '-'], configMap('ghost', ns, { a: 'b' }));
      t.match(out, 'configmap/ghost created (server dry run)');
      const get = await k.run(['get', 'configmap', 'ghost', '-n', ns]);
      t.equal(get.code, 1);
      t.match(get.stderr, /NotFound|not found/);
    });

    t.test('delete --wait', async (t) => {
      t.match(await k.ok(['delete', 'configmap', 'settings', '-n', ns, '--wait=true']), 'configmap "settings" deleted');
      const get = await k.run(['get', 'configmap', 'settings', '-n', ns]);
      t.equal(get.code, 1);
      t.match(get.stderr, 'configmaps "settings" not found');
      t.match(await k.ok(['delete', 'deployment', 'web', '-n', ns, '--wait']), 'deployment.apps "web" deleted');
    });

    t.test('get --raw health endpoints', async (t) => {
      const verbose = await k.ok(['get', '--raw', '/readyz?verbose']);
      t.match(verbose, /\[\+\]etcd ok/);
      t.match(verbose, /readyz check passed/);
      t.equal(await k.ok(['get', '--raw', '/livez']), 'ok');
      t.equal(await k.ok(['get', '--raw', '/healthz']), 'ok');
    });

    t.test('delete namespace', async (t) => {
      t.match(await k.ok(['delete', 'namespace', ns, '--wait=true', '--timeout=60s']), `namespace "${ns}" deleted`);
      const get = await k.run(['get', 'namespace', ns]);
      t.equal(get.code, 1);
      t.match(get.stderr, 'not found');
    });
  });
}
