/**
 * The whole API surface through real kubectl (1.32 and 1.20): `api-resources` lists every group and
 * version the server serves by default, and one object of every creatable kind goes through create,
 * get, list, watch (an ADDED event seen by `get --watch`) and delete. `get all` shows exactly the
 * kinds of category `all`.
 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import type { Kubectl, KubectlVersion } from './harness';
import { everyKindManifests, EXPECTED_GROUP_VERSIONS, NAMESPACE } from './every-kind-manifests';

for (const version of ['1.32', '1.20'] as KubectlVersion[]) {
  t.test(`kubectl ${version}: every group, version and kind`, { skip: missingKubectl(version) }, async (t) => {
    const server = await startApiServer(t);
    const kubectl = kubectlFor(t, version, server);
    await kubectl.ok(['create', 'namespace', NAMESPACE]);

    t.test('api-resources lists every served group and version', async (t) => {
      const out = await kubectl.ok(['api-versions']);
      const served = out.trim().split('\n').sort();
      t.same(served, [...EXPECTED_GROUP_VERSIONS].sort(), 'api-versions is exactly the default set');
      const resources = await kubectl.ok(['api-resources', '--no-headers', '-o', 'name']);
      for (const m of everyKindManifests()) {
        t.ok(resources.split('\n').includes(m.resource), `api-resources lists ${m.resource}`);
      }
    });

    t.test('create, get, list, watch and delete one object of every kind', async (t) => {
      const manifests = everyKindManifests();
      // one watcher per kind first, so each sees its object's ADDED event
      const watches = manifests.map((m) =>
        kubectl.stream(['get', m.resource, ...(m.namespaced ? ['-n', NAMESPACE] : []), '--watch-only', '--output-watch-events', '-o', 'name']),
      );
      t.teardown(() => Promise.all(watches.map((w) => w.kill())));
      await new Promise((r) => setTimeout(r, 1500));
      const yaml = manifests.map((m) => m.yaml).join('\n---\n');
      const created = await kubectl.run(['create', '-f', '-'], yaml);
      t.equal(created.code, 0, `create -f of every kind: ${created.stderr}`);
      for (const [i, m] of manifests.entries()) {
        const ns = m.namespaced ? ['-n', NAMESPACE] : [];
        const obj = await kubectl.json<{ kind: string; metadata: { name: string } }>(['get', m.resource, m.name, ...ns]);
        t.equal(obj.metadata.name, m.name, `get ${m.resource}/${m.name}`);
        const listed = await kubectl.ok(['get', m.resource, ...ns, '-o', 'name']);
        t.match(listed, m.name, `list ${m.resource}`);
        const line = await watches[i].waitForLine(new RegExp(`ADDED.*/${m.name}$`)).catch((err: Error) => err.message);
        t.match(line, /ADDED/, `watch ${m.resource} saw ADDED`);
      }
      // `get all` is category all: exactly the kinds kube puts there (no controller made more objects)
      const all = (await kubectl.ok(['get', 'all', '-n', NAMESPACE, '-o', 'name'])).trim().split('\n').sort();
      t.same(all, [
        'cronjob.batch/ek-cronjob', 'daemonset.apps/ek-daemonset', 'deployment.apps/ek-deployment',
        'horizontalpodautoscaler.autoscaling/ek-horizontalpodautoscaler', 'job.batch/ek-job', 'pod/ek-pod',
        'replicaset.apps/ek-replicaset', 'replicationcontroller/ek-replicationcontroller', 'service/ek-service',
        'statefulset.apps/ek-statefulset',
      ], 'get all lists the kinds of category all');
      const deleted = await kubectl.run(['delete', '-f', '-', '--wait=false'], yaml);
      t.equal(deleted.code, 0, `delete -f of every kind: ${deleted.stderr}`);
      for (const m of manifests) {
        if (m.keepsFinalizers) continue;
        const ns = m.namespaced ? ['-n', NAMESPACE] : [];
        const r = await waitGone(kubectl, m.resource, m.name, ns);
        t.ok(r, `${m.resource}/${m.name} is gone`);
      }
    });
  });
}

async function waitGone(kubectl: Kubectl, resource: string, name: string, ns: string[]): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const r = await kubectl.run(['get', resource, name, ...ns, '-o', 'name']);
    if (r.code !== 0 && /NotFound|not found/.test(r.stderr)) return true;
    await new Promise((res) => setTimeout(res, 100));
  }
  return false;
}
