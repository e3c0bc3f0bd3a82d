/** The namespace controller's conditions (kube's namespaceConditionUpdater), without a server. */
import t from 'tap';
import { CONDITION_TYPES, NamespaceConditionUpdater, type NamespaceCondition } from '../../src/controllers/namespace/conditions';

t.test('all okay: five False conditions with the okay reasons', async (t) => {
  const conditions: NamespaceCondition[] = [];
  t.ok(new NamespaceConditionUpdater().update(conditions, 't1'));
  t.same(conditions.map((c) => c.type), [...CONDITION_TYPES]);
  t.ok(conditions.every((c) => c.status === 'False' && c.lastTransitionTime === 't1'));
  t.same(conditions.map((c) => c.reason), ['ResourcesDiscovered', 'ParsedGroupVersions', 'ContentDeleted', 'ContentRemoved', 'ContentHasNoFinalizers']);
  t.notOk(new NamespaceConditionUpdater().update(conditions, 't2'), 'nothing changes the second time');
});

t.test('failures: messages as kube writes them, sorted; transition time moves on a flip only', async (t) => {
  const conditions: NamespaceCondition[] = [];
  new NamespaceConditionUpdater().update(conditions, 't1');
  const u = new NamespaceConditionUpdater();
  u.discoveryFailed(1, 'unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: boom');
  u.contentDeletionFailed('zeta failed');
  u.contentDeletionFailed('alpha failed');
  u.contentTotals({ byResource: new Map([['widgets.gc.example.com', 2], ['configmaps.', 1]]), byFinalizer: new Map([['b/x', 1], ['a/y', 2]]) });
  t.ok(u.update(conditions, 't2'));
  const by = new Map(conditions.map((c) => [c.type, c]));
  t.match(by.get('NamespaceDeletionDiscoveryFailure'), {
    status: 'True',
    reason: 'DiscoveryFailed',
    message: 'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: boom',
    lastTransitionTime: 't2',
  });
  t.match(by.get('NamespaceDeletionContentFailure'), { status: 'True', reason: 'ContentDeletionFailed', message: 'Failed to delete all resource types, 2 remaining: alpha failed, zeta failed' });
  t.match(by.get('NamespaceContentRemaining'), { reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances, widgets.gc.example.com has 2 resource instances' });
  t.match(by.get('NamespaceFinalizersRemaining'), { reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: a/y in 2 resource instances, b/x in 1 resource instances' });
  t.equal(by.get('NamespaceDeletionGroupVersionParsingFailure')!.lastTransitionTime, 't1', 'unchanged conditions keep their time');
});
