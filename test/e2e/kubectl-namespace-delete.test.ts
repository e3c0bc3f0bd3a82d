/**
 * kubectl 1.32 deletes a namespace holding objects of many kinds, with the API server leaving
 * namespaces to the controller manager (--inprocess-namespace-controller=false) and the controllers
 * that own those objects running: the namespace controller empties it (the garbage collector and
 * pvc-protection doing their parts) and `kubectl delete namespace` returns once it is gone.
 */
import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';
import { kubectlFor, missingKubectl, startApiServer, waitFor } from './harness';

const container = { name: 'c', image: 'busybox', command: ['sleep', '3600'] };
const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [container] } });

const MANIFESTS = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: 'b' } },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token' }, stringData: { t: 'x' } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'runner' } },
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template('web') } },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' }, spec: { replicas: 1, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template('db') } },
  { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'once' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } } },
  { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly' }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [container] } } } } } },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ kind: 'ServiceAccount', name: 'runner' }] },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny' }, spec: { podSelector: {} } },
  { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '20' } } },
];

t.test('kubectl delete namespace empties a namespace of many kinds', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t, { args: ['--inprocess-namespace-controller=false'] });
  const { client } = startControllers(t, server, [
    'namespace', 'garbagecollector', 'deployment', 'replicaset', 'statefulset', 'job', 'cronjob', 'endpoint', 'endpointslice',
    'disruption', 'resourcequota', 'pvc-protection', 'pv-protection', 'serviceaccount',
  ]);
  startFakeNode(t, client, { namespace: 'busy', podIPs: true });
  const k = kubectlFor(t, '1.32', server);

  await k.ok(['create', 'namespace', 'busy']);
  const list = { apiVersion: 'v1', kind: 'List', items: MANIFESTS };
  await k.ok(['-n', 'busy', 'apply', '-f', '-'], JSON.stringify(list));
  // the controllers have made pods, endpoints and the claim's protection finalizer
  await waitFor('the workloads\' pods', async () => (await client.list(RESOURCES.pods, 'busy')).items.length >= 4);
  await waitFor('the Service\'s endpoints', async () => {
    const ep = await client.get(RESOURCES.endpoints, 'busy', 'web').catch(() => undefined);
    return ((ep as { subsets?: unknown[] } | undefined)?.subsets ?? []).length > 0;
  });
  await waitFor('the claim protected', async () => (await client.get(RESOURCES.persistentVolumeClaims, 'busy', 'data')).metadata?.finalizers?.includes('kubernetes.io/pvc-protection'));

  const deleted = await k.run(['delete', 'namespace', 'busy', '--timeout=90s'], undefined, 120_000);
  t.equal(deleted.code, 0, deleted.stderr);
  t.match(deleted.stdout, /namespace "busy" deleted/);
  const gone = await k.run(['get', 'namespace', 'busy']);
  t.not(gone.code, 0);
  t.match(gone.stderr, /namespaces "busy" not found/, 'kubectl waited until the namespace was gone');
  for (const ref of [RESOURCES.pods, RESOURCES.replicaSets, RESOURCES.persistentVolumeClaims, RESOURCES.endpoints, RESOURCES.jobs]) {
    t.equal((await client.list(ref, 'busy')).items.length, 0, `no ${ref.resource} left`);
  }
});
