import t from 'tap';
import { clusterResolver, endpointResolver } from '../../src/aggregator/service-resolver';
import type { KubeObject } from '../../src/api/kind';

const svc = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'api', namespace: 'wardle' }, spec });
const lookup = (s: KubeObject | undefined, e?: KubeObject) => ({ service: () => s, endpoints: () => e });
const eps: KubeObject = {
  metadata: { name: 'api', namespace: 'wardle' },
  subsets: [
    { addresses: [], ports: [{ name: 'https', port: 1 }] },
    { addresses: [{ ip: '10.0.0.7' }], ports: [{ name: 'metrics', port: 9090 }, { name: 'https', port: 8443 }] },
  ],
};
const clusterIP = svc({ type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ name: 'https', port: 443, targetPort: 8443 }] });

t.test('endpoint routing: an address of the subset carrying the service port\'s name, at the endpoint port', async (t) => {
  t.same(endpointResolver(lookup(clusterIP, eps), () => 0).resolve('wardle', 'api', 443), { host: '10.0.0.7', port: 8443 });
  t.throws(() => endpointResolver(lookup(undefined)).resolve('wardle', 'api', 443), /service "api" not found/);
  t.throws(() => endpointResolver(lookup(clusterIP)).resolve('wardle', 'api', 443), /endpoints "api" not found/);
  t.throws(() => endpointResolver(lookup(clusterIP, eps)).resolve('wardle', 'api', 444), /no service port 444 found for service "api"/);
  t.throws(() => endpointResolver(lookup(clusterIP, { metadata: {}, subsets: [] })).resolve('wardle', 'api', 443), /no endpoints available for service "api"/);
  t.throws(() => endpointResolver(lookup(svc({ type: 'ExternalName', externalName: 'x' }), eps)).resolve('wardle', 'api', 443), /unsupported service type "ExternalName"/);
});

t.test('cluster routing: the cluster IP at the service port, or an ExternalName at the registration port', async (t) => {
  t.same(clusterResolver(lookup(clusterIP)).resolve('wardle', 'api', 443), { host: '10.96.0.10', port: 443 });
  t.same(clusterResolver(lookup(svc({ type: 'ExternalName', externalName: 'wardle.example.net' }))).resolve('wardle', 'api', 8443), { host: 'wardle.example.net', port: 8443 });
  t.throws(() => clusterResolver(lookup(svc({ clusterIP: 'None', ports: [] }))).resolve('wardle', 'api', 443), /cannot route to service with ClusterIP "None"/);
});
