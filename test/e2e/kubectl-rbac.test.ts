/**
 * RBAC, webhook configurations, CSRs and the review kinds with real kubectl 1.20 and 1.32:
 * kubectl's create generators for roles and bindings, the bootstrap roles in `get clusterroles`
 * with kube's columns, `apply` of a webhook configuration and a CSR, `certificate approve` (the
 * approval subresource), `auth can-i --list` (SelfSubjectRulesReview) and `auth whoami` (1.32).
 */
import t from 'tap';
import { b64, rsaCsr } from '../helpers/csr';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import type { KubectlVersion } from './harness';

const VERSIONS: KubectlVersion[] = ['1.20', '1.32'];

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const webhookConfiguration = (name: string) =>
  JSON.stringify({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: 'pods.policy.example.com',
        clientConfig: { service: { namespace: 'policy', name: 'webhook', path: '/validate' } },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  });

const csr = (name: string) =>
  JSON.stringify({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: b64(rsaCsr({ commonName: name })), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], expirationSeconds: 86400 },
  });

for (const version of VERSIONS) {
  t.test(`kubectl ${version}: rbac, webhooks, certificates, reviews`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    const k = kubectlFor(t, version, server);
    const v = version.replace('.', '-');

    t.test('get clusterroles shows the bootstrap roles with kube\'s columns', async (t) => {
      const out = await k.ok(['get', 'clusterroles']);
      const lines = out.trim().split('\n');
      t.match(lines[0], /^NAME\s+CREATED AT$/);
      for (const name of ['admin', 'cluster-admin', 'edit', 'view', 'system:node', 'system:controller:deployment-controller']) {
        t.ok(lines.some((l) => new RegExp(`^${name}\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`).test(l)), name);
      }
      const bindings = await k.ok(['get', 'clusterrolebindings', 'cluster-admin', '-o', 'wide']);
      t.match(bindings, /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS/);
      t.match(bindings, /cluster-admin\s+ClusterRole\/cluster-admin\s+\S+\s+system:masters/);
      const admin = await k.json<Obj>(['get', 'clusterrole', 'admin']);
      t.ok(admin.rules.length > 10, 'admin carries the aggregated rules');
      t.match(await k.ok(['get', 'roles', '-n', 'kube-system']), /system::leader-locking-kube-scheduler/);
    });

    t.test('create clusterrole, role, rolebinding, clusterrolebinding', async (t) => {
      t.match(await k.ok(['create', 'clusterrole', `reader-${v}`, '--verb=get,list', '--resource=pods,deployments.apps']), `clusterrole.rbac.authorization.k8s.io/reader-${v} created`);
      const cr = await k.json<Obj>(['get', 'clusterrole', `reader-${v}`]);
      t.same(cr.rules, [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
      ]);
      t.match(await k.ok(['create', 'role', 'pod-reader', '-n', 'default', '--verb=get', '--resource=pods', '--resource-name=web']), 'role.rbac.authorization.k8s.io/pod-reader created');
      t.match(await k.ok(['create', 'rolebinding', `rb-${v}`, '-n', 'default', '--role=pod-reader', '--user=jane', '--serviceaccount=default:builder']), `rolebinding.rbac.authorization.k8s.io/rb-${v} created`);
      const rb = await k.json<Obj>(['get', 'rolebinding', `rb-${v}`, '-n', 'default']);
      t.same(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' });
      t.same(rb.subjects, [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' },
        { kind: 'ServiceAccount', name: 'builder', namespace: 'default' },
      ]);
      t.match(await k.ok(['create', 'clusterrolebinding', `crb-${v}`, `--clusterrole=reader-${v}`, '--group=devs']), `clusterrolebinding.rbac.authorization.k8s.io/crb-${v} created`);
      t.match(await k.ok(['get', 'clusterrolebinding', `crb-${v}`, '-o', 'wide']), new RegExp(`crb-${v}\\s+ClusterRole/reader-${v}\\s+\\S+\\s+devs`));
      // kube's validation: a ClusterRoleBinding only grants ClusterRoles; roleRef is immutable
      const bad = await k.run(['create', 'clusterrolebinding', `bad-${v}`, '--clusterrole=a/b', '--user=x']);
      t.not(bad.code, 0);
      t.match(bad.stderr, /roleRef.name: Invalid value: "a\/b": may not contain '\/'/);
      t.match(await k.ok(['delete', 'role', 'pod-reader', '-n', 'default']), 'deleted');
    });

    t.test('apply a webhook configuration', async (t) => {
      t.match(await k.ok(['apply', '-f', '-'], webhookConfiguration(`policy-${v}`)), `validatingwebhookconfiguration.admissionregistration.k8s.io/policy-${v} created`);
      const got = await k.json<Obj>(['get', 'validatingwebhookconfiguration', `policy-${v}`]);
      t.same([got.webhooks[0].failurePolicy, got.webhooks[0].timeoutSeconds, got.webhooks[0].clientConfig.service.port], ['Fail', 10, 443], 'v1 defaults');
      t.match(await k.ok(['get', 'validatingwebhookconfigurations']), new RegExp(`NAME\\s+WEBHOOKS\\s+AGE\\n(.*\\n)*policy-${v}\\s+1\\s+`));
    });

    t.test('apply a CSR, approve it, see it in the table', async (t) => {
      t.match(await k.ok(['apply', '-f', '-'], csr(`jane-${v}`)), `certificatesigningrequest.certificates.k8s.io/jane-${v} created`);
      t.match(await k.ok(['certificate', 'approve', `jane-${v}`]), `certificatesigningrequest.certificates.k8s.io/jane-${v} approved`);
      const got = await k.json<Obj>(['get', 'csr', `jane-${v}`]);
      t.same(got.status.conditions.map((c: Obj) => [c.type, c.status, c.reason]), [['Approved', 'True', 'KubectlApprove']]);
      const table = await k.ok(['get', 'csr']);
      t.match(table, /NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+(REQUESTEDDURATION\s+)?CONDITION/);
      // the requestor is whoever created the request (the admin's client certificate)
      t.match(table, new RegExp(`jane-${v}\\s+\\S+\\s+kubernetes.io/kube-apiserver-client\\s+ballast-admin\\s+(24h\\s+)?Approved`));
    });

    t.test('auth can-i --list answers AlwaysAllow\'s rules', async (t) => {
      const out = await k.ok(['auth', 'can-i', '--list']);
      t.match(out, /Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
      t.match(out, /\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/);
      t.match(out, /\[\*\]\s+\[\]\s+\[\*\]/);
      t.equal((await k.ok(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes');
    });

    if (version === '1.32') {
      t.test('auth whoami', async (t) => {
        const out = await k.ok(['auth', 'whoami']);
        t.match(out, /Username\s+ballast-admin/);
        t.match(out, /Groups\s+\[system:masters system:authenticated\]/);
      });
    }
  });
}
