import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import type { Authorizer } from '../../src/api/reviews/authorizer';
import { pod, write } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { admissionFixture } from './admission-fixture';

const psp = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'policy/v1beta1', kind: 'PodSecurityPolicy', metadata: { name },
  spec: { seLinux: { rule: 'RunAsAny' }, supplementalGroups: { rule: 'RunAsAny' }, runAsUser: { rule: 'RunAsAny' }, fsGroup: { rule: 'RunAsAny' }, volumes: ['*'], ...spec },
});

/** alice may use the "restricted" policy only; the admin (bob) any */
const authorizer: Authorizer = {
  async authorize(a) {
    if (a.verb !== 'use') return { allowed: true };
    return { allowed: a.user?.name === 'bob' || (a.user?.name === 'alice' && a.name === 'restricted') };
  },
};
const alice = { ...write, user: { name: 'alice', groups: [] } };
const bob = { ...write, user: { name: 'bob', groups: [] } };

const withContainer = (name: string, container: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject => {
  const p = pod(name);
  Object.assign(p.spec as object, spec);
  Object.assign((p.spec as { containers: object[] }).containers[0], container);
  return p;
};

t.test('PodSecurityPolicy: no policy refuses every pod, in kube\'s words', async (t) => {
  const f = await admissionFixture(['PodSecurityPolicy'], { authorizer });
  t.teardown(() => f.close());
  await rejects(t, f.registry.create(f.target('pods', 'default'), pod('a'), bob), 403, 'Forbidden', 'pods "a" is forbidden: unable to validate against any pod security policy: []');
});

t.test('PodSecurityPolicy: usable policies in order, defaults applied, violations listed', async (t) => {
  const f = await admissionFixture(['PodSecurityPolicy'], { authorizer });
  t.teardown(() => f.close());
  const psps = { kind: f.kind('podsecuritypolicies', 'policy', 'v1beta1') };
  await f.registry.create(psps, psp('restricted', {
    volumes: ['configMap', 'emptyDir', 'projected', 'secret'],
    runAsUser: { rule: 'MustRunAs', ranges: [{ min: 1000, max: 2000 }] },
    requiredDropCapabilities: ['ALL'],
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
  }), bob);
  await f.registry.create(psps, psp('privileged', { privileged: true, hostNetwork: true, allowedCapabilities: ['*'] }), bob);

  const made = await f.registry.create(f.target('pods', 'default'), pod('a'), alice);
  t.equal(made.object.metadata?.annotations?.['kubernetes.io/psp'], 'restricted');
  t.same((made.object.spec as { containers: Array<{ securityContext: unknown }> }).containers[0].securityContext,
    { runAsUser: 1000, capabilities: { add: [], drop: ['ALL'] }, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });

  await rejects(t, f.registry.create(f.target('pods', 'default'), withContainer('b', { securityContext: { privileged: true, runAsUser: 0 } }, { hostNetwork: true }), alice), 403, 'Forbidden',
    'pods "b" is forbidden: unable to validate against any pod security policy: [spec.securityContext.hostNetwork: Invalid value: true: Host network is not allowed to be used ' +
    'spec.containers[0].securityContext.runAsUser: Invalid value: 0: must be in the ranges: [{1000 2000}] ' +
    'spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed]');
  await rejects(t, f.registry.create(f.target('pods', 'default'), withContainer('c', { securityContext: { allowPrivilegeEscalation: true } }, { volumes: [{ name: 'h', hostPath: { path: '/etc' } }] }), alice), 403, 'Forbidden',
    'pods "c" is forbidden: unable to validate against any pod security policy: [spec.volumes[0]: Invalid value: "hostPath": hostPath volumes are not allowed to be used ' +
    'spec.containers[0].securityContext.allowPrivilegeEscalation: Invalid value: true: Allowing privilege escalation for containers is not allowed]');

  const privileged = await f.registry.create(f.target('pods', 'default'), withContainer('d', { securityContext: { privileged: true } }, { hostNetwork: true }), bob);
  t.equal(privileged.object.metadata?.annotations?.['kubernetes.io/psp'], 'privileged', 'bob may use the privileged policy');
  const plain = await f.registry.create(f.target('pods', 'default'), pod('e'), bob);
  t.equal(plain.object.metadata?.annotations?.['kubernetes.io/psp'], 'privileged', 'a policy that admits the pod unchanged comes before one that would change it');
});

t.test('PodSecurityPolicy: allowedHostPaths, read-only ones require read-only mounts', async (t) => {
  const f = await admissionFixture(['PodSecurityPolicy'], { authorizer });
  t.teardown(() => f.close());
  await f.registry.create({ kind: f.kind('podsecuritypolicies', 'policy', 'v1beta1') }, psp('hosts', {
    volumes: ['hostPath'], allowedHostPaths: [{ pathPrefix: '/var/log', readOnly: true }, { pathPrefix: '/data' }],
  }), bob);
  const mounting = (name: string, hostPath: string, readOnly: boolean) =>
    withContainer(name, { volumeMounts: [{ name: 'h', mountPath: '/h', readOnly }] }, { volumes: [{ name: 'h', hostPath: { path: hostPath } }] });
  await f.registry.create(f.target('pods', 'default'), mounting('a', '/data/x', false), bob);
  await f.registry.create(f.target('pods', 'default'), mounting('b', '/var/log', true), bob);
  await rejects(t, f.registry.create(f.target('pods', 'default'), mounting('c', '/var/log/app', false), bob), 403, 'Forbidden',
    'pods "c" is forbidden: unable to validate against any pod security policy: [spec.containers[0].volumeMounts[0].readOnly: Invalid value: false: must be read-only]');
  await rejects(t, f.registry.create(f.target('pods', 'default'), mounting('d', '/etc', true), bob), 403, 'Forbidden',
    'pods "d" is forbidden: unable to validate against any pod security policy: [spec.volumes[0].hostPath.pathPrefix: Invalid value: "/etc": is not allowed to be used]');
});

t.test('PodSecurityPolicy: group strategies default and check fsGroup, supplementalGroups and runAsGroup', async (t) => {
  const f = await admissionFixture(['PodSecurityPolicy'], { authorizer });
  t.teardown(() => f.close());
  const ranges = [{ min: 100, max: 200 }];
  await f.registry.create({ kind: f.kind('podsecuritypolicies', 'policy', 'v1beta1') }, psp('groups', {
    fsGroup: { rule: 'MustRunAs', ranges }, supplementalGroups: { rule: 'MustRunAs', ranges }, runAsGroup: { rule: 'MustRunAs', ranges },
  }), bob);
  const made = await f.registry.create(f.target('pods', 'default'), pod('a'), bob);
  t.same((made.object.spec as { securityContext: unknown }).securityContext, { fsGroup: 100, supplementalGroups: [100] });
  t.same((made.object.spec as { containers: Array<{ securityContext: unknown }> }).containers[0].securityContext, { runAsGroup: 100 });
  await rejects(t, f.registry.create(f.target('pods', 'default'), withContainer('b', { securityContext: { runAsGroup: 5 } }, { securityContext: { fsGroup: 7 } }), bob), 403, 'Forbidden',
    'pods "b" is forbidden: unable to validate against any pod security policy: [spec.securityContext.fsGroup: Invalid value: []int64{7}: group 7 must be in the ranges: [{100 200}] ' +
    'spec.containers[0].securityContext.runAsGroup: Invalid value: []int64{5}: group 5 must be in the ranges: [{100 200}]]');
});
