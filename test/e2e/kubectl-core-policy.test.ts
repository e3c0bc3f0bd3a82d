/**
 * kubectl 1.32 and 1.20 against the real server for the core storage and controller kinds and the
 * policy group: PersistentVolume, PersistentVolumeClaim, ReplicationController (with `kubectl
 * scale`), PodTemplate, PodDisruptionBudget (`kubectl create pdb`), `kubectl get
 * componentstatuses`, `kubectl drain` (evictions) of pods on a fake node, evictions refused by a
 * budget and pod binding over HTTP, and `kubectl debug` (ephemeral containers).
 */
import t from 'tap';
import type { Test } from 'tap';
import { kubectlFor, missingKubectl, startApiServer, waitFor } from './harness';
import { startControllers } from '../helpers/controllers';
import type { ApiServerProcess, Kubectl, KubectlVersion } from './harness';
import { namespace } from './manifests';
import type { Obj } from './manifests';

const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];
const json = (o: unknown): string => JSON.stringify(o);

const pv = (name: string) =>
  json({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], hostPath: { path: `/srv/${name}` }, storageClassName: 'manual' } });
const pvc = (name: string, ns: string) =>
  json({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: ns }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
const rc = (name: string, ns: string) =>
  json({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name, namespace: ns }, spec: { replicas: 1, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } });
const podTemplate = (name: string, ns: string) =>
  json({ apiVersion: 'v1', kind: 'PodTemplate', metadata: { name, namespace: ns }, template: { metadata: { labels: { role: 'batch' } }, spec: { containers: [{ name: 'job', image: 'busybox' }] } } });
const pod = (name: string, ns: string, labels: Record<string, string>, nodeName?: string) =>
  json({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }] } });

/** PUT or PATCH over HTTP, checking the status */
async function call(t: Test, server: ApiServerProcess, method: string, path: string, body: unknown, expect: number, type = 'application/json'): Promise<Record<string, unknown>> {
  const res = await server.request(method, path, JSON.stringify(body), { 'Content-Type': type, Accept: 'application/json' });
  t.equal(res.status, expect, `${method} ${path}: ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

/** a pod's phase set through the status subresource (no node agent runs here) */
const setPhase = (t: Test, server: ApiServerProcess, ns: string, name: string, phase: string) =>
  call(t, server, 'PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { status: { phase } }, 200, 'application/merge-patch+json');

async function podGone(k: Kubectl, ns: string, name: string): Promise<boolean> {
  return waitFor(`pod ${name} deleted`, async () => (await k.run(['get', 'pod', name, '-n', ns])).stderr.includes('NotFound'), 20_000);
}

for (const version of VERSIONS) {
  t.test(`kubectl ${version}`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    // StorageObjectInUseProtection's finalizers: `kubectl delete` waits for the claim and the volume to go
    startControllers(t, server, ['pvc-protection', 'pv-protection']);
    const k = kubectlFor(t, version, server);
    const tag = version.replace('.', '-');
    const ns = `core-${tag}`;
    await k.ok(['create', '-f', '-'], namespace(ns));

    t.test('PersistentVolume and PersistentVolumeClaim: create, table, get, delete', async (t) => {
      t.match(await k.ok(['create', '-f', '-'], pv(`pv-${tag}`)), `persistentvolume/pv-${tag} created`);
      t.match(await k.ok(['create', '-f', '-'], pvc('data', ns)), 'persistentvolumeclaim/data created');
      const pvTable = await k.ok(['get', 'pv', `pv-${tag}`]);
      t.match(pvTable, /^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE$/m);
      t.match(pvTable, new RegExp(`^pv-${tag}\\s+5Gi\\s+RWO,ROX\\s+Retain\\s+Pending\\s+manual\\s+<unset>\\s+\\S+$`, 'm'));
      t.match(await k.ok(['get', 'pv', `pv-${tag}`, '-o', 'wide']), /VOLUMEMODE\n.*Filesystem$/m);
      const claimTable = await k.ok(['get', 'pvc', '-n', ns]);
      t.match(claimTable, /^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE$/m);
      t.match(claimTable, /^data\s+Pending\s+<unset>\s+\S+$/m);
      const claim = await k.json<Obj & { spec: { volumeMode: string }; status: { phase: string } }>(['get', 'pvc', 'data', '-n', ns]);
      t.same([claim.spec.volumeMode, claim.status.phase], ['Filesystem', 'Pending']);
      // the spec of a claim is fixed once created
      const shrink = await k.run(['patch', 'pvc', 'data', '-n', ns, '--type=merge', '-p', json({ spec: { volumeName: 'x', storageClassName: 'other' } })]);
      t.not(shrink.code, 0);
      t.match(shrink.stderr, /spec is immutable after creation except resources.requests for bound claims/);
      t.match(await k.ok(['delete', 'pvc', 'data', '-n', ns]), 'persistentvolumeclaim "data" deleted');
      t.match(await k.ok(['delete', 'pv', `pv-${tag}`]), `persistentvolume "pv-${tag}" deleted`);
    });

    t.test('ReplicationController: defaults, scale, table; PodTemplate', async (t) => {
      t.match(await k.ok(['create', '-f', '-'], rc('web', ns)), 'replicationcontroller/web created');
      const created = await k.json<Obj & { spec: { selector: Record<string, string> } }>(['get', 'rc', 'web', '-n', ns]);
      t.same(created.spec.selector, { app: 'web' }, 'selector from the template labels');
      t.same(created.metadata.labels, { app: 'web' });
      t.match(await k.ok(['scale', 'rc', 'web', '-n', ns, '--replicas=3']), 'replicationcontroller/web scaled');
      const table = await k.ok(['get', 'rc', '-n', ns, '-o', 'wide']);
      t.match(table, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m);
      t.match(table, /^web\s+3\s+0\s+0\s+\S+\s+web\s+nginx:1\.27\s+app=web$/m);
      t.match(await k.ok(['get', 'all', '-n', ns]), /replicationcontroller\/web/, 'in the `all` category');
      t.match(await k.ok(['create', '-f', '-'], podTemplate('batch', ns)), 'podtemplate/batch created');
      t.match(await k.ok(['get', 'podtemplates', '-n', ns]), /^batch\s+job\s+busybox\s+role=batch$/m);
      t.match(await k.ok(['delete', 'rc', 'web', '-n', ns]), 'replicationcontroller "web" deleted');
      t.match(await k.ok(['delete', 'podtemplate', 'batch', '-n', ns]), 'podtemplate "batch" deleted');
    });

    t.test('kubectl create pdb, get, delete', async (t) => {
      t.match(await k.ok(['create', 'pdb', 'web-pdb', '-n', ns, '--selector=app=web', '--min-available=1']), 'poddisruptionbudget.policy/web-pdb created');
      const table = await k.ok(['get', 'pdb', '-n', ns]);
      t.match(table, /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/m);
      t.match(table, /^web-pdb\s+1\s+N\/A\s+0\s+\S+$/m);
      const v1 = await k.json<Obj & { apiVersion: string; spec: { selector: unknown } }>(['get', 'poddisruptionbudgets.v1.policy', 'web-pdb', '-n', ns]);
      t.same([v1.apiVersion, v1.spec.selector, v1.metadata.generation], ['policy/v1', { matchLabels: { app: 'web' } }, 1]);
      const beta = await k.json<Obj & { apiVersion: string }>(['get', 'poddisruptionbudgets.v1beta1.policy', 'web-pdb', '-n', ns]);
      t.equal(beta.apiVersion, 'policy/v1beta1');
      t.match(await k.ok(['delete', 'pdb', 'web-pdb', '-n', ns]), 'poddisruptionbudget.policy "web-pdb" deleted');
    });

    t.test('kubectl get componentstatuses', async (t) => {
      const table = await k.ok(['get', 'componentstatuses']);
      t.match(table, /^NAME\s+STATUS\s+MESSAGE\s+ERROR$/m);
      t.match(table, /^scheduler\s+Unhealthy\s+Get "https:\/\/127\.0\.0\.1:10259\/healthz": dial tcp 127\.0\.0\.1:10259: connect: connection refused/m);
      t.match(table, /^controller-manager\s+Unhealthy\s+Get "https:\/\/127\.0\.0\.1:10257\/healthz": dial tcp 127\.0\.0\.1:10257: connect: connection refused/m);
      t.match(table, /^etcd-0\s+Healthy\s+ok/m);
      const one = await k.json<{ conditions: unknown[] }>(['get', 'cs', 'etcd-0']);
      t.same(one.conditions, [{ type: 'Healthy', status: 'True', message: 'ok' }]);
    });

    t.test('kubectl drain evicts the selected pods of a node', async (t) => {
      const node = `node-${tag}`;
      await k.ok(['create', '-f', '-'], json({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } }));
      for (const name of ['d1', 'd2']) await k.ok(['create', '-f', '-'], pod(name, ns, { app: 'drain' }, node));
      await k.ok(['create', '-f', '-'], pod('keep', ns, { app: 'keep' }, node));
      const out = await k.ok(['drain', node, '--pod-selector=app=drain', '--force', '--grace-period=0', '--timeout=60s']);
      // kubectl 1.20 ends with `node/<name> evicted`, later ones with `drained`
      t.match(out, new RegExp(`node/${node} (drained|evicted)`));
      t.match(out, /pod\/d1 evicted/);
      t.ok(await podGone(k, ns, 'd1'));
      t.ok(await podGone(k, ns, 'd2'));
      t.match(await k.ok(['get', 'pod', 'keep', '-n', ns]), /^keep\s/m, 'pods the selector leaves alone stay');
      const n = await k.json<{ spec: { unschedulable?: boolean } }>(['get', 'node', node]);
      t.equal(n.spec.unschedulable, true, 'cordoned');
    });

    t.test('evictions over HTTP: a budget refuses with 429, then allows', async (t) => {
      await k.ok(['create', '-f', '-'], pod('guarded', ns, { app: 'guarded' }));
      await setPhase(t, server, ns, 'guarded', 'Running');
      await k.ok(['create', 'pdb', 'guard', '-n', ns, '--selector=app=guarded', '--max-unavailable=1']);
      const budgetStatus = (allowed: number) => ({ status: { observedGeneration: 1, disruptionsAllowed: allowed, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } });
      await call(t, server, 'PATCH', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/guard/status`, budgetStatus(0), 200, 'application/merge-patch+json');
      const evictPath = `/api/v1/namespaces/${ns}/pods/guarded/eviction`;
      const body = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'guarded', namespace: ns } };
      const refused = await call(t, server, 'POST', evictPath, body, 429);
      t.same(refused, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
        reason: 'TooManyRequests',
        details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget guard needs 1 healthy pods and has 1 currently' }] },
        code: 429,
      });
      await call(t, server, 'PATCH', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/guard/status`, budgetStatus(1), 200, 'application/merge-patch+json');
      const dry = await call(t, server, 'POST', `${evictPath}?dryRun=All`, { ...body, apiVersion: 'policy/v1beta1' }, 201);
      t.same(dry, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
      t.equal((await k.json<{ status: { disruptionsAllowed: number } }>(['get', 'pdb', 'guard', '-n', ns])).status.disruptionsAllowed, 1, 'dry run took nothing');
      await call(t, server, 'POST', evictPath, { ...body, deleteOptions: { gracePeriodSeconds: 0 } }, 201);
      t.ok(await podGone(k, ns, 'guarded'));
      const after = await k.json<{ status: { disruptionsAllowed: number; disruptedPods: Record<string, string> } }>(['get', 'pdb', 'guard', '-n', ns]);
      t.equal(after.status.disruptionsAllowed, 0);
      t.same(Object.keys(after.status.disruptedPods), ['guarded']);
    });

    t.test('binding over HTTP: pods/binding and the bindings resource', async (t) => {
      await k.ok(['create', '-f', '-'], pod('unbound', ns, { app: 'b' }));
      await k.ok(['create', '-f', '-'], pod('legacy', ns, { app: 'b' }));
      const binding = (name: string, nodeName: string) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: nodeName } });
      const ok = await call(t, server, 'POST', `/api/v1/namespaces/${ns}/pods/unbound/binding`, binding('unbound', 'node-x'), 201);
      t.same(ok, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
      const again = await call(t, server, 'POST', `/api/v1/namespaces/${ns}/pods/unbound/binding`, binding('unbound', 'node-y'), 409);
      t.equal(again.message, 'Operation cannot be fulfilled on pods/binding "unbound": pod unbound is already assigned to node "node-x"');
      await call(t, server, 'POST', `/api/v1/namespaces/${ns}/bindings`, binding('legacy', 'node-z'), 201);
      t.match(await k.ok(['get', 'pods', '-n', ns, '-o', 'wide', '--selector=app=b']), /^legacy\s.*node-z/m);
      await call(t, server, 'POST', `/api/v1/namespaces/${ns}/pods/missing/binding`, binding('missing', 'node-x'), 404);
    });

    t.test('kubectl debug adds an ephemeral container', { skip: version === '1.20' ? 'kubectl 1.20 debug predates the subresource form' : false }, async (t) => {
      await k.ok(['create', '-f', '-'], pod('target', ns, { app: 'dbg' }, 'node-d'));
      await k.ok(['debug', 'target', '-n', ns, '--image=busybox:1.36', '-c', 'debugger', '--profile=general']);
      const p = await k.json<{ spec: { ephemeralContainers: Array<{ name: string; image: string }> } }>(['get', 'pod', 'target', '-n', ns]);
      t.same(p.spec.ephemeralContainers.map((c) => [c.name, c.image]), [['debugger', 'busybox:1.36']]);
    });
  });
}
