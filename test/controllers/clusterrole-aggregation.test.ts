import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

const role = (name: string, labels: Record<string, string>, rules: unknown[]) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name, labels },
  rules,
});

t.test('aggregated cluster roles follow the roles their selectors match', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['clusterrole-aggregation']);
  await client.create(RESOURCES.clusterRoles, undefined, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'monitoring' },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-monitoring': 'true' } }] },
  });
  const rulesOf = async () => ((await client.get(RESOURCES.clusterRoles, undefined, 'monitoring')).rules ?? []) as { resources?: string[]; verbs?: string[] }[];
  const pods = { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] };
  await client.create(RESOURCES.clusterRoles, undefined, role('pod-reader', { 'example.com/aggregate-to-monitoring': 'true' }, [pods]));
  await client.create(RESOURCES.clusterRoles, undefined, role('unrelated', {}, [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }]));
  await waitFor('the pod rules', async () => (await rulesOf()).some((r) => r.resources?.includes('pods')));

  const nodes = { apiGroups: [''], resources: ['nodes'], verbs: ['watch'] };
  await client.create(RESOURCES.clusterRoles, undefined, role('node-watcher', { 'example.com/aggregate-to-monitoring': 'true' }, [nodes]));
  await waitFor('the node rules added', async () => (await rulesOf()).length === 2);
  t.notOk((await rulesOf()).some((r) => r.resources?.includes('secrets')), 'unselected roles are left out');

  await client.patch(RESOURCES.clusterRoles, undefined, 'pod-reader', 'merge', { rules: [{ ...pods, verbs: ['get'] }] });
  await waitFor('a changed rule followed', async () => (await rulesOf()).some((r) => r.resources?.includes('pods') && r.verbs?.length === 1));
  await client.delete(RESOURCES.clusterRoles, undefined, 'node-watcher');
  await waitFor('a deleted role\'s rules dropped', async () => (await rulesOf()).length === 1);
  // the API server's bootstrap roles (admin aggregates edit, view) stay as bootstrap computed them
  t.ok(((await client.get(RESOURCES.clusterRoles, undefined, 'admin')).rules as unknown[]).length > 0);
});
