import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../src/controllers/settings';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

const micro = () => new Date().toISOString().replace('Z', '000Z');
const stamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const ready = (n: KubeObject) => ((n.status ?? {}) as { conditions?: { type: string; status: string }[] }).conditions?.find((c) => c.type === 'Ready')?.status;

t.test('without the taint manager, pods are deleted after --pod-eviction-timeout', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['nodelifecycle'], {
    nodeLifecycle: { ...DEFAULT_CONTROLLER_SETTINGS.nodeLifecycle, enableTaintManager: false, monitorPeriodMs: 300, monitorGracePeriodMs: 3000, startupGracePeriodMs: 3000, podEvictionTimeoutMs: 5000, evictionRate: 100 },
  });
  const beating = new Set(['x', 'y']);
  for (const name of beating) {
    await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name } });
    await client.patch(RESOURCES.nodes, undefined, name, 'merge', { status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: stamp(), lastTransitionTime: stamp() }] } }, { subresource: 'status' });
    await client.create(RESOURCES.leases, 'kube-node-lease', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-node-lease' }, spec: { holderIdentity: name, renewTime: micro() } });
  }
  const timer = setInterval(() => {
    for (const name of beating) void client.patch(RESOURCES.leases, 'kube-node-lease', name, 'merge', { spec: { renewTime: micro() } }).catch(() => undefined);
  }, 300);
  t.teardown(() => clearInterval(timer));
  await client.create(RESOURCES.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'on-y' }, spec: { nodeName: 'y', containers: [{ name: 'c', image: 'busybox' }] } });

  beating.delete('y');
  await waitFor('y Unknown', async () => ready(await client.get(RESOURCES.nodes, undefined, 'y')) === 'Unknown');
  const unknownAt = Date.now();
  await waitFor('the pod deleted', async () => {
    try {
      return !!(await client.get(RESOURCES.pods, 'default', 'on-y')).metadata?.deletionTimestamp;
    } catch {
      return true;
    }
  });
  // the timeout counts from the last heartbeat (3 s of grace before Unknown): 2 s more
  t.ok(Date.now() - unknownAt >= 1500, `after the eviction timeout, not at once (${Date.now() - unknownAt} ms)`);
  const events = (await client.list(RESOURCES.events, 'default')).items;
  t.ok(events.some((e) => e.reason === 'DeletingAllPods' && e.message === 'Node y event: Deleting all Pods from Node y.'), 'DeletingAllPods on the node');
  t.ok(events.some((e) => e.reason === 'NodeControllerEviction' && e.message === 'Marking for deletion Pod on-y from Node y'), 'NodeControllerEviction on the pod');
  t.ok(
    ((await client.get(RESOURCES.nodes, undefined, 'y')).spec as { taints?: { key: string; effect: string }[] }).taints?.every((x) => x.effect !== 'NoExecute') ?? true,
    'no NoExecute taints without the taint manager',
  );
  t.equal(ready(await client.get(RESOURCES.nodes, undefined, 'x')), 'True');
});
