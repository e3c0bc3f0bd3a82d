/**
 * The node agent's events go through a client of their own (kubelet's eventClient) limited by
 * --event-qps/--event-burst, not by --kube-api-qps: a pod start's events must not queue the pod
 * workers' and status manager's requests behind them, nor be queued behind those.
 */
import pino from 'pino';
import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import { connectNodeAgent } from '../../src/nodeagent/certificate/node-connection';
import { nodeAgentConfig, nodeAgentOptionGroups } from '../../src/options/nodeagent';
import { parseOptions } from '../../src/options/parse';
import { startApiServer } from '../e2e/harness';

t.test('events have their own rate limit: --event-qps 0 is unlimited while --kube-api-qps is 1', async (t) => {
  const server = await startApiServer(t);
  const args = [`--kubeconfig=${server.kubeconfig}`, '--kube-api-qps=1', '--kube-api-burst=1', '--event-qps=0', '--rotate-certificates=false', '--fail-swap-on=false'];
  const config = nodeAgentConfig(parseOptions(nodeAgentOptionGroups, args), { readProcSwaps: () => 'Filename\tType\n' });
  const api = await connectNodeAgent(config, { nodeName: 'n1', logger: pino({ level: 'silent' }), signal: new AbortController().signal });
  t.ok(api);
  t.teardown(() => api!.close());
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      api!.eventClient.create(RESOURCES.events, 'default', {
        apiVersion: 'v1', kind: 'Event', metadata: { name: `e${i}` }, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'Test', message: 'm', type: 'Normal',
      }),
    ),
  );
  const eventsMs = performance.now() - started;
  t.ok(eventsMs < 3000, `10 events without waiting for the main client's 1 per second (${Math.round(eventsMs)} ms)`);
  const mainStarted = performance.now();
  await Promise.all([0, 1, 2].map(() => api!.client.get(RESOURCES.namespaces, undefined, 'default')));
  t.ok(performance.now() - mainStarted >= 1500, 'the main client keeps --kube-api-qps: three GETs at 1 per second take two seconds or more');
});
