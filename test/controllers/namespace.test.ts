/**
 * The namespace controller against a real API server that does not finish namespaces itself
 * (--inprocess-namespace-controller=false): a namespace with objects of many kinds is emptied and
 * disappears; an object held by a finalizer keeps it Terminating with kube's conditions.
 */
import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { WIDGETS, configMap, createWidgetCrd, getOrGone, waitGone } from './gc-fixtures';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
const conditionsOf = (ns: KubeObject | undefined): Condition[] => ((ns?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []);

t.test('namespace controller', async (t) => {
  const server = await startApiServer(t, { args: ['--inprocess-namespace-controller=false'] });
  const { client, stop } = startControllers(t, server, ['garbagecollector', 'namespace']);
  const createNs = (name: string) => client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

  t.test('the API server alone leaves a deleted namespace Terminating', async (t) => {
    await stop();
    await createNs('left-alone');
    await configMap(client, 'left-alone', 'c');
    await client.delete(RESOURCES.namespaces, undefined, 'left-alone');
    await new Promise((r) => setTimeout(r, 1500));
    const ns = await client.get(RESOURCES.namespaces, undefined, 'left-alone');
    t.equal((ns.status as { phase?: string }).phase, 'Terminating');
    t.ok(await getOrGone(client, RESOURCES.configMaps, 'left-alone', 'c'), 'its content stays');
  });

  t.test('namespaces/<name>/finalize: PUT only, and only spec.finalizers changes', async (t) => {
    const ns = await createNs('fin');
    const path = '/api/v1/namespaces/fin/finalize';
    t.equal((await server.request('GET', path)).status, 405, 'GET is not served');
    const body = { ...ns, metadata: { ...ns.metadata, labels: { ignored: 'yes' } }, spec: { finalizers: ['kubernetes', 'example.com/mine'] } };
    const put = await server.request('PUT', path, JSON.stringify(body), { 'Content-Type': 'application/json' });
    t.equal(put.status, 200, put.body);
    const stored = await client.get(RESOURCES.namespaces, undefined, 'fin');
    t.same((stored.spec as { finalizers?: string[] }).finalizers, ['kubernetes', 'example.com/mine']);
    t.equal(stored.metadata?.labels?.ignored, undefined, 'the rest of the body is ignored');
    const bad = await server.request('PUT', path, JSON.stringify({ ...stored, spec: { finalizers: ['bogus'] } }), { 'Content-Type': 'application/json' });
    t.equal(bad.status, 422, "kube's finalizer name check");
  });

  // started again once the first subtest is over (subtests run after this body)
  let c2 = client;
  const parent = t;

  t.test('a namespace with objects of many kinds is emptied and disappears', async (t) => {
    c2 = startControllers(parent, server, ['garbagecollector', 'namespace']).client;
    await waitGone(c2, RESOURCES.namespaces, undefined, 'left-alone');
    await createWidgetCrd(c2);
    await createNs('full');
    await configMap(c2, 'full', 'c1');
    await configMap(c2, 'full', 'c2');
    await c2.create(RESOURCES.secrets, 'full', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { a: 'b' } });
    await c2.create(RESOURCES.services, 'full', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }], selector: { app: 'x' } } });
    await c2.create(WIDGETS, 'full', { apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    await c2.create(RESOURCES.serviceAccounts, 'full', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } });
    await c2.delete(RESOURCES.namespaces, undefined, 'full');
    await waitGone(c2, RESOURCES.namespaces, undefined, 'full');
    t.equal((await c2.list(WIDGETS, 'full')).items.length, 0, 'the custom resources are gone');
    t.equal((await c2.list(RESOURCES.configMaps, 'full')).items.length, 0, 'the ConfigMaps are gone');
    t.equal((await c2.list(RESOURCES.services, 'full')).items.length, 0, 'the Services are gone');
  });

  t.test('conditions say what holds a namespace back', async (t) => {
    await createNs('held');
    await configMap(c2, 'held', 'kept', { finalizers: ['example.com/hold'] });
    await configMap(c2, 'held', 'plain');
    await c2.delete(RESOURCES.namespaces, undefined, 'held');
    const ns = await waitFor('the conditions', async () => {
      const n = await c2.get(RESOURCES.namespaces, undefined, 'held');
      return conditionsOf(n).some((c) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True') ? n : undefined;
    });
    const byType = new Map(conditionsOf(ns).map((c) => [c.type, c]));
    t.same(
      [...byType.keys()],
      ['NamespaceDeletionDiscoveryFailure', 'NamespaceDeletionGroupVersionParsingFailure', 'NamespaceDeletionContentFailure', 'NamespaceContentRemaining', 'NamespaceFinalizersRemaining'],
      "kube's five conditions, in kube's order",
    );
    t.match(byType.get('NamespaceDeletionDiscoveryFailure'), { status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' });
    t.match(byType.get('NamespaceDeletionContentFailure'), { status: 'False', reason: 'ContentDeleted' });
    t.match(byType.get('NamespaceContentRemaining'), { status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances' });
    t.match(byType.get('NamespaceFinalizersRemaining'), {
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
    });
    t.equal(await getOrGone(c2, RESOURCES.configMaps, 'held', 'plain'), undefined, 'the rest of the content is gone');
    await c2.patch(RESOURCES.configMaps, 'held', 'kept', 'merge', { metadata: { finalizers: null } });
    // kube looks again after half its 15 s estimate for finalizers
    await waitGone(c2, RESOURCES.namespaces, undefined, 'held', 30_000);
  });
});
