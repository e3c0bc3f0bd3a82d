import t, { type Test } from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject } from '../../src/client/types';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../src/controllers/settings';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

interface Taint {
  key: string;
  effect: string;
  timeAdded?: string;
}
interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

const micro = () => new Date().toISOString().replace('Z', '000Z');
const stamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const taints = (n: KubeObject) => ((n.spec ?? {}) as { taints?: Taint[] }).taints ?? [];
const conditions = (o: KubeObject) => ((o.status ?? {}) as { conditions?: Condition[] }).conditions ?? [];
const condition = (o: KubeObject, type: string) => conditions(o).find((c) => c.type === type);

/** the test plays the node agent: a Lease renewed every 300 ms while `beating`, and a Ready condition */
async function fakeAgent(t: Test, client: RestClient, name: string, labels: Record<string, string> = {}) {
  await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
  const postReady = () =>
    client.patch(RESOURCES.nodes, undefined, name, 'merge', {
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: stamp(), lastTransitionTime: stamp() }] },
    }, { subresource: 'status' });
  await postReady();
  await client.create(RESOURCES.leases, 'kube-node-lease', {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: 'kube-node-lease' },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro() },
  });
  const agent = { beating: true, postReady };
  const timer = setInterval(() => {
    if (agent.beating) void client.patch(RESOURCES.leases, 'kube-node-lease', name, 'merge', { spec: { renewTime: micro() } }).catch(() => undefined);
  }, 300);
  t.teardown(() => clearInterval(timer));
  return agent;
}

function pod(name: string, nodeName: string, tolerations: object[] = []): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, tolerations, containers: [{ name: 'c', image: 'busybox' }] } };
}

t.test('node lifecycle controller against the real server', async (t) => {
  // no default tolerations: a pod without tolerations is evicted at once, as kube's without the plugin
  const server = await startApiServer(t, { args: ['--disable-admission-plugins', 'DefaultTolerationSeconds'] });
  const { client } = startControllers(t, server, ['nodelifecycle'], {
    nodeLifecycle: { ...DEFAULT_CONTROLLER_SETTINGS.nodeLifecycle, monitorPeriodMs: 300, monitorGracePeriodMs: 3000, startupGracePeriodMs: 3000, evictionRate: 100 },
  });
  const node = (name: string) => client.get(RESOURCES.nodes, undefined, name);
  const events = async (reason: string) => (await client.list(RESOURCES.events, undefined)).items.filter((e) => e.reason === reason);

  const n1 = await fakeAgent(t, client, 'n1');
  // a healthy node keeps zone "" partly healthy when n1 goes silent (all zones down would stop evictions)
  await fakeAgent(t, client, 'n3', { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' });
  for (const p of [
    pod('intolerant', 'n1'),
    pod('tolerates-8s', 'n1', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 8 }]),
    pod('tolerates-forever', 'n1', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }]),
  ]) {
    await client.create(RESOURCES.pods, 'default', p);
    await client.patch(RESOURCES.pods, 'default', p.metadata!.name!, 'merge', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: stamp() }] } }, { subresource: 'status' });
  }

  await t.test('a heartbeating node stays Ready and loses the not-ready taint of its creation', async (t) => {
    await waitFor('the NoSchedule not-ready taint removed', async () => taints(await node('n1')).length === 0);
    const registered = await waitFor('RegisteredNode', async () => (await events('RegisteredNode')).find((e) => (e.involvedObject as { name?: string }).name === 'n1'));
    t.equal(registered.message, 'Node n1 event: Registered Node n1 in Controller');
    t.match(registered.source, { component: 'node-controller' });
    const labels = await waitFor('beta labels', async () => {
      const l = (await node('n3')).metadata?.labels;
      return l?.['beta.kubernetes.io/os'] && l;
    });
    t.match(labels, { 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64' }, 'the beta os and arch labels follow the stable ones');
  });

  await t.test('a node that never posted status goes Unknown after the startup grace', async (t) => {
    await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2', labels: { 'topology.kubernetes.io/zone': 'z2' } } });
    const n2 = await waitFor('n2 Unknown', async () => {
      const n = await node('n2');
      return condition(n, 'Ready')?.status === 'Unknown' && n;
    });
    t.match(condition(n2, 'Ready'), { reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.' });
    for (const type of ['MemoryPressure', 'DiskPressure', 'PIDPressure']) t.match(condition(n2, type), { status: 'Unknown', reason: 'NodeStatusNeverUpdated' });
    const tainted = await waitFor('n2 tainted unreachable', async () => {
      const tt = taints(await node('n2'));
      return tt.some((x) => x.key === 'node.kubernetes.io/unreachable' && x.effect === 'NoExecute') && tt;
    });
    t.ok(tainted.some((x) => x.key === 'node.kubernetes.io/unreachable' && x.effect === 'NoSchedule'), 'and the NoSchedule condition taint');
    // n1 posted Ready once, longer ago than the grace period: its Lease kept it alive
    t.equal(condition(await node('n1'), 'Ready')?.status, 'True', 'the Lease counts as a heartbeat');
  });

  await t.test('a node that stops heartbeating goes Unknown, is tainted, and its pods are evicted by their tolerations', async (t) => {
    n1.beating = false;
    const silent = Date.now();
    const unknown = await waitFor('n1 Unknown', async () => {
      const n = await node('n1');
      return condition(n, 'Ready')?.status === 'Unknown' && n;
    });
    t.ok(Date.now() - silent >= 2500, 'not before the grace period');
    t.match(condition(unknown, 'Ready'), { reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
    const noExecute = await waitFor('unreachable NoExecute taint', async () => taints(await node('n1')).find((x) => x.key === 'node.kubernetes.io/unreachable' && x.effect === 'NoExecute'));
    const taintedAt = Date.parse(noExecute.timeAdded!);
    t.ok(taints(await node('n1')).some((x) => x.key === 'node.kubernetes.io/unreachable' && x.effect === 'NoSchedule'), 'NoSchedule taint too');
    const notReady = await waitFor('NodeNotReady event', async () => (await events('NodeNotReady')).find((e) => (e.involvedObject as { name?: string }).name === 'n1'));
    t.equal(notReady.message, 'Node n1 status is now: NodeNotReady');

    const gone = async (name: string) => {
      try {
        return !!(await client.get(RESOURCES.pods, 'default', name)).metadata?.deletionTimestamp;
      } catch {
        return true;
      }
    };
    await waitFor('the intolerant pod evicted', () => gone('intolerant'));
    const eviction = await waitFor('TaintManagerEviction', async () => (await client.list(RESOURCES.events, 'default')).items.find((e) => e.reason === 'TaintManagerEviction' && e.message === 'Marking for deletion Pod default/intolerant'));
    t.match(eviction.source, { component: 'taint-controller' });
    t.notOk(await gone('tolerates-8s'), 'the tolerating pod is still there');
    const ready = condition(await client.get(RESOURCES.pods, 'default', 'tolerates-forever'), 'Ready');
    t.equal(ready?.status, 'False', 'pods of the not-ready node are marked not ready');
    await waitFor('the 8 s pod evicted', () => gone('tolerates-8s'), 20_000);
    // timeAdded has whole seconds: the eviction came at least 7 s after it
    t.ok(Date.now() - taintedAt >= 7000, `survived its toleration (${Date.now() - taintedAt} ms)`);
    t.notOk(await gone('tolerates-forever'), 'a pod tolerating forever stays');
  });

  await t.test('the node heartbeating again loses the taints', async (t) => {
    n1.beating = true;
    await n1.postReady();
    await waitFor('taints removed', async () => taints(await node('n1')).length === 0);
    t.equal(condition(await node('n1'), 'Ready')?.status, 'True');
    t.notOk(taints(await node('n3')).length, 'the healthy node was never tainted');
  });

  await t.test('a deleted node is forgotten with RemovingNode', async (t) => {
    await client.delete(RESOURCES.nodes, undefined, 'n2');
    const removing = await waitFor('RemovingNode', async () => (await events('RemovingNode')).find((e) => (e.involvedObject as { name?: string }).name === 'n2'));
    t.equal(removing.message, 'Node n2 event: Removing Node n2 from Controller');
  });
});
