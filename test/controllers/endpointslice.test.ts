import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { createRunningPod, setPodState } from './endpoint-pods';

interface Endpoint {
  addresses: string[];
  conditions?: { ready?: boolean };
  nodeName?: string;
  zone?: string;
  hostname?: string;
  deprecatedTopology?: Record<string, string>;
  targetRef?: { kind?: string; name?: string; uid?: string };
}

const endpointsOf = (s: KubeObject) => (s.endpoints ?? []) as Endpoint[];
const addressesOf = (slices: KubeObject[]) => slices.flatMap((s) => endpointsOf(s).flatMap((e) => e.addresses)).sort();

t.test('endpointslice and endpointslicemirroring controllers against the real server', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['endpointslice', 'endpointslicemirroring', 'garbagecollector'], {
    maxEndpointsPerSlice: 3,
    mirroringMaxEndpointsPerSubset: 3,
  });
  const ns = 'default';
  const slicesFor = async (service: string, manager = 'endpointslice-controller.k8s.io') =>
    (await client.list(RESOURCES.endpointSlices, ns, { labelSelector: `kubernetes.io/service-name=${service},endpointslice.kubernetes.io/managed-by=${manager}` })).items;
  const slicesWhen = (service: string, pred: (s: KubeObject[]) => boolean, manager?: string) =>
    waitFor(`slices of ${service}`, async () => {
      const s = await slicesFor(service, manager);
      return pred(s) && s;
    });

  await t.test('one slice for a service selecting pods: labels, owner, topology, ports', async (t) => {
    await client.create(RESOURCES.nodes, undefined, {
      apiVersion: 'v1', kind: 'Node',
      metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1', 'topology.kubernetes.io/zone': 'zone-a', 'topology.kubernetes.io/region': 'region-1' } },
    });
    const svc = await client.create(RESOURCES.services, ns, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { team: 'blue' } },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    });
    const pod = await createRunningPod(client, ns, 'web-a', '10.1.0.1', { labels: { app: 'web' }, nodeName: 'node-1', ports: [{ name: 'http', containerPort: 8080 }] });
    const [slice] = await slicesWhen('web', (s) => s.length === 1 && endpointsOf(s[0]!).length === 1);
    t.match(slice!.metadata?.name, /^web-[a-z0-9]{5}$/, 'generateName <service>-');
    t.match(slice!.metadata?.labels, { team: 'blue', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
    t.match(slice!.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
    t.equal(slice!.addressType, 'IPv4');
    t.match(slice!.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const [ep] = endpointsOf(slice!);
    t.match(ep, {
      addresses: ['10.1.0.1'], conditions: { ready: true }, nodeName: 'node-1', zone: 'zone-a',
      targetRef: { kind: 'Pod', name: 'web-a', uid: pod.metadata?.uid },
    });
    t.notOk(ep!.deprecatedTopology, 'v1 has nodeName and zone, no topology map');
    t.match(slice!.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'], /^\d{4}-/);
  });

  await t.test('slices follow readiness and deletion; an empty service keeps a placeholder', async (t) => {
    await setPodState(client, ns, 'web-a', '10.1.0.1', false);
    await slicesWhen('web', (s) => s.length === 1 && endpointsOf(s[0]!)[0]?.conditions?.ready === false);
    await createRunningPod(client, ns, 'web-b', '10.1.0.2', { labels: { app: 'web' }, ports: [{ name: 'http', containerPort: 8080 }] });
    await slicesWhen('web', (s) => addressesOf(s).join() === '10.1.0.1,10.1.0.2');
    const [before] = await slicesFor('web');
    await client.delete(RESOURCES.pods, ns, 'web-a');
    await client.delete(RESOURCES.pods, ns, 'web-b');
    const [placeholder] = await slicesWhen('web', (s) => s.length === 1 && endpointsOf(s[0]!).length === 0);
    t.equal(placeholder!.metadata?.name, before!.metadata?.name, 'the same slice, emptied');
    t.same(placeholder!.ports ?? [], [], 'a placeholder has no ports');
  });

  await t.test('many pods: at most maxEndpointsPerSlice per slice, new endpoints fill existing slices first', async (t) => {
    await client.create(RESOURCES.services, ns, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'many' }, spec: { selector: { app: 'many' }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    for (let i = 1; i <= 7; i++) await createRunningPod(client, ns, `many-${i}`, `10.4.0.${i}`, { labels: { app: 'many' } });
    const slices = await slicesWhen('many', (s) => addressesOf(s).length === 7);
    t.ok(slices.every((s) => endpointsOf(s).length <= 3), 'no slice above the limit');
    t.equal(slices.length, 3, '7 endpoints in 3 slices');
    const names = slices.map((s) => s.metadata?.name).sort();
    await createRunningPod(client, ns, 'many-8', '10.4.0.8', { labels: { app: 'many' } });
    const after = await slicesWhen('many', (s) => addressesOf(s).length === 8);
    t.same(after.map((s) => s.metadata?.name).sort(), names, 'the 8th endpoint went into an existing slice');
    t.ok(after.every((s) => endpointsOf(s).length <= 3));
  });

  await t.test('a deleted service loses its slices (owner reference, garbage collector)', async (t) => {
    await client.delete(RESOURCES.services, ns, 'many');
    await slicesWhen('many', (s) => s.length === 0);
    t.pass('collected');
  });

  await t.test('mirroring: a selectorless service\'s own Endpoints become slices', async (t) => {
    await client.create(RESOURCES.services, ns, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { ports: [{ name: 'https', port: 443 }] } });
    const ep = await client.create(RESOURCES.endpoints, ns, {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ext', labels: { origin: 'hand' } },
      subsets: [{ addresses: [{ ip: '192.0.2.1', nodeName: 'node-1' }], notReadyAddresses: [{ ip: '192.0.2.2' }], ports: [{ name: 'https', port: 443, protocol: 'TCP' }] }],
    });
    const mirror = 'endpointslicemirroring-controller.k8s.io';
    const [slice] = await slicesWhen('ext', (s) => s.length === 1 && endpointsOf(s[0]!).length === 2, mirror);
    t.match(slice!.metadata?.labels, { origin: 'hand', 'kubernetes.io/service-name': 'ext', 'endpointslice.kubernetes.io/managed-by': mirror });
    t.match(slice!.metadata?.ownerReferences, [{ kind: 'Endpoints', name: 'ext', uid: ep.metadata?.uid, controller: true }]);
    t.match(slice!.ports, [{ name: 'https', port: 443, protocol: 'TCP' }]);
    const byIP = new Map(endpointsOf(slice!).map((e) => [e.addresses[0], e]));
    t.match(byIP.get('192.0.2.1'), { conditions: { ready: true }, nodeName: 'node-1' });
    t.match(byIP.get('192.0.2.2'), { conditions: { ready: false } });
    t.equal((await slicesFor('ext')).length, 0, 'the endpointslice controller leaves selectorless services alone');

    // more addresses than --mirroring-max-endpoints-per-subset: the rest are skipped, with an event
    await client.patch(RESOURCES.endpoints, ns, 'ext', 'merge', {
      subsets: [{ addresses: ['192.0.2.1', '192.0.2.3', '192.0.2.4', '192.0.2.5'].map((ip) => ({ ip })), ports: [{ name: 'https', port: 443, protocol: 'TCP' }] }],
    });
    const [capped] = await slicesWhen('ext', (s) => s.length === 1 && addressesOf(s).join() === '192.0.2.1,192.0.2.3,192.0.2.4', mirror);
    t.equal(capped!.metadata?.name, slice!.metadata?.name, 'the same slice, updated');
    const event = await waitFor('TooManyAddressesToMirror', async () =>
      (await client.list(RESOURCES.events, ns)).items.find((e) => e.reason === 'TooManyAddressesToMirror'));
    t.match(event.message, /A max of 3 addresses can be mirrored to EndpointSlices per Endpoints subset. 1 addresses were skipped/);

    // the kubernetes service's Endpoints (skip-mirror) are not mirrored: only the server's own slice
    const kube = (await client.list(RESOURCES.endpointSlices, ns, { labelSelector: 'kubernetes.io/service-name=kubernetes' })).items;
    t.same(kube.map((s) => s.metadata?.name), ['kubernetes'], 'the API server\'s own slice alone');
    t.notOk(kube[0]!.metadata?.labels?.['endpointslice.kubernetes.io/managed-by'], 'not managed by a controller');

    await client.delete(RESOURCES.endpoints, ns, 'ext');
    await slicesWhen('ext', (s) => s.length === 0, mirror);
    t.pass('mirrored slices go with the Endpoints');
  });
});
