/**
 * kubectl 1.32 drives deployments, replica sets and replication controllers against the real
 * server with the replicaset, replicationcontroller and deployment controllers running, and a
 * fake node marking pods ready.
 */
import t, { type Test } from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject } from '../../src/client/types';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';
import { kubectlFor, missingKubectl, startApiServer, waitFor, type Kubectl } from './harness';

t.test('kubectl 1.32 against the workload controllers', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['replicaset', 'replicationcontroller', 'deployment']);
  startFakeNode(t, client);
  const k = kubectlFor(t, '1.32', server);
  await t.test('deployments roll out, back, and scale', (t) => deployments(t, client, k));
  await t.test('hand-made replica sets and replication controllers keep their replicas', (t) => handMade(t, client, k));
});

async function deployments(t: Test, client: RestClient, k: Kubectl): Promise<void> {
  const livePods = async (selector: string) => (await client.list(RESOURCES.pods, 'default', { labelSelector: selector })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const webSets = async () => (await client.list(RESOURCES.replicaSets, 'default', { labelSelector: 'app=web' })).items;
  const rolloutStatus = () => k.ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);

  await k.ok(['create', 'deployment', 'web', '--image=busybox', '--replicas=3']);
  t.match(await rolloutStatus(), /deployment "web" successfully rolled out/);
  t.equal((await webSets()).length, 1, 'one replica set');
  t.equal((await livePods('app=web')).length, 3, 'three pods');

  // the rolling update keeps within maxSurge (25% of 3 -> 1) and maxUnavailable (25% of 3 -> 0)
  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const violations: string[] = [];
  const watching = (async () => {
    const rv = (await client.list(RESOURCES.replicaSets, 'default')).metadata?.resourceVersion;
    const specs = new Map<string, number>();
    for await (const ev of client.watch(RESOURCES.replicaSets, 'default', { resourceVersion: rv, signal: abort.signal })) {
      if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') continue;
      specs.set(ev.object.metadata?.name ?? '', ev.type === 'DELETED' ? 0 : ((ev.object.spec as { replicas?: number }).replicas ?? 0));
      const total = [...specs.values()].reduce((a, b) => a + b, 0);
      if (total > 4) violations.push(`${total} replicas wanted at once`);
    }
  })().catch(() => undefined);
  const availability = setInterval(() => {
    void client.get(RESOURCES.deployments, 'default', 'web').then((d) => {
      const available = (d.status as { availableReplicas?: number }).availableReplicas ?? 0;
      if (available < 3) violations.push(`only ${available} available`);
    }, () => undefined);
  }, 50);
  await k.ok(['set', 'image', 'deployment/web', 'busybox=busybox:2']);
  t.match(await rolloutStatus(), /successfully rolled out/);
  clearInterval(availability);
  abort.abort();
  await watching;
  t.same(violations, [], 'surge and unavailability bounds respected');
  const sets = await webSets();
  t.equal(sets.length, 2, 'a second replica set');
  const pods = await livePods('app=web');
  t.equal(pods.length, 3);
  t.ok(pods.every((p) => (p.spec as { containers: { image: string }[] }).containers[0]!.image === 'busybox:2'), 'pods run the new image');

  const history = await k.ok(['rollout', 'history', 'deployment/web']);
  t.match(history, /^1\s/m);
  t.match(history, /^2\s/m);

  await k.ok(['rollout', 'undo', 'deployment/web']);
  t.match(await rolloutStatus(), /successfully rolled out/);
  const back = await waitFor('undo', async () => {
    const p = await livePods('app=web');
    return p.length === 3 && p.every((x) => (x.spec as { containers: { image: string }[] }).containers[0]!.image === 'busybox') && p;
  });
  t.equal(back.length, 3, 'pods back on the first template');
  t.equal((await webSets()).length, 2, 'the first replica set was reused');
  const afterUndo = await k.ok(['rollout', 'history', 'deployment/web']);
  t.match(afterUndo, /^2\s/m);
  t.match(afterUndo, /^3\s/m);
  t.notMatch(afterUndo, /^1\s/m, 'revision 1 became 3');

  await k.ok(['scale', 'deployment/web', '--replicas=5']);
  await waitFor('5 pods', async () => (await livePods('app=web')).length === 5);
  t.match(await rolloutStatus(), /successfully rolled out/);

  await k.ok(['rollout', 'pause', 'deployment/web']);
  await k.ok(['set', 'image', 'deployment/web', 'busybox=busybox:3']);
  await waitFor('paused condition', async () => {
    const d = await client.get(RESOURCES.deployments, 'default', 'web');
    return (d.status as { conditions?: { reason: string }[] }).conditions?.some((c) => c.reason === 'DeploymentPaused');
  });
  t.equal((await webSets()).length, 2, 'no rollout while paused');
  await k.ok(['rollout', 'resume', 'deployment/web']);
  t.match(await rolloutStatus(), /successfully rolled out/);
  t.equal((await webSets()).length, 3, 'rolled out after resume');
}

async function handMade(t: Test, client: RestClient, k: Kubectl): Promise<void> {
  const livePods = async (selector: string) => (await client.list(RESOURCES.pods, 'default', { labelSelector: selector })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  const manifests: KubeObject[] = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'hand' }, spec: { replicas: 2, selector: { matchLabels: { app: 'hand' } }, template: template('hand') } },
    { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'old' }, spec: { replicas: 2, selector: { app: 'old' }, template: template('old') } },
  ];
  for (const m of manifests) {
    await k.ok(['create', '-f', '-'], JSON.stringify(m));
    const app = m.metadata!.name!;
    const first = await waitFor(`${app} pods`, async () => {
      const p = await livePods(`app=${app}`);
      return p.length === 2 && p;
    });
    await k.ok(['delete', 'pod', first[0]!.metadata!.name!, '--wait=false']);
    await waitFor(`${app} replacement`, async () => {
      const p = await livePods(`app=${app}`);
      return p.length === 2 && !p.some((x) => x.metadata?.name === first[0]!.metadata!.name) && p;
    });
    const kind = m.kind === 'ReplicaSet' ? 'rs' : 'rc';
    const out = await waitFor(`${app} ready`, async () => {
      const o = await k.ok(['get', kind, app, '--no-headers']);
      return /\s2\s+2\s+2\s/.test(o) && o;
    });
    t.match(out, new RegExp(`^${app}\\s+2\\s+2\\s+2\\s`), `${kind} DESIRED CURRENT READY`);
  }
}
