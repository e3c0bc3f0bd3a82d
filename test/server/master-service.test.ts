import t from 'tap';
import type { Test } from 'tap';
import pino from 'pino';
import { makeFixture } from '../helpers/registry-fixture';
import { MasterServiceController, defaultAdvertiseAddress } from '../../src/server/master-service';
import type { MasterServiceOptions } from '../../src/server/master-service';
import type { KubeObject } from '../../src/api/kind';

const logger = pino({ level: 'silent' });

async function setup(t: Test) {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  let now = 1_000_000;
  const controller = (o: Partial<MasterServiceOptions>) =>
    new MasterServiceController({
      registry: f.registry,
      scheme: f.scheme,
      store: f.store,
      logger,
      namespace: 'default',
      serviceIP: '10.96.0.1',
      securePort: 6443,
      advertiseAddress: '10.0.0.1',
      nodePort: 0,
      reconciler: 'lease',
      apiServerCount: 1,
      clock: () => now,
      ...o,
    });
  const get = async (resource: string, name = 'kubernetes', group = '', namespace = 'default'): Promise<KubeObject | undefined> => {
    const kind = f.scheme.byResource(group, 'v1', resource)!;
    try {
      return await f.registry.get({ kind, namespace, name }, {});
    } catch {
      return undefined;
    }
  };
  const addresses = async () => {
    const ep = await get('endpoints');
    return ((ep?.subsets ?? []) as { addresses: { ip: string }[] }[]).flatMap((s) => s.addresses.map((a) => a.ip));
  };
  return { f, controller, get, addresses, advance: (ms: number) => (now += ms) };
}

t.test('the kubernetes service, Endpoints and EndpointSlice', async (t) => {
  const { controller, get, addresses } = await setup(t);
  await controller({ nodePort: 30443 }).reconcile();
  const svc = (await get('services'))!;
  t.same(svc.metadata?.labels, { provider: 'kubernetes', component: 'apiserver' });
  t.match(svc.spec, { type: 'NodePort', clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, targetPort: 6443, nodePort: 30443, protocol: 'TCP' }] });
  t.same(await addresses(), ['10.0.0.1']);
  const slice = (await get('endpointslices', 'kubernetes', 'discovery.k8s.io'))!;
  t.equal(slice.addressType, 'IPv4');
  t.equal(slice.metadata?.labels?.['kubernetes.io/service-name'], 'kubernetes');
  t.match(slice.endpoints, [{ addresses: ['10.0.0.1'], conditions: { ready: true } }]);
  t.match(slice.ports, [{ name: 'https', port: 6443, protocol: 'TCP' }]);
});

t.test('changed ports are put back', async (t) => {
  const { f, controller, get } = await setup(t);
  const c = controller({});
  await c.reconcile();
  const svc = (await get('services'))!;
  (svc.spec as { ports: { port: number }[] }).ports[0].port = 8443;
  await f.registry.update({ kind: f.kind('services'), namespace: 'default', name: 'kubernetes' }, svc, { dryRun: false });
  await c.reconcile();
  t.match((await get('services'))!.spec, { type: 'ClusterIP', ports: [{ port: 443 }] });
});

t.test('lease: the endpoints are the live servers; a stopped server is removed, the last one kept', async (t) => {
  const { controller, addresses, advance } = await setup(t);
  const a = controller({ advertiseAddress: '10.0.0.2' });
  const b = controller({ advertiseAddress: '10.0.0.1' });
  await a.reconcile();
  await b.reconcile();
  t.same(await addresses(), ['10.0.0.1', '10.0.0.2']);
  await a.stop();
  t.same(await addresses(), ['10.0.0.1'], 'removed on shutdown');
  await a.reconcile();
  advance(20_000);
  await b.reconcile();
  t.same(await addresses(), ['10.0.0.1'], 'an expired lease is dropped');
  await b.stop();
  t.same(await addresses(), ['10.0.0.1'], 'kube refuses to erase every endpoint');
});

t.test('master-count keeps this server among --apiserver-count addresses', async (t) => {
  const { controller, addresses } = await setup(t);
  await controller({ reconciler: 'master-count', apiServerCount: 2, advertiseAddress: '10.0.0.5' }).reconcile();
  await controller({ reconciler: 'master-count', apiServerCount: 2, advertiseAddress: '10.0.0.3' }).reconcile();
  t.same(await addresses(), ['10.0.0.3', '10.0.0.5']);
  await controller({ reconciler: 'master-count', apiServerCount: 1, advertiseAddress: '10.0.0.9' }).reconcile();
  t.same(await addresses(), ['10.0.0.9']);
});

t.test('none writes the service only; another namespace is created', async (t) => {
  const { controller, get } = await setup(t);
  await controller({ reconciler: 'none', namespace: 'masters' }).reconcile();
  t.ok(await get('namespaces', 'masters', '', undefined as unknown as string));
  t.ok(await get('services', 'kubernetes', '', 'masters'));
  t.equal(await get('endpoints', 'kubernetes', '', 'masters'), undefined);
  t.equal(await get('endpointslices', 'kubernetes', 'discovery.k8s.io', 'masters'), undefined);
});

t.test('IPv6 advertise addresses make an IPv6 slice', async (t) => {
  const { controller, get } = await setup(t);
  await controller({ advertiseAddress: 'fd00::1' }).reconcile();
  t.equal((await get('endpointslices', 'kubernetes', 'discovery.k8s.io'))!.addressType, 'IPv6');
});

t.test('the default advertise address', async (t) => {
  t.equal(defaultAdvertiseAddress('127.0.0.1'), '127.0.0.1');
  t.equal(defaultAdvertiseAddress('192.168.1.4'), '192.168.1.4');
  const iface = (address: string, internal = false) => ({ address, internal, family: 'IPv4' as const, netmask: '255.0.0.0', mac: '', cidr: null });
  const interfaces = { lo: [iface('127.0.0.1', true)], eth0: [iface('10.1.1.1')], eth1: [iface('172.16.0.9')] };
  const routes = () => 'Iface\tDestination\tGateway\neth0\t000200C0\t00000000\neth1\t00000000\t010200C0\n';
  t.equal(defaultAdvertiseAddress('0.0.0.0', { interfaces, routes }), '172.16.0.9', 'the default route\'s interface');
  t.equal(defaultAdvertiseAddress('::', { interfaces, routes: () => '' }), '10.1.1.1', 'else the first non-internal one');
  t.throws(() => defaultAdvertiseAddress('0.0.0.0', { interfaces: { lo: [iface('127.0.0.1', true)] }, routes: () => '' }), /Unable to find suitable network address/);
});
