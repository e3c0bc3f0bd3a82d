/**
 * The eviction manager's hooks into the pod lifecycle, against the real API server with a fake
 * runtime: an evicted pod is killed with the given grace period and shows phase Failed, reason
 * Evicted and the message; an admit handler's refusal (the eviction admit handler under memory
 * pressure) fails a new pod with kube's reason and "Pod <message>".
 */
import pino from 'pino';
import t from 'tap';
import { EventRecorder } from '../../src/client/events';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RESOURCES } from '../../src/client/resources';
import { RestClient } from '../../src/client/rest-client';
import type { ApiPodStatus } from '../../src/nodeagent/pods/api-status';
import { PodLifecycle } from '../../src/nodeagent/pods/pod-lifecycle';
import type { Pod } from '../../src/nodeagent/types';
import { startApiServer, waitFor } from '../e2e/harness';
import { FakeRuntime } from './pods-fake-runtime';

type Status = ApiPodStatus & { reason?: string; message?: string };

t.test('eviction through the pod lifecycle', async (t) => {
  const server = await startApiServer(t);
  const node = 'node-evict';
  const client = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'eviction-test' }), { qps: -1 });
  t.teardown(() => client.close());
  await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: node } });
  const runtime = new FakeRuntime();
  runtime.plan = () => ({});
  const logger = pino({ level: 'silent' });
  let refuse = false;
  const lifecycle = new PodLifecycle({
    client,
    nodeName: node,
    runtime,
    volumes: { mountPod: async () => undefined, unmountPod: async () => undefined },
    probes: { addPod: () => {}, removePod: () => {}, updatePodStatus: () => {}, onUpdate: () => {} },
    recorder: new EventRecorder(client, { component: 'kubelet', host: node }, logger),
    config: { syncFrequencyMs: 60_000, fileCheckFrequencyMs: 200, httpCheckFrequencyMs: 200, maxPods: 110, nodeIP: '192.0.2.10', relistPeriodMs: 100, housekeepingPeriodMs: 200, statusSyncPeriodMs: 300, backOffPeriodMs: 300 },
    logger,
    admitHandlers: [{ admit: () => (refuse ? { admit: false, reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' } : { admit: true }) }],
  });
  lifecycle.start();
  t.teardown(() => lifecycle.stop());
  const manifest = (name: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] } });
  const status = async (name: string) => ((await client.get<Pod>(RESOURCES.pods, 'default', name)).status ?? {}) as Status;

  t.test('evictPod kills with the grace period and leaves phase Failed, reason Evicted', async (t) => {
    await client.create(RESOURCES.pods, 'default', manifest('victim'));
    await waitFor('Running', async () => ((await status('victim')).phase === 'Running' ? true : undefined));
    const pod = lifecycle.activePods().find((p) => p.metadata?.name === 'victim')!;
    const message = 'The node was low on resource: memory. Container c was using 1234Ki, which exceeds its request of 0. ';
    await lifecycle.evictPod(pod, { reason: 'Evicted', message }, 0);
    const kill = runtime.calls.find((c) => c.op === 'killPod' && c.uid === pod.metadata?.uid);
    t.equal(kill?.grace, 0, 'killed with the override');
    const s = await waitFor('Evicted status', async () => {
      const s = await status('victim');
      return s.phase === 'Failed' && s.reason === 'Evicted' && s.containerStatuses?.[0]?.state?.terminated ? s : undefined;
    });
    t.equal(s.message, message);
    t.notOk(lifecycle.activePods().some((p) => p.metadata?.name === 'victim'), 'no longer active');
    // later syncs keep the reason
    await new Promise((r) => setTimeout(r, 800));
    t.equal((await status('victim')).reason, 'Evicted');
  });

  t.test('an admit handler refusal fails the pod before it runs', async (t) => {
    refuse = true;
    await client.create(RESOURCES.pods, 'default', manifest('refused'));
    const s = await waitFor('Failed', async () => {
      const s = await status('refused');
      return s.phase === 'Failed' ? s : undefined;
    });
    t.equal(s.reason, 'Evicted');
    t.equal(s.message, 'Pod The node had condition: [MemoryPressure]. ');
    const uid = (await client.get<Pod>(RESOURCES.pods, 'default', 'refused')).metadata?.uid;
    t.notOk(runtime.calls.some((c) => c.uid === uid && c.op === 'syncPod'), 'never synced');
  });
});
