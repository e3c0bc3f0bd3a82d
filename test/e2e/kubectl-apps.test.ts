/**
 * kubectl 1.32 drives StatefulSets and DaemonSets against the real server with the statefulset,
 * daemonset and garbagecollector controllers running, a fake node marking pods ready, and the test
 * playing the node lifecycle controller (nodes lose the server's not-ready taint).
 */
import t, { type Test } from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject } from '../../src/client/types';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';
import { kubectlFor, missingKubectl, startApiServer, waitFor, type Kubectl } from './harness';

const imageOf = (pod: KubeObject) => (pod.spec as { containers: { image: string }[] }).containers[0]!.image;

t.test('kubectl 1.32 against the statefulset and daemonset controllers', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['statefulset', 'daemonset', 'garbagecollector']);
  startFakeNode(t, client);
  const k = kubectlFor(t, '1.32', server);
  await t.test('a StatefulSet comes up in order, scales, rolls out and back', (t) => statefulSets(t, client, k));
  await t.test('a DaemonSet runs on the untainted nodes and rolls out', (t) => daemonSets(t, client, k));
});

const livePods = async (client: RestClient, selector: string) =>
  (await client.list(RESOURCES.pods, 'default', { labelSelector: selector })).items.filter((p) => !p.metadata?.deletionTimestamp);

async function statefulSets(t: Test, client: RestClient, k: Kubectl): Promise<void> {
  const added: string[] = [];
  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const rv = (await client.list(RESOURCES.pods, 'default')).metadata?.resourceVersion;
  const watching = (async () => {
    for await (const ev of client.watch(RESOURCES.pods, 'default', { resourceVersion: rv, signal: abort.signal })) {
      if (ev.type === 'ADDED') added.push(ev.object.metadata?.name ?? '');
    }
  })().catch(() => undefined);
  const manifest = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web' },
    spec: {
      replicas: 3,
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  };
  await k.ok(['create', '-f', '-'], JSON.stringify(manifest));
  const rolloutStatus = () => k.ok(['rollout', 'status', 'statefulset/web', '--timeout=60s']);
  // apps/v1 defaults partition to 0, so kubectl reports a partitioned roll out
  t.match(await rolloutStatus(), /partitioned roll out complete: 3 new pods have been updated/);
  t.same(added.slice(0, 3), ['web-0', 'web-1', 'web-2'], 'created in order');
  t.match(await k.ok(['get', 'statefulset', 'web', '--no-headers']), /^web\s+3\/3\s/);

  await k.ok(['scale', 'statefulset/web', '--replicas=4']);
  await waitFor('web-3', async () => (await livePods(client, 'app=web')).length === 4);
  t.match(await rolloutStatus(), /roll out complete: 4 new pods have been updated/);

  await k.ok(['set', 'image', 'statefulset/web', 'c=busybox:2']);
  t.match(await rolloutStatus(), /roll out complete: 4 new pods have been updated/);
  t.ok((await livePods(client, 'app=web')).every((p) => imageOf(p) === 'busybox:2'), 'every pod on the new image');
  const history = await k.ok(['rollout', 'history', 'statefulset/web']);
  t.match(history, /^1\s/m);
  t.match(history, /^2\s/m);

  await k.ok(['rollout', 'undo', 'statefulset/web']);
  t.match(await rolloutStatus(), /roll out complete: 4 new pods have been updated/);
  const back = await waitFor('undo', async () => {
    const p = await livePods(client, 'app=web');
    return p.length === 4 && p.every((x) => imageOf(x) === 'busybox') && p;
  });
  t.equal(back.length, 4, 'pods back on the first template');
  const afterUndo = await k.ok(['rollout', 'history', 'statefulset/web']);
  t.match(afterUndo, /^2\s/m);
  t.match(afterUndo, /^3\s/m);
  t.notMatch(afterUndo, /^1\s/m, 'revision 1 became 3');
  abort.abort();
  await watching;
}

async function daemonSets(t: Test, client: RestClient, k: Kubectl): Promise<void> {
  const nodes: KubeObject[] = [
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: { taints: [] } },
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' }, spec: { taints: [] } },
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3' }, spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } },
  ];
  for (const n of nodes) {
    await client.create(RESOURCES.nodes, undefined, n);
    await client.patch(RESOURCES.nodes, undefined, n.metadata!.name!, 'merge', { spec: { taints: (n.spec as { taints: unknown[] }).taints } });
  }
  const manifest = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  };
  await k.ok(['create', '-f', '-'], JSON.stringify(manifest));
  const rolloutStatus = () => k.ok(['rollout', 'status', 'daemonset/agent', '--timeout=60s']);
  t.match(await rolloutStatus(), /daemon set "agent" successfully rolled out/);
  t.equal((await livePods(client, 'app=agent')).length, 2, 'two pods: the tainted node has none');
  t.match(await k.ok(['get', 'ds', 'agent', '--no-headers']), /^agent\s+2\s+2\s+2\s+2\s+2\s/);

  await k.ok(['set', 'image', 'daemonset/agent', 'c=busybox:2']);
  t.match(await rolloutStatus(), /successfully rolled out/);
  t.ok((await livePods(client, 'app=agent')).every((p) => imageOf(p) === 'busybox:2'), 'rolled to the new image');
  const history = await k.ok(['rollout', 'history', 'daemonset/agent']);
  t.match(history, /^1\s/m);
  t.match(history, /^2\s/m);

  await k.ok(['rollout', 'undo', 'daemonset/agent']);
  t.match(await rolloutStatus(), /successfully rolled out/);
  await waitFor('undo', async () => {
    const p = await livePods(client, 'app=agent');
    return p.length === 2 && p.every((x) => imageOf(x) === 'busybox');
  });
  t.match(await k.ok(['rollout', 'history', 'daemonset/agent']), /^3\s/m);
}
