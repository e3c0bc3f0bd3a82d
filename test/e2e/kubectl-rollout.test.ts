/**
 * `kubectl rollout status` (a GET, a list by metadata.name at resourceVersion 0, then a watch with
 * bookmarks): it returns once status says the rollout is done. Ballast has no deployment controller
 * yet, so the test plays that controller through the status subresource, as one would.
 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import type { KubectlVersion } from './harness';

const VERSIONS: KubectlVersion[] = ['1.20', '1.32'];

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
  },
});

for (const version of VERSIONS) {
  t.test(`kubectl ${version} rollout status follows the status written by a controller`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    const k = kubectlFor(t, version, server);
    const name = `roll-${version.replace('.', '-')}`;
    await k.ok(['create', '-f', '-'], JSON.stringify(deployment(name)));

    const rollout = k.stream(['rollout', 'status', `deployment/${name}`, '--timeout=60s']);
    t.teardown(() => rollout.kill());
    await rollout.waitForLine(/Waiting for deployment/);
    t.ok(rollout.running, 'still waiting while no replica is updated');

    // what the deployment controller would write once both replicas run the new template
    const path = `/apis/apps/v1/namespaces/default/deployments/${name}/status`;
    const current = JSON.parse((await server.request('GET', path)).body);
    current.status = {
      observedGeneration: current.metadata.generation,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok' }],
    };
    const put = await server.request('PUT', path, JSON.stringify(current), { 'Content-Type': 'application/json' });
    t.equal(put.status, 200, put.body);

    t.equal(await rollout.exited, 0, `rollout status exits 0 (stderr: ${rollout.stderr})`);
    t.match(rollout.lines.join('\n'), /successfully rolled out/);
  });
}
