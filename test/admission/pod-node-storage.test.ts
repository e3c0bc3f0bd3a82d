import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { configMap, pod, write, dryRun } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { admissionFixture } from './admission-fixture';

const priorityClass = (name: string, value: number, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...extra });

t.test('Priority: class name to priority and preemptionPolicy; global default; refusals', async (t) => {
  const f = await admissionFixture(['Priority']);
  t.teardown(() => f.close());
  const pcTarget = { kind: f.kind('priorityclasses', 'scheduling.k8s.io') };
  const plain = await f.registry.create(f.target('pods', 'default'), pod('plain'), write);
  t.match(plain.object.spec, { priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
  await f.registry.create(pcTarget, priorityClass('high', 1000, { preemptionPolicy: 'Never' }), write);
  await f.registry.create(pcTarget, priorityClass('low', 10, { globalDefault: true }), write);
  await rejects(t, f.registry.create(pcTarget, priorityClass('other', 5, { globalDefault: true }), write), 403, 'Forbidden',
    'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass low is already marked as default. Only one default can exist');
  const byDefault = await f.registry.create(f.target('pods', 'default'), pod('d'), write);
  t.match(byDefault.object.spec, { priorityClassName: 'low', priority: 10 });
  const high = pod('h');
  (high.spec as Record<string, unknown>).priorityClassName = 'high';
  t.match((await f.registry.create(f.target('pods', 'default'), high, write)).object.spec, { priority: 1000, preemptionPolicy: 'Never' });
  const missing = pod('m');
  (missing.spec as Record<string, unknown>).priorityClassName = 'nope';
  await rejects(t, f.registry.create(f.target('pods', 'default'), missing, write), 403, 'Forbidden', 'pods "m" is forbidden: no PriorityClass with name nope was found');
  const wrong = pod('w');
  Object.assign(wrong.spec as object, { priorityClassName: 'high', priority: 5 });
  await rejects(t, f.registry.create(f.target('pods', 'default'), wrong, dryRun), 403, 'Forbidden',
    'pods "w" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name');
});

t.test('DefaultTolerationSeconds: the two NoExecute tolerations from the flags, unless already tolerated', async (t) => {
  const f = await admissionFixture(['DefaultTolerationSeconds'], { flags: { defaultNotReadyTolerationSeconds: 60, defaultUnreachableTolerationSeconds: 120 } });
  t.teardown(() => f.close());
  const res = await f.registry.create(f.target('pods', 'default'), pod('p'), write);
  t.same((res.object.spec as { tolerations: unknown }).tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
  ]);
  const all = pod('q');
  (all.spec as Record<string, unknown>).tolerations = [{ operator: 'Exists' }];
  t.same((await f.registry.create(f.target('pods', 'default'), all, write)).object.spec!.tolerations, [{ operator: 'Exists' }]);
});

t.test('TaintNodesByCondition: a new node starts not-ready:NoSchedule', async (t) => {
  const f = await admissionFixture(['TaintNodesByCondition']);
  t.teardown(() => f.close());
  const res = await f.registry.create(f.target('nodes'), { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }, write);
  t.same((res.object.spec as { taints: unknown }).taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
});

t.test('DefaultStorageClass, StorageObjectInUseProtection and PersistentVolumeClaimResize', async (t) => {
  const f = await admissionFixture(['DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize']);
  t.teardown(() => f.close());
  const sc = { kind: f.kind('storageclasses', 'storage.k8s.io') };
  await f.registry.create(sc, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fixed', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'x' }, write);
  await f.registry.create(sc, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'grows' }, provisioner: 'x', allowVolumeExpansion: true }, write);
  const claim = (name: string, storageClassName?: string): KubeObject => ({
    apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...(storageClassName ? { storageClassName } : {}) },
  });
  const res = await f.registry.create(f.target('persistentvolumeclaims', 'default'), claim('a'), write);
  t.equal((res.object.spec as { storageClassName: string }).storageClassName, 'fixed');
  t.same(res.object.metadata!.finalizers, ['kubernetes.io/pvc-protection']);
  // kube's validation lets only bound claims change their request
  await f.registry.patchStatus(f.target('persistentvolumeclaims', 'default', 'a'), 'merge', '{"status":{"phase":"Bound"}}', write);
  await rejects(t, f.registry.patch(f.target('persistentvolumeclaims', 'default', 'a'), 'merge', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}', write), 403, 'Forbidden',
    'persistentvolumeclaims "a" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
  t.equal((await f.registry.create(f.target('persistentvolumeclaims', 'default'), claim('b', 'grows'), write)).object.spec!.storageClassName, 'grows');
});

t.test('AlwaysDeny refuses every write, dry-run included; AlwaysPullImages; SecurityContextDeny', async (t) => {
  const deny = await admissionFixture(['AlwaysDeny'], {});
  t.teardown(() => deny.close());
  const alice = { name: 'alice', groups: ['system:authenticated'] };
  await rejects(t, deny.registry.create(deny.target('configmaps', 'default'), configMap('cm'), { dryRun: true, user: alice }), 403, 'Forbidden',
    'configmaps "cm" is forbidden: admission control is denying all modifications');
  t.ok((await deny.registry.create(deny.target('configmaps', 'default'), configMap('own'), write)).object, 'the server\'s own writes (no user) pass');
  const f = await admissionFixture(['AlwaysPullImages', 'SecurityContextDeny']);
  t.teardown(() => f.close());
  const res = await f.registry.create(f.target('pods', 'default'), pod('p'), write);
  t.equal((res.object.spec as { containers: Array<{ imagePullPolicy: string }> }).containers[0].imagePullPolicy, 'Always');
  const root = pod('r');
  (root.spec as Record<string, unknown>).securityContext = { runAsUser: 0 };
  await rejects(t, f.registry.create(f.target('pods', 'default'), root, write), 403, 'Forbidden', 'pods "r" is forbidden: pod.Spec.SecurityContext.RunAsUser is forbidden');
});

t.test('RuntimeClass: a missing class is refused; overhead, node selector and tolerations from the class', async (t) => {
  const f = await admissionFixture(['RuntimeClass']);
  t.teardown(() => f.close());
  const rcTarget = { kind: f.kind('runtimeclasses', 'node.k8s.io') };
  await f.registry.create(rcTarget, {
    apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'gvisor' }, handler: 'runsc',
    overhead: { podFixed: { cpu: '250m' } },
    scheduling: { nodeSelector: { sandbox: 'yes' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
  }, write);
  const missing = pod('m');
  (missing.spec as Record<string, unknown>).runtimeClassName = 'kata';
  await rejects(t, f.registry.create(f.target('pods', 'default'), missing, write), 403, 'Forbidden', 'pods "m" is forbidden: pod rejected: RuntimeClass "kata" not found');
  const p = pod('p');
  (p.spec as Record<string, unknown>).runtimeClassName = 'gvisor';
  const res = await f.registry.create(f.target('pods', 'default'), p, write);
  t.match(res.object.spec, { overhead: { cpu: '250m' }, nodeSelector: { sandbox: 'yes' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] });
  const conflict = pod('c');
  Object.assign(conflict.spec as object, { runtimeClassName: 'gvisor', nodeSelector: { sandbox: 'no' } });
  await rejects(t, f.registry.create(f.target('pods', 'default'), conflict, write), 403, 'Forbidden',
    'pods "c" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = yes; pod.spec.nodeSelector[sandbox] = no');
});

t.test('DenyServiceExternalIPs and ExtendedResourceToleration', async (t) => {
  const f = await admissionFixture(['DenyServiceExternalIPs', 'ExtendedResourceToleration']);
  t.teardown(() => f.close());
  const svc = (externalIPs?: string[]): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }], ...(externalIPs ? { externalIPs } : {}) } });
  await rejects(t, f.registry.create(f.target('services', 'default'), svc(['1.2.3.4']), write), 403, 'Forbidden',
    'services "s" is forbidden: spec.externalIPs: Forbidden: use of external IPs is denied by admission control');
  t.ok((await f.registry.create(f.target('services', 'default'), svc(), write)).object);
  const gpu = pod('g');
  (gpu.spec as { containers: Array<Record<string, unknown>> }).containers[0].resources = { limits: { 'example.com/gpu': '1' } };
  const res = await f.registry.create(f.target('pods', 'default'), gpu, write);
  t.same(res.object.spec!.tolerations, [{ key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' }]);
});
