import t from 'tap';
import type { APIService } from '../../src/aggregator/apiservice';
import { ProxyError } from '../../src/aggregator/proxy';
import type { FetchedResponse } from '../../src/aggregator/proxy';
import { ACCEPT_AGGREGATED, RemoteDiscovery } from '../../src/aggregator/remote-discovery';

const s: APIService = {
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1beta1.metrics.k8s.io' },
  spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics-server' } },
};

const podsMetrics = { resource: 'pods', responseKind: { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics' }, scope: 'Namespaced', verbs: ['get', 'list'] };

t.test("a backend that answers aggregated discovery: its entry for the registration's group/version", async (t) => {
  const asked: Array<[string, string]> = [];
  const discovery = new RemoteDiscovery({
    fetch: async (_s, path, accept): Promise<FetchedResponse> => {
      asked.push([path, accept]);
      return {
        status: 200,
        headers: { 'content-type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
        body: Buffer.from(JSON.stringify({ items: [{ metadata: { name: 'metrics.k8s.io' }, versions: [{ version: 'v1beta1', resources: [podsMetrics], freshness: 'Current' }] }] })),
      };
    },
  });
  discovery.update(s.metadata.name, s);
  await discovery.refresh(s.metadata.name);
  t.same(asked[0], ['/apis', ACCEPT_AGGREGATED]);
  t.same(discovery.entry(s.metadata.name), { resources: [podsMetrics], freshness: 'Current' });
  t.equal(asked.length >= 1, true);
});

t.test('a backend that cannot be asked: Stale, without resources', async (t) => {
  const discovery = new RemoteDiscovery({
    fetch: async () => {
      throw new ProxyError(503, 'service unavailable');
    },
  });
  discovery.update(s.metadata.name, s);
  await discovery.refresh(s.metadata.name);
  t.same(discovery.entry(s.metadata.name), { freshness: 'Stale' });

  const answering503 = new RemoteDiscovery({ fetch: async () => ({ status: 503, headers: {}, body: Buffer.from('service unavailable\n') }) });
  answering503.update(s.metadata.name, s);
  await answering503.refresh(s.metadata.name);
  t.same(answering503.entry(s.metadata.name), { freshness: 'Stale' });
});
