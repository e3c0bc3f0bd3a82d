import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { pod, write, dryRun } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { admissionFixture, type AdmissionFixture } from './admission-fixture';
import { calculateStatus } from '../../src/controllers/resourcequota/usage';

function podWith(name: string, resources?: Record<string, unknown>): KubeObject {
  const p = pod(name);
  if (resources) (p.spec as { containers: Array<Record<string, unknown>> }).containers[0].resources = resources;
  return p;
}

const limitRange = (limits: unknown[]): KubeObject => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits } });
const quota = (hard: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard } });

/** what the resourcequota controller does for quota q (the admission enforces its status, as kube's) */
async function account(f: AdmissionFixture): Promise<void> {
  const q = await f.registry.get(f.target('resourcequotas', 'default', 'q'), {});
  const objects = new Map<string, KubeObject[]>();
  for (const resource of ['pods', 'configmaps']) objects.set(resource, (await f.registry.list(f.target(resource, 'default'), {})).items);
  await f.registry.updateStatus(f.target('resourcequotas', 'default', 'q'), { ...q, status: calculateStatus(q, (k) => objects.get(k.resource) ?? []) }, write);
}

t.test('LimitRanger: default requests and limits with kube\'s annotation', async (t) => {
  const f = await admissionFixture(['LimitRanger']);
  t.teardown(() => f.close());
  await f.registry.create(f.target('limitranges', 'default'), limitRange([{ type: 'Container', default: { cpu: '500m', memory: '128Mi' }, defaultRequest: { cpu: '100m' } }]), write);
  const res = await f.registry.create(f.target('pods', 'default'), podWith('p', { requests: { memory: '64Mi' } }), write);
  const c = (res.object.spec as { containers: Array<{ resources: unknown }> }).containers[0];
  t.same(c.resources, { requests: { memory: '64Mi', cpu: '100m' }, limits: { cpu: '500m', memory: '128Mi' } });
  t.equal(res.object.metadata!.annotations!['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu request for container c; cpu, memory limit for container c');
});

t.test('LimitRanger: min, max and ratio refusals; PVC storage bounds', async (t) => {
  const f = await admissionFixture(['LimitRanger']);
  t.teardown(() => f.close());
  await f.registry.create(f.target('limitranges', 'default'), limitRange([
    { type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '2' } },
    { type: 'PersistentVolumeClaim', min: { storage: '1Gi' } },
  ]), write);
  await rejects(t, f.registry.create(f.target('pods', 'default'), podWith('big', { requests: { cpu: '1' }, limits: { cpu: '2' } }), write), 403, 'Forbidden',
    'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  await rejects(t, f.registry.create(f.target('pods', 'default'), podWith('ratio', { requests: { cpu: '200m' }, limits: { cpu: '1' } }), write), 403, 'Forbidden',
    'pods "ratio" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000');
  await rejects(t, f.registry.create(f.target('pods', 'default'), podWith('small', { requests: { cpu: '50m' }, limits: { cpu: '50m' } }), dryRun), 403, 'Forbidden',
    'pods "small" is forbidden: minimum cpu usage per Container is 100m, but request is 50m');
  const ok = await f.registry.create(f.target('pods', 'default'), podWith('ok', { requests: { cpu: '500m' }, limits: { cpu: '1' } }), write);
  t.ok(ok.object.metadata!.uid);
  const pvc: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '500Mi' } } } };
  await rejects(t, f.registry.create(f.target('persistentvolumeclaims', 'default'), pvc, write), 403, 'Forbidden',
    'persistentvolumeclaims "data" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
});

t.test('ResourceQuota: object counts charged at admission, refusals in kube\'s words, status.used written', async (t) => {
  const f = await admissionFixture(['ResourceQuota']);
  t.teardown(() => f.close());
  await f.registry.create(f.target('resourcequotas', 'default'), quota({ pods: '2', 'count/configmaps': '5' }), write);
  // kube enforces the quota once its controller has written status.hard
  await f.registry.create(f.target('pods', 'default'), pod('early'), write);
  await f.registry.delete(f.target('pods', 'default', 'early'), { dryRun: false });
  await account(f);
  await f.registry.create(f.target('pods', 'default'), pod('a'), write);
  let q = await f.registry.get(f.target('resourcequotas', 'default', 'q'), {});
  t.same(q.status, { hard: { pods: '2', 'count/configmaps': '5' }, used: { pods: '1', 'count/configmaps': '0' } });
  await f.registry.create(f.target('pods', 'default'), pod('b'), write);
  await rejects(t, f.registry.create(f.target('pods', 'default'), pod('c'), dryRun), 403, 'Forbidden',
    'pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
  await rejects(t, f.registry.create(f.target('pods', 'default'), pod('c'), write), 403, 'Forbidden',
    'pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
  // a deleted pod frees its unit once the controller counts again
  await f.registry.delete(f.target('pods', 'default', 'a'), { dryRun: false });
  await rejects(t, f.registry.create(f.target('pods', 'default'), pod('c'), write), 403, 'Forbidden',
    'pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
  await account(f);
  await f.registry.create(f.target('pods', 'default'), pod('c'), write);
  q = await f.registry.get(f.target('resourcequotas', 'default', 'q'), {});
  t.equal((q.status as { used: Record<string, string> }).used.pods, '2');
});

t.test('ResourceQuota: dry-run does not charge; concurrent creates cannot both take the last unit', async (t) => {
  const f = await admissionFixture(['ResourceQuota']);
  t.teardown(() => f.close());
  await f.registry.create(f.target('resourcequotas', 'default'), quota({ pods: '1' }), write);
  await account(f);
  await f.registry.create(f.target('pods', 'default'), pod('dry'), dryRun);
  t.same((await f.registry.get(f.target('resourcequotas', 'default', 'q'), {})).status?.used, { pods: '0' }, 'nothing charged by dry-run');
  const results = await Promise.allSettled(['x', 'y', 'z'].map((n) => f.registry.create(f.target('pods', 'default'), pod(n), write)));
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
});

t.test('ResourceQuota: compute resources must be specified and are summed', async (t) => {
  const f = await admissionFixture(['ResourceQuota']);
  t.teardown(() => f.close());
  await f.registry.create(f.target('resourcequotas', 'default'), quota({ 'requests.cpu': '1', 'limits.memory': '1Gi' }), write);
  await account(f);
  await rejects(t, f.registry.create(f.target('pods', 'default'), pod('bare'), write), 403, 'Forbidden',
    'pods "bare" is forbidden: failed quota: q: must specify limits.memory,requests.cpu');
  await f.registry.create(f.target('pods', 'default'), podWith('a', { requests: { cpu: '600m' }, limits: { memory: '512Mi' } }), write);
  const q = await f.registry.get(f.target('resourcequotas', 'default', 'q'), {});
  t.same((q.status as { used: unknown }).used, { 'requests.cpu': '600m', 'limits.memory': '512Mi' });
  await rejects(t, f.registry.create(f.target('pods', 'default'), podWith('b', { requests: { cpu: '600m' }, limits: { memory: '512Mi' } }), write), 403, 'Forbidden',
    'pods "b" is forbidden: exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1');
});

t.test('ResourceQuota: a status without the use of a hard resource refuses (status unknown)', async (t) => {
  const f = await admissionFixture(['ResourceQuota']);
  t.teardown(() => f.close());
  const q = (await f.registry.create(f.target('resourcequotas', 'default'), quota({ pods: '3' }), write)).object;
  await f.registry.updateStatus(f.target('resourcequotas', 'default', 'q'), { ...q, status: { hard: { pods: '3' } } }, write);
  await rejects(t, f.registry.create(f.target('pods', 'default'), pod('a'), write), 403, 'Forbidden',
    'pods "a" is forbidden: status unknown for quota: q, resource: pods');
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } };
  t.ok((await f.registry.create(f.target('configmaps', 'default'), cm, write)).object, 'kinds the quota does not count pass');
});

t.test('LimitRanger: Pod items check the sums of the containers', async (t) => {
  const f = await admissionFixture(['LimitRanger']);
  t.teardown(() => f.close());
  await f.registry.create(f.target('limitranges', 'default'), limitRange([{ type: 'Pod', max: { cpu: '1' } }]), write);
  const two = podWith('two', { requests: { cpu: '600m' }, limits: { cpu: '600m' } });
  const spec = two.spec as { containers: Array<Record<string, unknown>> };
  spec.containers.push({ ...spec.containers[0], name: 'd' });
  await rejects(t, f.registry.create(f.target('pods', 'default'), two, write), 403, 'Forbidden', 'pods "two" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m');
});
