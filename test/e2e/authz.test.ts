/**
 * Authorization end to end with kubectl 1.32: --authorization-mode=Node,RBAC with token users.
 * A user without roles is refused in kube's words, a Role and RoleBinding let them in, `kubectl auth
 * can-i` (SelfSubjectAccessReview, --list through SelfSubjectRulesReview) answers from RBAC,
 * impersonation is checked, RBAC escalation is refused unless the caller may escalate, anonymous
 * callers read /version but not pods.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';

t.test('RBAC, impersonation and escalation with token users', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const dir = tempDir(t, 'authz');
  const tokens = path.join(dir, 'tokens.csv');
  fs.writeFileSync(tokens, 'secret-alice,alice,uid-alice\nsecret-bob,bob,uid-bob,"devs"\nsecret-n1,system:node:n1,uid-n1,"system:nodes"\n');
  const server = await startApiServer(t, { args: ['--authorization-mode=Node,RBAC', '--token-auth-file', tokens] });
  const admin = kubectlFor(t, '1.32', server);
  const alice = kubectlFor(t, '1.32', server, { token: 'secret-alice' });
  const bob = kubectlFor(t, '1.32', server, { token: 'secret-bob' });

  const refused = await alice.run(['get', 'pods', '-n', 'default']);
  t.not(refused.code, 0, 'alice has no role');
  t.match(refused.stderr, 'Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"');

  await admin.ok(['create', 'role', 'pod-reader', '-n', 'default', '--verb=get,list,watch', '--resource=pods']);
  await admin.ok(['create', 'rolebinding', 'alice-reads', '-n', 'default', '--role=pod-reader', '--user=alice']);
  let listed = '';
  for (let i = 0; i < 50; i++) {
    const r = await alice.run(['get', 'pods', '-n', 'default']);
    if (r.code === 0) {
      listed = r.stdout + r.stderr;
      break;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  t.match(listed, /No resources found/, 'the RoleBinding lets alice list pods');

  t.equal((await alice.run(['auth', 'can-i', 'list', 'pods', '-n', 'default'])).stdout.trim(), 'yes');
  t.equal((await alice.run(['auth', 'can-i', 'delete', 'pods', '-n', 'default'])).stdout.trim(), 'no');
  t.equal((await admin.run(['auth', 'can-i', 'list', 'pods', '-n', 'default', '--as', 'alice'])).stdout.trim(), 'yes', 'can-i --as alice');
  t.equal((await admin.run(['auth', 'can-i', 'list', 'pods', '-n', 'kube-system', '--as', 'alice'])).stdout.trim(), 'no');
  const list = await alice.ok(['auth', 'can-i', '--list', '-n', 'default']);
  t.match(list, /pods\s+\[\]\s+\[\]\s+\[get list watch\]/, 'can-i --list shows the Role');
  t.match(list, /selfsubjectaccessreviews\.authorization\.k8s\.io/, 'and the basic-user rules');

  const old = missingKubectl('1.20') ? undefined : kubectlFor(t, '1.20', server);
  if (old) {
    t.equal((await old.run(['auth', 'can-i', 'list', 'pods', '-n', 'default', '--as', 'alice'])).stdout.trim(), 'yes', 'kubectl 1.20 --as');
    t.not((await old.run(['get', 'secrets', '-n', 'default', '--as', 'alice'])).code, 0, 'kubectl 1.20 as alice is refused secrets');
  }

  // a SubjectAccessReview by the admin about alice, answered by RBAC
  const sar = await server.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', JSON.stringify({
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
    spec: { user: 'alice', groups: ['system:authenticated'], resourceAttributes: { namespace: 'default', verb: 'watch', resource: 'pods' } },
  }), { 'content-type': 'application/json' });
  t.same(JSON.parse(sar.body).status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-reads/default" of Role "pod-reader" to User "alice"' });

  // impersonation: bob may not, until a ClusterRole lets him impersonate alice
  const asAlice = await bob.run(['get', 'pods', '-n', 'default', '--as', 'alice']);
  t.not(asAlice.code, 0, 'bob may not act as alice');
  const bobAsAlice = { authorization: 'Bearer secret-bob', 'impersonate-user': 'alice' };
  const refusedImpersonation = await server.requestWithoutCert('GET', '/api/v1/namespaces/default/pods', undefined, bobAsAlice);
  t.equal(refusedImpersonation.status, 403);
  t.equal(JSON.parse(refusedImpersonation.body).message, 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
  await admin.ok(['create', 'clusterrole', 'impersonate-alice', '--verb=impersonate', '--resource=users', '--resource-name=alice']);
  await admin.ok(['create', 'clusterrolebinding', 'bob-impersonates', '--clusterrole=impersonate-alice', '--user=bob']);
  await new Promise((res) => setTimeout(res, 300));
  t.match(await bob.ok(['get', 'pods', '-n', 'default', '--as', 'alice']), /No resources found|^$/, 'bob acts as alice');
  t.equal((await bob.run(['auth', 'can-i', 'list', 'pods', '-n', 'default', '--as', 'alice'])).stdout.trim(), 'yes');
  const withGroup = await server.requestWithoutCert('GET', '/api/v1/namespaces/default/pods', undefined, { ...bobAsAlice, 'impersonate-group': 'admins' });
  t.equal(JSON.parse(withGroup.body).message, 'groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope');
  t.not((await admin.run(['get', 'pods', '-A', '--as', 'carol'])).code, 0, 'carol may not list pods');
  const whoami = await admin.json(['auth', 'whoami', '--as', 'carol', '--as-group', 'system:masters', '-o', 'json']);
  t.same((whoami.status as { userInfo: unknown }).userInfo, { username: 'carol', groups: ['system:masters', 'system:authenticated'] }, 'the admin impersonates user and group');
  t.equal((await admin.run(['get', 'pods', '-A', '--as', 'carol', '--as-group', 'system:masters'])).code, 0, 'the impersonated group decides');

  // escalation: alice may create roles only with rules she holds
  await admin.ok(['create', 'role', 'role-writer', '-n', 'default', '--verb=get,create,update,patch', '--resource=roles.rbac.authorization.k8s.io']);
  await admin.ok(['create', 'rolebinding', 'alice-writes-roles', '-n', 'default', '--role=role-writer', '--user=alice']);
  await new Promise((res) => setTimeout(res, 300));
  t.equal((await alice.run(['create', 'role', 'readers-too', '-n', 'default', '--verb=get', '--resource=pods'])).code, 0, 'a role within her rules');
  const escalate = await alice.run(['create', 'role', 'secrets', '-n', 'default', '--verb=get,list', '--resource=secrets']);
  t.match(escalate.stderr, 'Error from server (Forbidden): roles.rbac.authorization.k8s.io "secrets" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}');
  const patch = await alice.run(['patch', 'role', 'readers-too', '-n', 'default', '--type=json', '-p', '[{"op":"add","path":"/rules/-","value":{"apiGroups":[""],"resources":["configmaps"],"verbs":["delete"]}}]']);
  t.match(patch.stderr, 'roles.rbac.authorization.k8s.io "readers-too" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}', 'a patch is checked on its result');
  t.match(await alice.ok(['label', 'role', 'readers-too', '-n', 'default', 'team=a']), /labeled/, 'a patch that keeps the rules is fine');
  await admin.ok(['create', 'role', 'escalator', '-n', 'default', '--verb=escalate', '--resource=roles.rbac.authorization.k8s.io']);
  await admin.ok(['create', 'rolebinding', 'alice-escalates', '-n', 'default', '--role=escalator', '--user=alice']);
  await new Promise((res) => setTimeout(res, 300));
  t.equal((await alice.run(['create', 'role', 'secrets', '-n', 'default', '--verb=get,list', '--resource=secrets'])).code, 0, 'with escalate the same role is allowed');

  // the Node authorizer: a node reads its own Node only
  await admin.ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: ['n1', 'n2'].map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } })) }));
  const node = { authorization: 'Bearer secret-n1' };
  t.equal((await server.requestWithoutCert('GET', '/api/v1/nodes/n1', undefined, node)).status, 200, 'n1 reads its Node');
  const other = await server.requestWithoutCert('GET', '/api/v1/nodes/n2', undefined, node);
  t.equal(JSON.parse(other.body).message, `nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object`);

  // anonymous: the public info but not the API
  t.equal((await server.requestWithoutCert('GET', '/version')).status, 200, 'anonymous reads /version');
  const pods = await server.requestWithoutCert('GET', '/api/v1/pods');
  t.equal(pods.status, 403);
  t.match(JSON.parse(pods.body).message, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope');
});

t.test('AlwaysDeny refuses everyone but system:masters', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const dir = tempDir(t, 'authz-deny');
  const tokens = path.join(dir, 'tokens.csv');
  fs.writeFileSync(tokens, 'secret-alice,alice,uid-alice\n');
  const server = await startApiServer(t, { args: ['--authorization-mode=AlwaysDeny', '--token-auth-file', tokens] });
  t.equal((await kubectlFor(t, '1.32', server).run(['get', 'namespaces'])).code, 0, 'the admin is in system:masters');
  t.not((await kubectlFor(t, '1.32', server, { token: 'secret-alice' }).run(['get', 'namespaces'])).code, 0, 'alice is refused');
  const r = await server.requestWithoutCert('GET', '/api/v1/namespaces', undefined, { authorization: 'Bearer secret-alice' });
  t.equal(r.status, 403);
  t.equal(JSON.parse(r.body).message, 'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.');
});
