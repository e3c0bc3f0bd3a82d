/** The collector's dependency graph and its start-up switch, without a server. */
import pino from 'pino';
import t from 'tap';
import { garbageCollectorController, invalidNamespaceMessage } from '../../src/controllers/garbagecollector';
import { DependencyGraph, diffOwners, type GraphNode } from '../../src/controllers/garbagecollector/graph';
import { deletableResources } from '../../src/controllers/garbagecollector/monitors';
import type { DiscoveredResource } from '../../src/client/discovery';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../src/controllers/settings';
import type { ControllerContext } from '../../src/controllers/types';
import type { KubeObject, OwnerReference } from '../../src/client/types';

function recorder() {
  const calls = { deletes: [] as string[], orphans: [] as string[], invalid: [] as string[] };
  const graph = new DependencyGraph(
    {
      attemptToDelete: (n: GraphNode) => calls.deletes.push(n.identity.name),
      attemptToOrphan: (n: GraphNode) => calls.orphans.push(n.identity.name),
      invalidOwnerNamespace: (d: GraphNode, r: OwnerReference) => calls.invalid.push(`${d.identity.name}->${r.name}`),
    },
    (_apiVersion, kind) => (kind === 'Node' ? false : true),
  );
  return { graph, calls };
}

const cm = (name: string, uid: string, meta: Record<string, unknown> = {}, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, uid, namespace, ...meta },
});
const ref = (name: string, uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid, ...extra });

t.test('an unseen owner becomes a virtual node to verify', async (t) => {
  const { graph, calls } = recorder();
  graph.observe(cm('dep', 'd1', { ownerReferences: [ref('owner', 'o1')] }));
  const owner = graph.node('o1')!;
  t.equal(owner.observed, false, 'virtual');
  t.equal(owner.identity.namespace, 'default', "in the dependent's namespace");
  t.same(calls.deletes, ['owner'], 'queued for verification');
  graph.observe(cm('owner', 'o1'));
  t.equal(owner.observed, true, 'observed once seen');
  t.same([...owner.dependents].map((d) => d.identity.name), ['dep']);
});

t.test('deleting an owner queues its dependents; foreground deletion queues them and the owner', async (t) => {
  const { graph, calls } = recorder();
  graph.observe(cm('owner', 'o1'));
  graph.observe(cm('dep', 'd1', { ownerReferences: [ref('owner', 'o1', { blockOwnerDeletion: true })] }));
  graph.observe(cm('owner', 'o1', { deletionTimestamp: '2021-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] }));
  t.ok(graph.node('o1')!.deletingDependents);
  t.same(calls.deletes, ['dep', 'owner']);
  t.same(graph.node('o1')!.blockingDependents().map((d) => d.identity.name), ['dep']);
  calls.deletes.length = 0;
  graph.forget(cm('dep', 'd1'));
  t.same(calls.deletes, ['owner'], 'the waiting owner is looked at again when its dependent goes');
  t.same(graph.node('o1')!.blockingDependents(), []);
  calls.deletes.length = 0;
  graph.observe(cm('dep2', 'd2', { ownerReferences: [ref('owner', 'o1')] }));
  graph.forget(cm('owner', 'o1'));
  t.same(calls.deletes, ['dep2'], 'dependents of a deleted owner are queued');
});

t.test('the orphan finalizer queues the owner for orphaning', async (t) => {
  const { graph, calls } = recorder();
  graph.observe(cm('owner', 'o1', { deletionTimestamp: '2021-01-01T00:00:00Z', finalizers: ['orphan'] }));
  t.same(calls.orphans, ['owner']);
});

t.test('owner references removed or unblocked free a waiting owner', async (t) => {
  t.same(diffOwners([ref('a', '1', { blockOwnerDeletion: true }), ref('b', '2')], [ref('a', '1'), ref('c', '3')]), {
    added: [ref('c', '3')],
    removed: [ref('b', '2')],
    unblocked: [ref('a', '1')],
  });
  const { graph, calls } = recorder();
  graph.observe(cm('owner', 'o1', { deletionTimestamp: '2021-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] }));
  graph.observe(cm('dep', 'd1', { ownerReferences: [ref('owner', 'o1', { blockOwnerDeletion: true })] }));
  calls.deletes.length = 0;
  graph.observe(cm('dep', 'd1', { ownerReferences: [] }));
  t.same(calls.deletes, ['owner']);
  t.equal(graph.node('o1')!.dependents.size, 0);
});

t.test('owners across namespaces and cluster-scoped dependents of namespaced owners are reported', async (t) => {
  const { graph, calls } = recorder();
  graph.observe(cm('owner', 'o1', {}, 'a'));
  graph.observe(cm('dep', 'd1', { ownerReferences: [ref('owner', 'o1')] }, 'b'));
  t.same(calls.invalid, ['dep->owner']);
  t.ok(calls.deletes.includes('dep'), 'the dependent is judged by the collector');
  graph.observe({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', uid: 'n1', ownerReferences: [ref('owner', 'o1')] } });
  t.same(calls.invalid, ['dep->owner', 'n->owner']);
  graph.observe(cm('dep', 'd1', { ownerReferences: [ref('owner', 'o1')], labels: { x: 'y' } }, 'b'));
  t.equal(calls.invalid.length, 2, 'reported once per dependent and owner');
  t.equal(invalidNamespaceMessage(ref('owner', 'o1'), 'b'), 'ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: o1] does not exist in namespace "b"');
});

t.test('with --enable-garbage-collector=false the collector does nothing', async (t) => {
  const abort = new AbortController();
  const ctx = {
    settings: { ...DEFAULT_CONTROLLER_SETTINGS, enableGarbageCollector: false },
    logger: pino({ level: 'silent' }),
    signal: abort.signal,
    // anything touched would throw
    client: undefined,
    informers: undefined,
    recorder: undefined,
  } as unknown as ControllerContext;
  await garbageCollectorController.start(ctx);
  t.pass('returned at once without using the client or informers');
});

t.test('the collector monitors resources with list, watch and delete, events excepted', async (t) => {
  const r = (group: string, resource: string, verbs: string[]): DiscoveredResource => ({ group, version: 'v1', resource, kind: resource, namespaced: true, verbs });
  const all = ['create', 'delete', 'get', 'list', 'watch'];
  const picked = deletableResources([
    r('', 'configmaps', all),
    r('', 'events', all),
    r('events.k8s.io', 'events', all),
    r('authorization.k8s.io', 'subjectaccessreviews', ['create']),
    r('', 'bindings', ['create']),
    r('example.com', 'widgets', all),
    r('example.com', 'nodelete', ['get', 'list', 'watch']),
  ]);
  t.same(picked.map((x) => `${x.group}/${x.resource}`), ['/configmaps', 'example.com/widgets']);
});
