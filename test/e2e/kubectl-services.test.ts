/**
 * kubectl 1.32 exposes a deployment and reads its endpoints, with the workload and endpoint
 * controllers running and the test playing the node: each new pod gets an IP and turns Ready.
 */
import t, { type Test } from 'tap';
import { SharedInformer } from '../../src/client/informer';
import { RESOURCES } from '../../src/client/resources';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject } from '../../src/client/types';
import { startControllers } from '../helpers/controllers';
import { kubectlFor, missingKubectl, startApiServer, waitFor } from './harness';

/** give every new pod an IP of 10.244.0.0/24 and mark it Running and Ready */
function startIpNode(t: Test, client: RestClient): void {
  const abort = new AbortController();
  const informer = new SharedInformer(client, RESOURCES.pods);
  let next = 1;
  const done = new Set<string>();
  const assign = async (pod: KubeObject) => {
    const uid = pod.metadata?.uid ?? '';
    if (abort.signal.aborted || pod.metadata?.deletionTimestamp || done.has(uid)) return;
    done.add(uid);
    const ip = `10.244.0.${next++}`;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await client.patch(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', 'merge', {
      status: {
        phase: 'Running', podIP: ip, podIPs: [{ ip }], startTime: now,
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }, { type: 'ContainersReady', status: 'True', lastTransitionTime: now }],
      },
    }, { subresource: 'status' }).catch(() => done.delete(uid));
  };
  informer.addEventHandler({ add: (p) => void assign(p), update: (_o, p) => void assign(p) });
  const run = informer.run(abort.signal);
  t.teardown(async () => {
    abort.abort();
    await run.catch(() => undefined);
  });
}

t.test('kubectl 1.32 exposes a deployment and sees its endpoints', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['replicaset', 'deployment', 'endpoint', 'endpointslice', 'endpointslicemirroring']);
  startIpNode(t, client);
  const k = kubectlFor(t, '1.32', server);

  await k.ok(['create', 'deployment', 'web', '--image=nginx', '--port=80', '--replicas=2']);
  t.match(await k.ok(['expose', 'deployment', 'web', '--port=8080', '--target-port=80']), /service\/web exposed/);
  const podIPs = await waitFor('two pods with IPs', async () => {
    const pods = (await client.list(RESOURCES.pods, 'default', { labelSelector: 'app=web' })).items;
    const ips = pods.map((p) => (p.status as { podIP?: string } | undefined)?.podIP).filter((ip): ip is string => !!ip);
    return ips.length === 2 && ips.sort();
  });

  const endpoints = await waitFor('kubectl get endpoints lists both pods', async () => {
    const out = await k.ok(['get', 'endpoints', 'web']);
    return podIPs.every((ip) => out.includes(`${ip}:80`)) && out;
  });
  t.match(endpoints, /^NAME\s+ENDPOINTS\s+AGE/m);

  const describe = await waitFor('kubectl describe service shows the endpoints', async () => {
    const out = await k.ok(['describe', 'service', 'web']);
    return podIPs.every((ip) => out.includes(`${ip}:80`)) && out;
  });
  t.match(describe, /^Endpoints:\s+10\.244\.0\.\d+:80,10\.244\.0\.\d+:80/m);
  t.match(describe, /^TargetPort:\s+80\/TCP/m);

  const slices = await waitFor('kubectl get endpointslices shows them', async () => {
    const out = await k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
    return podIPs.every((ip) => out.includes(ip)) && out;
  });
  t.match(slices, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE/m);
  t.match(slices, /^web-[a-z0-9]{5}\s+IPv4\s+80\s+/m);

  // scaling down drops the pod from both
  await k.ok(['scale', 'deployment', 'web', '--replicas=1']);
  await waitFor('one endpoint left', async () => {
    const ep = await k.json<{ subsets?: { addresses?: unknown[] }[] }>(['get', 'endpoints', 'web']);
    const slice = await k.json<{ items: { endpoints?: unknown[] }[] }>(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
    return (ep.subsets ?? []).flatMap((s) => s.addresses ?? []).length === 1 && slice.items.flatMap((s) => s.endpoints ?? []).length === 1;
  });
  t.pass('scaled down');
});
