import t from 'tap';
import { isForbidden } from '../../src/client/errors';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

const quota = (name: string, hard: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...extra },
});
const pod = (name: string, resources?: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox', ...(resources ? { resources } : {}) }], ...spec },
});
const service = (name: string, type = 'ClusterIP'): KubeObject => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type, ports: [{ port: 80 }] },
});
const deployment = (name: string): KubeObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
});

t.test('resourcequota controller against the real server', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['resourcequota']);
  const ns = async (name: string) => client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const used = async (namespace: string, name: string) =>
    ((await client.get(RESOURCES.resourceQuotas, namespace, name)).status as { used?: Record<string, string> } | undefined)?.used;
  const usedIs = (namespace: string, name: string, want: Record<string, string>) =>
    waitFor(`${name} used ${JSON.stringify(want)}`, async () => {
      const u = await used(namespace, name);
      return u !== undefined && Object.entries(want).every(([k, v]) => u[k] === v) && u;
    });

  await t.test('status.hard and status.used of objects there before the quota', async (t) => {
    await ns('pre');
    await client.create(RESOURCES.pods, 'pre', pod('a', { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '64Mi' } }));
    await client.create(RESOURCES.pods, 'pre', pod('b'));
    await client.create(RESOURCES.services, 'pre', service('lb', 'LoadBalancer'));
    await client.create(RESOURCES.configMaps, 'pre', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } });
    await client.create(RESOURCES.deployments, 'pre', deployment('d'));
    await client.create(RESOURCES.resourceQuotas, 'pre', quota('all', {
      pods: '10', 'requests.cpu': '2', 'limits.memory': '1Gi', services: '5', 'services.loadbalancers': '2', 'services.nodeports': '4',
      'count/configmaps': '3', 'count/deployments.apps': '2', resourcequotas: '3',
    }));
    await client.create(RESOURCES.resourceQuotas, 'pre', quota('besteffort', { pods: '5' }, { scopes: ['BestEffort'] }));
    const u = await usedIs('pre', 'all', { pods: '2' });
    t.same(u, {
      pods: '2', 'requests.cpu': '250m', 'limits.memory': '64Mi', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1',
      'count/configmaps': '1', 'count/deployments.apps': '1', resourcequotas: '2',
    });
    const q = await client.get(RESOURCES.resourceQuotas, 'pre', 'all');
    t.same((q.status as { hard: unknown }).hard, (q.spec as { hard: unknown }).hard, 'status.hard = spec.hard');
    t.same(await usedIs('pre', 'besteffort', { pods: '1' }), { pods: '1' }, 'only the best-effort pod is in scope');
  });

  await t.test('used follows creates and deletes of pods, services and deployments', async (t) => {
    await ns('flow');
    await client.create(RESOURCES.resourceQuotas, 'flow', quota('q', { pods: '3', services: '2', 'count/deployments.apps': '1' }));
    await usedIs('flow', 'q', { pods: '0', services: '0', 'count/deployments.apps': '0' });
    await client.create(RESOURCES.pods, 'flow', pod('p1'));
    await client.create(RESOURCES.services, 'flow', service('s1'));
    await client.create(RESOURCES.deployments, 'flow', deployment('d1'));
    t.same(await used('flow', 'q'), { pods: '1', services: '1', 'count/deployments.apps': '1' }, 'charged at admission');
    await t.rejects(client.create(RESOURCES.deployments, 'flow', deployment('d2')), {
      code: 403, message: /exceeded quota: q, requested: count\/deployments.apps=1, used: count\/deployments.apps=1, limited: count\/deployments.apps=1/,
    });
    await client.delete(RESOURCES.pods, 'flow', 'p1', { gracePeriodSeconds: 0 });
    await client.delete(RESOURCES.services, 'flow', 's1');
    await client.delete(RESOURCES.deployments, 'flow', 'd1');
    t.ok(await usedIs('flow', 'q', { pods: '0', services: '0', 'count/deployments.apps': '0' }), 'given back after deletes');
    await client.create(RESOURCES.deployments, 'flow', deployment('d2'));
    t.equal((await used('flow', 'q'))?.['count/deployments.apps'], '1');
  });

  await t.test('a pod that ends gives its use back', async (t) => {
    await ns('end');
    await client.create(RESOURCES.resourceQuotas, 'end', quota('q', { pods: '1' }));
    await usedIs('end', 'q', { pods: '0' });
    const p = await client.create(RESOURCES.pods, 'end', pod('job'));
    await t.rejects(client.create(RESOURCES.pods, 'end', pod('more')), { code: 403 });
    await client.update(RESOURCES.pods, { ...p, status: { phase: 'Succeeded' } }, 'status');
    await usedIs('end', 'q', { pods: '0' });
    t.ok(await client.create(RESOURCES.pods, 'end', pod('more')));
  });

  await t.test('a spec change is accounted for; admission refuses beyond it using the status', async (t) => {
    await ns('grow');
    await client.create(RESOURCES.resourceQuotas, 'grow', quota('q', { pods: '1' }));
    await usedIs('grow', 'q', { pods: '0' });
    await client.create(RESOURCES.pods, 'grow', pod('a'));
    await t.rejects(client.create(RESOURCES.pods, 'grow', pod('b')), { code: 403, message: /pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1/ });
    const q = await client.get(RESOURCES.resourceQuotas, 'grow', 'q');
    await client.update(RESOURCES.resourceQuotas, { ...q, spec: { hard: { pods: '2', 'count/secrets': '1' } } });
    await usedIs('grow', 'q', { pods: '1', 'count/secrets': '0' });
    t.ok(await client.create(RESOURCES.pods, 'grow', pod('b')));
  });

  await t.test('a service update is charged what it adds', async (t) => {
    await ns('upd');
    await client.create(RESOURCES.resourceQuotas, 'upd', quota('q', { 'services.nodeports': '1' }));
    await usedIs('upd', 'q', { 'services.nodeports': '0' });
    const a = await client.create(RESOURCES.services, 'upd', service('a', 'NodePort'));
    const b = await client.create(RESOURCES.services, 'upd', service('b'));
    t.equal((await used('upd', 'q'))?.['services.nodeports'], '1');
    await t.rejects(client.update(RESOURCES.services, { ...b, spec: { ...(b.spec as object), type: 'NodePort' } }), {
      code: 403, message: /services "b" is forbidden: exceeded quota: q, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1/,
    });
    t.ok(await client.update(RESOURCES.services, { ...a, metadata: { ...a.metadata, labels: { x: 'y' } } }), 'an update adding nothing passes');
  });

  await t.test('concurrent creates cannot both take the last unit', async (t) => {
    await ns('race');
    await client.create(RESOURCES.resourceQuotas, 'race', quota('q', { 'count/configmaps': '3' }));
    await usedIs('race', 'q', { 'count/configmaps': '0' });
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) =>
      client.create(RESOURCES.configMaps, 'race', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm${i}` } })));
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 3, 'exactly the hard limit');
    t.ok(results.filter((r) => r.status === 'rejected').every((r) => isForbidden((r as PromiseRejectedResult).reason)), 'the others are refused');
    t.equal((await client.list(RESOURCES.configMaps, 'race')).items.length, 3);
  });
});
