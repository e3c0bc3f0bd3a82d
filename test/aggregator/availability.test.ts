import t from 'tap';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { APIService } from '../../src/aggregator/apiservice';
import { checkAvailability } from '../../src/aggregator/availability';
import type { AvailabilityDeps } from '../../src/aggregator/availability';
import { discoveryProbe } from '../../src/aggregator/backend-probe';
import { endpointResolver } from '../../src/aggregator/service-resolver';
import type { KubeObject } from '../../src/api/kind';
import { startExtensionServer } from '../helpers/extension-server';

const remote = (port?: number): APIService => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1alpha1.wardle.example.com' },
  spec: { group: 'wardle.example.com', version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'wardle', name: 'api', ...(port ? { port } : {}) } },
});

const service = (ports: Array<{ name?: string; port: number }>, type = 'ClusterIP'): KubeObject => ({
  metadata: { name: 'api', namespace: 'wardle' },
  spec: { type, clusterIP: '10.96.0.10', ports },
});

const endpoints = (subsets: unknown[]): KubeObject => ({ metadata: { name: 'api', namespace: 'wardle' }, subsets });

function deps(o: { svc?: KubeObject; eps?: KubeObject; probe?: string; throws?: 'service' | 'endpoints' }): AvailabilityDeps {
  return {
    service: () => {
      if (o.throws === 'service') throw new Error('informer not synced');
      return o.svc;
    },
    endpoints: () => {
      if (o.throws === 'endpoints') throw new Error('informer not synced');
      return o.eps;
    },
    probe: async () => o.probe,
    clock: () => new Date('2024-05-01T10:00:00Z'),
  };
}

const ready = endpoints([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 8443 }] }]);
const svc = service([{ name: 'https', port: 443 }]);

t.test("kube's reasons and messages, in kube's order", async (t) => {
  const cases: Array<[string, AvailabilityDeps, APIService, string, string, string]> = [
    ['no service', deps({}), remote(), 'False', 'ServiceNotFound', 'service/api in "wardle" is not present'],
    ['service lookup fails', deps({ throws: 'service' }), remote(), 'Unknown', 'ServiceAccessError', 'service/api in "wardle" cannot be checked due to: informer not synced'],
    ['wrong port', deps({ svc }), remote(8443), 'False', 'ServicePortError', 'service/api in "wardle" is not listening on port 8443'],
    ['no endpoints', deps({ svc }), remote(), 'False', 'EndpointsNotFound', 'cannot find endpoints for service/api in "wardle"'],
    ['endpoints lookup fails', deps({ svc, throws: 'endpoints' }), remote(), 'Unknown', 'EndpointsAccessError', 'service/api in "wardle" cannot be checked due to: informer not synced'],
    ['no address', deps({ svc, eps: endpoints([{ notReadyAddresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 8443 }] }]) }), remote(), 'False', 'MissingEndpoints', 'endpoints for service/api in "wardle" have no addresses with port name "https"'],
    ['other port name', deps({ svc, eps: endpoints([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'http', port: 8080 }] }]) }), remote(), 'False', 'MissingEndpoints', 'endpoints for service/api in "wardle" have no addresses with port name "https"'],
    ['probe fails', deps({ svc, eps: ready, probe: 'failing or missing response from x' }), remote(), 'False', 'FailedDiscoveryCheck', 'failing or missing response from x'],
    ['passes', deps({ svc, eps: ready }), remote(), 'True', 'Passed', 'all checks passed'],
    ['ExternalName skips port and endpoints', deps({ svc: service([], 'ExternalName') }), remote(), 'True', 'Passed', 'all checks passed'],
  ];
  for (const [what, d, s, status, reason, message] of cases) {
    t.same(await checkAvailability(s, d), { type: 'Available', status, lastTransitionTime: '2024-05-01T10:00:00Z', reason, message }, what);
  }
  const local = { ...remote(), spec: { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 } };
  t.match(await checkAvailability(local, deps({})), { status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
});

t.test('the discovery probe: connection refused, bad status and success, worded as kube words them', async (t) => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));

  const ext = await startExtensionServer({ service: 'api', namespace: 'wardle' });
  t.teardown(() => ext.close());
  const lookup = (port: number) => ({
    service: () => svc,
    endpoints: () => endpoints([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port }] }]),
  });

  const refused = discoveryProbe({ resolver: () => endpointResolver(lookup(deadPort)) });
  const url = `https://127.0.0.1:${deadPort}/apis/wardle.example.com/v1alpha1`;
  t.equal(await refused(remote()), `failing or missing response from ${url}: Get "${url}": dial tcp 127.0.0.1:${deadPort}: connect: connection refused`);

  const ok = discoveryProbe({ resolver: () => endpointResolver(lookup(ext.port)) });
  t.equal(await ok(remote()), undefined, 'any 2xx passes, without verifying the server');
  const seen = ext.seen.at(-1);
  t.equal(seen?.headers['x-remote-user'], 'system:kube-aggregator');
  t.equal(seen?.headers['x-remote-group'], 'system:masters');

  const other = { ...remote(), metadata: { name: 'v1.other.example.com' }, spec: { ...remote().spec, group: 'other.example.com', version: 'v1' } };
  const badUrl = `https://127.0.0.1:${ext.port}/apis/other.example.com/v1`;
  t.equal(await ok(other), `failing or missing response from ${badUrl}: bad status from ${badUrl}: 404`);

  const unresolved = discoveryProbe({ resolver: () => endpointResolver({ service: () => svc, endpoints: () => endpoints([]) }) });
  t.equal(await unresolved(remote()), 'no endpoints available for service "api"');
});
