/**
 * The whole API surface through real kubectl (1.32 and 1.20): `api-resources` lists every group and
 * version the server serves by default, and one object of every creatable kind goes through create,
 * get, list, watch (an ADDED event seen by `get --watch`) and delete. `get all` shows exactly the
 * kinds of category `all`.
 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer, waitFor } from './harness';
import { startControllers } from '../helpers/controllers';
import type { KubectlVersion } from './harness';
import { everyKindManifests, EXPECTED_GROUP_VERSIONS, NAMESPACE } from './every-kind-manifests';

for (const version of ['1.32', '1.20'] as KubectlVersion[]) {
  t.test(`kubectl ${version}: every group, version and kind`, { skip: missingKubectl(version) }, async (t) => {
    const server = await startApiServer(t);
    // StorageObjectInUseProtection's finalizers: `kubectl delete` waits for the claim and the volume to go
    startControllers(t, server, ['pvc-protection', 'pv-protection']);
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
      // one watcher per kind first, so each sees its object's ADDED event (lines `ADDED <name>`)
      const watches = manifests.map((m) =>
        kubectl.stream(['get', m.resource, ...(m.namespaced ? ['-n', NAMESPACE] : []), '--watch-only', '--output-watch-events', '-o', 'jsonpath={.type} {.object.metadata.name}{"\\n"}']),
      );
      t.teardown(() => Promise.all(watches.map((w) => w.kill())));
      await waitFor('every watch to start', () => watches.every((w) => w.running) && manifests.length);
      await new Promise((r) => setTimeout(r, 3000));
      const yaml = manifests.map((m) => m.yaml).join('\n---\n');
      const created = await kubectl.run(['create', '-f', '-'], yaml);
      t.equal(created.code, 0, `create -f of every kind: ${created.stderr}`);

      // get: every object read back from the same file
      const got = JSON.parse(await kubectl.ok(['get', '-f', '-', '-o', 'json'], yaml)) as { items: Array<{ kind: string; metadata: { name: string } }> };
      t.same(got.items.map((o) => o.metadata.name), manifests.map((m) => m.name), 'get -f reads back every object');
      // list: every resource listed in one request per scope
      for (const namespaced of [true, false]) {
        const ms = manifests.filter((m) => m.namespaced === namespaced);
        const listed = await kubectl.ok(['get', ms.map((m) => m.resource).join(','), ...(namespaced ? ['-n', NAMESPACE] : []), '-o', 'name']);
        for (const m of ms) t.match(listed, new RegExp(`/${esc(m.name)}$`, 'm'), `list ${m.resource}`);
      }
      for (const [i, m] of manifests.entries()) {
        const seen = await watches[i].waitForLine(new RegExp(`^ADDED ${esc(m.name)}$`)).then(() => true, () => false);
        t.ok(seen, `watch ${m.resource} saw ADDED (${watches[i].lines.join('; ')} ${watches[i].stderr})`);
      }

      // `get all` is category all: exactly the kinds kube puts there (no controller made more objects)
      const all = (await kubectl.ok(['get', 'all', '-n', NAMESPACE, '-o', 'name'])).trim().split('\n').sort();
      t.same(all, [
        'cronjob.batch/ek-cronjob', 'daemonset.apps/ek-daemonset', 'deployment.apps/ek-deployment',
        'horizontalpodautoscaler.autoscaling/ek-horizontalpodautoscaler', 'job.batch/ek-job', 'pod/ek-pod',
        'replicaset.apps/ek-replicaset', 'replicationcontroller/ek-replicationcontroller', 'service/ek-service',
        'statefulset.apps/ek-statefulset',
      ], 'get all lists the kinds of category all');

      // delete: kubectl waits until each object is gone
      const deleted = await kubectl.run(['delete', '-f', '-', '--wait=true', '--timeout=60s'], yaml, 90_000);
      t.equal(deleted.code, 0, `delete -f of every kind: ${deleted.stderr}`);
      const left = await kubectl.run(['get', '-f', '-', '-o', 'name', '--ignore-not-found'], yaml);
      t.equal(left.stdout.trim(), '', 'nothing is left');
      for (const [i, m] of manifests.entries()) {
        const seen = await watches[i].waitForLine(new RegExp(`^DELETED ${esc(m.name)}$`)).then(() => true, () => false);
        t.ok(seen, `watch ${m.resource} saw DELETED (${watches[i].lines.join('; ')} ${watches[i].stderr})`);
      }
    });
  });
}

function esc(name: string): string {
  return name.replace(/\./g, '\\.');
}
