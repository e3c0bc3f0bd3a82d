import t from 'tap';
import { builtinKinds } from '../../src/api/kinds';
import { Scheme } from '../../src/api/scheme';
import { apiGroupDocument, apiGroupList } from '../../src/http/discovery';
import { aggregatedDiscovery } from '../../src/http/discovery-aggregated';
import { aggregatedOrder, compareKubeAwareVersions, legacyOrder } from '../../src/http/discovery-extension';
import type { DiscoveryExtension, RemoteGroupVersion } from '../../src/http/discovery-extension';
import { discoverySource } from '../../src/aggregator/discovery-source';

function extension(remote: RemoteGroupVersion[]): DiscoveryExtension {
  const base = discoverySource({ get: () => undefined, list: () => [], entry: () => ({ freshness: 'Stale' }) });
  return { priority: base.priority, remoteVersions: () => remote };
}

const remote = (group: string, version: string, g: number, v: number, stale = false): RemoteGroupVersion => ({
  group,
  version,
  priority: { group: g, version: v },
  discovery: () => (stale ? { freshness: 'Stale' } : { freshness: 'Current', resources: [{ resource: 'flunders' }] }),
});

t.test("kube-aware version order", async (t) => {
  const versions = ['v1beta1', 'foo', 'v2', 'v1alpha1', 'v1', 'bar', 'v10', 'v2beta2', 'v2beta10'];
  t.same(versions.sort((a, b) => compareKubeAwareVersions(b, a)), ['v10', 'v2', 'v1', 'v2beta10', 'v2beta2', 'v1beta1', 'v1alpha1', 'bar', 'foo']);
});

t.test('/apis in kube\'s priority order, extension groups placed by their priority', async (t) => {
  const scheme = new Scheme(builtinKinds());
  const ext = extension([remote('wardle.example.com', 'v1alpha1', 1000, 15), remote('metrics.k8s.io', 'v1beta1', 17790, 100)]);
  const names = (apiGroupList(scheme, ext) as { groups: Array<{ name: string }> }).groups.map((g) => g.name);
  t.same(names, [
    'apiregistration.k8s.io', 'extensions', 'apps', 'metrics.k8s.io', 'events.k8s.io', 'autoscaling', 'batch', 'certificates.k8s.io',
    'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'storage.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io',
    'scheduling.k8s.io', 'coordination.k8s.io', 'node.k8s.io', 'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io', 'internal.apiserver.k8s.io',
    'wardle.example.com',
  ]);
  t.same(apiGroupDocument(scheme, 'wardle.example.com', ext), {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: 'wardle.example.com',
    versions: [{ groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' }],
    preferredVersion: { groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' },
  });
  t.same((apiGroupList(scheme) as { groups: Array<{ name: string }> }).groups.map((g) => g.name), [
    'apiregistration.k8s.io', 'extensions', 'apps', 'autoscaling', 'batch', 'policy', 'networking.k8s.io', 'storage.k8s.io', 'scheduling.k8s.io',
    'coordination.k8s.io', 'node.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'rbac.authorization.k8s.io', 'admissionregistration.k8s.io',
    'certificates.k8s.io', 'apiextensions.k8s.io', 'flowcontrol.apiserver.k8s.io', 'internal.apiserver.k8s.io',
  ], 'without an extension: the Scheme\'s order');
});

t.test('legacy order breaks ties by APIService name, aggregated by group name', async (t) => {
  const scheme = new Scheme([]);
  const ext = extension([remote('b.example.com', 'v1', 1000, 100), remote('a.example.com', 'v1beta1', 1000, 100)]);
  t.same(legacyOrder(scheme, ext).map((g) => g.name), ['b.example.com', 'a.example.com'], '"v1.b..." sorts before "v1beta1.a..."');
  t.same(aggregatedOrder(scheme, ext).map((g) => g.name), ['a.example.com', 'b.example.com']);
});

t.test('versions by versionPriority; a remote registration replaces a built-in group/version', async (t) => {
  const scheme = new Scheme(builtinKinds());
  const ext = extension([remote('batch', 'v2alpha1', 17400, 20), remote('batch', 'v1beta1', 17400, 9, true)]);
  const batch = legacyOrder(scheme, ext).find((g) => g.name === 'batch');
  t.same(batch?.versions.map((v) => [v.version, Boolean(v.remote)]), [['v2alpha1', true], ['v1', false], ['v1beta1', true]]);
  const doc = aggregatedDiscovery(scheme, false, 'v2', ext) as { items: Array<{ metadata: { name: string }; versions: Array<Record<string, unknown>> }> };
  const aggBatch = doc.items.find((i) => i.metadata.name === 'batch');
  t.same(aggBatch?.versions.map((v) => [v.version, v.freshness, Array.isArray(v.resources)]), [
    ['v2alpha1', 'Current', true],
    ['v1', 'Current', true],
    ['v1beta1', 'Stale', false],
  ]);
  t.equal(doc.items[0].metadata.name, 'apiregistration.k8s.io', 'apiregistration first (20001)');
});
