import t from 'tap';
import { isNotFound } from '../../src/client/errors';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { createRunningPod, setPodState } from './endpoint-pods';

interface Address { ip: string; hostname?: string; nodeName?: string; targetRef?: { kind?: string; name?: string; uid?: string } }
interface Subset { addresses?: Address[]; notReadyAddresses?: Address[]; ports?: { name?: string; port: number; protocol?: string }[] }

const ips = (as: Address[] | undefined) => (as ?? []).map((a) => a.ip);

t.test('endpoint controller against the real server', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['endpoint']);
  const ns = 'default';
  const endpointsOf = async (name: string): Promise<KubeObject | undefined> => {
    try {
      return await client.get(RESOURCES.endpoints, ns, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  const subsetsWhen = (name: string, pred: (s: Subset[]) => boolean) =>
    waitFor(`endpoints ${name}`, async () => {
      const ep = await endpointsOf(name);
      const s = (ep?.subsets ?? []) as Subset[];
      return ep && pred(s) && ep;
    });

  await t.test('ready pods, named target ports, port sets repacked', async (t) => {
    await client.create(RESOURCES.services, ns, {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: 'web', labels: { team: 'blue' } },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }, { name: 'metrics', port: 9090, targetPort: 9090 }] },
    });
    const a = await createRunningPod(client, ns, 'web-a', '10.1.0.1', { labels: { app: 'web' }, nodeName: 'node-1', ports: [{ name: 'http', containerPort: 8080 }] });
    await createRunningPod(client, ns, 'web-b', '10.1.0.2', { labels: { app: 'web' }, nodeName: 'node-1' });
    const ep = await subsetsWhen('web', (s) => s.length === 2);
    const subsets = ep.subsets as Subset[];
    // kube's repacking: each subset is the set of addresses offering the same ports
    const httpOnly = subsets.find((s) => s.ports?.some((p) => p.name === 'http'))!;
    const metrics = subsets.find((s) => s.ports?.some((p) => p.name === 'metrics'))!;
    t.same(httpOnly.ports?.map((p) => [p.name, p.port, p.protocol]), [['http', 8080, 'TCP']], 'the named port resolved');
    t.same(ips(httpOnly.addresses), ['10.1.0.1'], 'only the pod with the named port offers http');
    t.same(metrics.ports?.map((p) => [p.name, p.port, p.protocol]), [['metrics', 9090, 'TCP']]);
    t.same(ips(metrics.addresses), ['10.1.0.1', '10.1.0.2'], 'both offer metrics, sorted by IP');
    t.match(httpOnly.addresses![0], { nodeName: 'node-1', targetRef: { kind: 'Pod', name: 'web-a', uid: a.metadata?.uid } });
    t.equal(ep.metadata?.labels?.team, 'blue', 'service labels copied');
    t.notOk(ep.metadata?.labels?.['service.kubernetes.io/headless'], 'not headless');
    t.match(ep.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'], /^\d{4}-\d\d-\d\dT/);
  });

  await t.test('unready pods move to notReadyAddresses; terminating and deleted pods leave', async (t) => {
    await setPodState(client, ns, 'web-a', '10.1.0.1', false);
    await subsetsWhen('web', (s) => s.some((x) => ips(x.notReadyAddresses).includes('10.1.0.1')));
    await setPodState(client, ns, 'web-a', '10.1.0.1', true);
    await subsetsWhen('web', (s) => s.some((x) => ips(x.addresses).includes('10.1.0.1')));
    // terminating (held by a finalizer): out at once
    await client.patch(RESOURCES.pods, ns, 'web-a', 'merge', { metadata: { finalizers: ['test.ballast.dev/hold'] } });
    await client.delete(RESOURCES.pods, ns, 'web-a');
    await subsetsWhen('web', (s) => s.length === 1 && !s.flatMap((x) => [...ips(x.addresses), ...ips(x.notReadyAddresses)]).includes('10.1.0.1'));
    await client.patch(RESOURCES.pods, ns, 'web-a', 'merge', { metadata: { finalizers: null } });
    await client.delete(RESOURCES.pods, ns, 'web-b');
    const ep = await subsetsWhen('web', (s) => s.length === 0);
    t.same(ep.subsets ?? [], [], 'no pods, no subsets');
  });

  await t.test('publishNotReadyAddresses lists unready pods as ready', async (t) => {
    await client.create(RESOURCES.services, ns, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'eager' },
      spec: { selector: { app: 'eager' }, publishNotReadyAddresses: true, ports: [{ port: 80 }] },
    });
    await createRunningPod(client, ns, 'eager-a', '10.2.0.1', { labels: { app: 'eager' }, ready: false });
    const ep = await subsetsWhen('eager', (s) => s.length === 1);
    t.same(ips((ep.subsets as Subset[])[0]!.addresses), ['10.2.0.1']);
  });

  await t.test('headless service: hostnames and the headless label', async (t) => {
    await client.create(RESOURCES.services, ns, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'db' },
      spec: { selector: { app: 'db' }, clusterIP: 'None' },
    });
    await createRunningPod(client, ns, 'db-0', '10.3.0.1', { labels: { app: 'db' }, hostname: 'db-0', subdomain: 'db' });
    await createRunningPod(client, ns, 'db-1', '10.3.0.2', { labels: { app: 'db' }, hostname: 'db-1', subdomain: 'other' });
    const ep = await subsetsWhen('db', (s) => s.length === 1 && (s[0]!.addresses ?? []).length === 2);
    const [s] = ep.subsets as Subset[];
    t.same(s!.addresses!.map((a) => [a.ip, a.hostname]), [['10.3.0.1', 'db-0'], ['10.3.0.2', undefined]], 'hostname only for its own subdomain, sorted by IP');
    t.notOk(s!.ports?.length, 'a headless service without ports has addresses without ports');
    t.equal(ep.metadata?.labels?.['service.kubernetes.io/headless'], '', 'headless label');
  });

  await t.test('services without a selector keep their own Endpoints; deleted services lose theirs', async (t) => {
    await client.create(RESOURCES.services, ns, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'external' }, spec: { ports: [{ port: 443 }] } });
    const mine = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'external' }, subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 443 }] }] };
    const created = await client.create(RESOURCES.endpoints, ns, mine);
    // a later service's endpoints prove the controller has seen the selectorless one
    await client.create(RESOURCES.services, ns, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'later' }, spec: { selector: { app: 'later' }, ports: [{ port: 80 }] } });
    await waitFor('later endpoints', () => endpointsOf('later'));
    const after = await endpointsOf('external');
    t.equal(after?.metadata?.resourceVersion, created.metadata?.resourceVersion, 'untouched');
    await client.delete(RESOURCES.services, ns, 'later');
    await waitFor('endpoints deleted with their service', async () => (await endpointsOf('later')) === undefined);
    t.pass('deleted');
  });

  await t.test('a restarted controller deletes Endpoints left without a Service, but not leader-election locks', async (t) => {
    const orphan = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'orphan' }, subsets: [] };
    const lock = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'lock', annotations: { 'control-plane.alpha.kubernetes.io/leader': '{}' } } };
    await client.create(RESOURCES.endpoints, ns, orphan);
    await client.create(RESOURCES.endpoints, ns, lock);
    startControllers(t, server, ['endpoint']);
    await waitFor('the orphan deleted', async () => (await endpointsOf('orphan')) === undefined);
    t.ok(await endpointsOf('lock'), 'the lock stays');
    t.ok(await endpointsOf('external'), 'user Endpoints of an existing service stay');
  });

  await t.test('the kubernetes service endpoints are left as the server writes them', async (t) => {
    const ep = await client.get(RESOURCES.endpoints, ns, 'kubernetes');
    t.equal(ep.metadata?.labels?.['endpointslice.kubernetes.io/skip-mirror'], 'true');
    t.ok(((ep.subsets ?? []) as Subset[])[0]?.addresses?.length, 'the server address');
  });
});
