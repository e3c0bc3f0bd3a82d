import t from 'tap';
import { configMap, pod, namespace, write, dryRun } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { admissionFixture } from './admission-fixture';

t.test('NamespaceLifecycle: a missing namespace is a 404, a terminating one a 403 with its cause', async (t) => {
  const f = await admissionFixture(['NamespaceLifecycle']);
  t.teardown(() => f.close());
  await rejects(t, f.registry.create(f.target('configmaps', 'nowhere'), configMap('cm', 'nowhere'), write), 404, 'NotFound', 'namespaces "nowhere" not found');
  await f.registry.create(f.target('namespaces'), namespace('going'), write);
  await f.registry.create(f.target('configmaps', 'going'), configMap('keep', 'going'), write);
  await f.registry.delete(f.target('namespaces', undefined, 'going'), write);
  const status = await rejects(t, f.registry.create(f.target('configmaps', 'going'), configMap('cm', 'going'), write), 403, 'Forbidden',
    'configmaps "cm" is forbidden: unable to create new content in namespace going because it is being terminated');
  t.equal(status?.details?.causes?.[0]?.reason, 'NamespaceTerminating');
});

t.test('without NamespaceLifecycle (disabled) content may be created in a missing namespace, as in kube', async (t) => {
  const f = await admissionFixture(['AlwaysAdmit']);
  t.teardown(() => f.close());
  const res = await f.registry.create(f.target('configmaps', 'nowhere'), configMap('cm', 'nowhere'), write);
  t.equal(res.object.metadata!.namespace, 'nowhere');
});

t.test('NamespaceExists and NamespaceAutoProvision', async (t) => {
  const exists = await admissionFixture(['NamespaceExists']);
  t.teardown(() => exists.close());
  await rejects(t, exists.registry.create(exists.target('configmaps', 'nowhere'), configMap('cm', 'nowhere'), write), 404, 'NotFound');
  const auto = await admissionFixture(['NamespaceAutoProvision', 'NamespaceLifecycle']);
  t.teardown(() => auto.close());
  await auto.registry.create(auto.target('configmaps', 'fresh'), configMap('cm', 'fresh'), write);
  t.equal((await auto.registry.get(auto.target('namespaces', undefined, 'fresh'), {})).metadata!.name, 'fresh');
});

t.test('ServiceAccount: the default account, the projected token volume in every container', async (t) => {
  const f = await admissionFixture(['NamespaceLifecycle', 'ServiceAccount']);
  t.teardown(() => f.close());
  const body = pod('p');
  (body.spec as { initContainers: unknown[] }).initContainers = [{ name: 'init', image: 'busybox' }];
  const res = await f.registry.create(f.target('pods', 'default'), body, write);
  const spec = res.object.spec as { serviceAccountName: string; volumes: Array<{ name: string; projected?: { sources: unknown[] } }>; containers: Array<{ volumeMounts: unknown[] }>; initContainers: Array<{ volumeMounts: unknown[] }> };
  t.equal(spec.serviceAccountName, 'default');
  t.equal(spec.volumes.length, 1);
  t.match(spec.volumes[0].name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  t.match(spec.volumes[0].projected, { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3607 } }, { configMap: { name: 'kube-root-ca.crt' } }, { downwardAPI: {} }] });
  for (const c of [...spec.containers, ...spec.initContainers]) {
    t.same(c.volumeMounts, [{ name: spec.volumes[0].name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
  }
  // the default account now exists (Ballast creates it in place of kube's service account controller)
  t.ok(await f.registry.get(f.target('serviceaccounts', 'default', 'default'), {}));
});

t.test('ServiceAccount: a missing named account is refused; automount off leaves the pod alone', async (t) => {
  const f = await admissionFixture(['ServiceAccount']);
  t.teardown(() => f.close());
  const named = pod('p');
  (named.spec as Record<string, unknown>).serviceAccountName = 'robot';
  await rejects(t, f.registry.create(f.target('pods', 'default'), named, write), 403, 'Forbidden',
    'pods "p" is forbidden: error looking up service account default/robot: serviceaccount "robot" not found');
  await rejects(t, f.registry.create(f.target('pods', 'default'), named, dryRun), 403, 'Forbidden');
  await f.registry.create(f.target('serviceaccounts', 'default'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' }, automountServiceAccountToken: false }, write);
  const res = await f.registry.create(f.target('pods', 'default'), named, write);
  t.equal((res.object.spec as { volumes?: unknown[] }).volumes, undefined, 'the account switches automount off');
  const own = pod('q');
  (own.spec as Record<string, unknown>).automountServiceAccountToken = false;
  const res2 = await f.registry.create(f.target('pods', 'default'), own, write);
  t.equal((res2.object.spec as { volumes?: unknown[] }).volumes, undefined, 'the pod switches automount off');
});
