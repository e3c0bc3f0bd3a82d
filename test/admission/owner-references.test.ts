import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import type { AuthorizationAttributes, Authorizer } from '../../src/api/reviews/authorizer';
import { configMap, write } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { admissionFixture } from './admission-fixture';

/** alice may delete configmaps; she may set finalizers on the deployment "web" only */
const asked: AuthorizationAttributes[] = [];
const authorizer: Authorizer = {
  async authorize(a) {
    asked.push(a);
    if (a.user?.name !== 'alice') return { allowed: false };
    if (a.verb === 'delete' && a.resource === 'configmaps') return { allowed: true };
    if (a.verb === 'update' && a.resource === 'deployments' && a.subresource === 'finalizers' && a.name === 'web') return { allowed: true };
    return { allowed: false, reason: 'no rule' };
  },
};

const owned = (name: string, ref: Record<string, unknown>): KubeObject => {
  const cm = configMap(name);
  cm.metadata!.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'Deployment', uid: 'u-1', ...ref }];
  return cm;
};

t.test('OwnerReferencesPermissionEnforcement: delete on the object, update on the owner\'s finalizers', async (t) => {
  const f = await admissionFixture(['OwnerReferencesPermissionEnforcement'], { authorizer });
  t.teardown(() => f.close());
  const alice = { ...write, user: { name: 'alice', groups: [] } };
  const bob = { ...write, user: { name: 'bob', groups: [] } };
  await f.registry.create(f.target('configmaps', 'default'), configMap('plain'), bob);
  await rejects(t, f.registry.create(f.target('configmaps', 'default'), owned('a', { name: 'web' }), bob), 403, 'Forbidden',
    'configmaps "a" is forbidden: cannot set an ownerRef on a resource you can\'t delete: , <nil>');
  await f.registry.create(f.target('configmaps', 'default'), owned('b', { name: 'web', blockOwnerDeletion: true }), alice);
  t.match(asked.at(-1), { verb: 'update', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', subresource: 'finalizers', name: 'web', namespace: 'default' });
  await rejects(t, f.registry.create(f.target('configmaps', 'default'), owned('c', { name: 'api', blockOwnerDeletion: true }), alice), 403, 'Forbidden',
    'configmaps "c" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: no rule, <nil>');
  await rejects(t, f.registry.create(f.target('configmaps', 'default'), owned('d', { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', blockOwnerDeletion: true }), alice), 403, 'Forbidden',
    'configmaps "d" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"');
  const unchanged = (await f.registry.get(f.target('configmaps', 'default', 'b'), {})) as KubeObject;
  (unchanged as { data: Record<string, string> }).data = { k: 'changed' };
  const before = asked.length;
  await f.registry.update(f.target('configmaps', 'default', 'b'), unchanged, bob);
  t.equal(asked.length, before, 'updates that keep the references ask nothing');
});
