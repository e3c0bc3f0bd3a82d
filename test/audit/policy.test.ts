import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { evaluatePolicy, loadPolicyFile, parsePolicy } from '../../src/audit/policy';
import type { PolicyAttributes } from '../../src/audit/policy';

const alice = { name: 'alice', groups: ['devs', 'system:authenticated'] };
const pods = (extra: Partial<PolicyAttributes> = {}): PolicyAttributes => ({
  user: alice, verb: 'get', resourceRequest: true, apiGroup: '', resource: 'pods', namespace: 'default', name: 'web', ...extra,
});

function policy(rules: string, head = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n'): ReturnType<typeof parsePolicy> {
  return parsePolicy(`${head}rules:\n${rules}`);
}

t.test('first matching rule wins; no match is None', async (t) => {
  const p = policy(`
- level: None
  users: [bob]
- level: Request
  verbs: [get]
- level: Metadata
`);
  t.equal(evaluatePolicy(p, pods({ user: { name: 'bob', groups: [] } })).level, 'None');
  t.equal(evaluatePolicy(p, pods()).level, 'Request');
  t.equal(evaluatePolicy(p, pods({ verb: 'list' })).level, 'Metadata');
  const only = policy('- level: Metadata\n  verbs: [create]\n');
  t.equal(evaluatePolicy(only, pods()).level, 'None');
});

t.test('users and userGroups', async (t) => {
  const p = policy(`
- level: RequestResponse
  userGroups: [ops]
- level: Request
  users: [alice]
`);
  t.equal(evaluatePolicy(p, pods({ user: { name: 'x', groups: ['ops'] } })).level, 'RequestResponse');
  t.equal(evaluatePolicy(p, pods()).level, 'Request');
  t.equal(evaluatePolicy(p, pods({ user: undefined })).level, 'None');
});

t.test('resources: group, subresources, wildcards, resourceNames', async (t) => {
  const p = policy(`
- level: None
  resources: [{group: "", resources: [pods/log]}]
- level: Request
  resources: [{group: "", resources: ["*/status"]}]
- level: Metadata
  resources: [{group: apps, resources: ["deployments/*"]}]
- level: RequestResponse
  resources: [{group: "", resources: [configmaps], resourceNames: [special]}]
- level: Metadata
  resources: [{group: "rbac.authorization.k8s.io"}]
`);
  t.equal(evaluatePolicy(p, pods({ subresource: 'log' })).level, 'None');
  t.equal(evaluatePolicy(p, pods({ subresource: 'status' })).level, 'Request');
  t.equal(evaluatePolicy(p, pods()).level, 'None', 'pods itself matches no rule');
  t.equal(evaluatePolicy(p, pods({ apiGroup: 'apps', resource: 'deployments', subresource: 'scale' })).level, 'Metadata');
  t.equal(evaluatePolicy(p, pods({ apiGroup: 'apps', resource: 'deployments' })).level, 'Metadata', 'resource/* matches the resource itself too (kube)');
  t.equal(evaluatePolicy(p, pods({ apiGroup: 'extensions', resource: 'deployments' })).level, 'None', 'the group must match');
  t.equal(evaluatePolicy(p, pods({ resource: 'configmaps', name: 'special' })).level, 'RequestResponse');
  t.equal(evaluatePolicy(p, pods({ resource: 'configmaps', name: 'other' })).level, 'None');
  t.equal(evaluatePolicy(p, pods({ apiGroup: 'rbac.authorization.k8s.io', resource: 'roles' })).level, 'Metadata', 'a group without resources matches all of them');
});

t.test('namespaces: "" is cluster-scoped', async (t) => {
  const p = policy(`
- level: Request
  namespaces: [""]
- level: Metadata
  namespaces: [kube-system]
`);
  t.equal(evaluatePolicy(p, pods({ namespace: undefined, resource: 'nodes' })).level, 'Request');
  t.equal(evaluatePolicy(p, pods({ namespace: 'kube-system' })).level, 'Metadata');
  t.equal(evaluatePolicy(p, pods()).level, 'None');
  t.equal(evaluatePolicy(p, { user: alice, verb: 'get', resourceRequest: false, path: '/healthz' }).level, 'None', 'namespace rules never match non-resource requests');
});

t.test('nonResourceURLs with a trailing *', async (t) => {
  const p = policy(`
- level: None
  nonResourceURLs: [/healthz*, /version]
- level: Metadata
  nonResourceURLs: ["*"]
`);
  const at = (path: string): PolicyAttributes => ({ user: alice, verb: 'get', resourceRequest: false, path });
  t.equal(evaluatePolicy(p, at('/healthz/etcd')).level, 'None');
  t.equal(evaluatePolicy(p, at('/version')).level, 'None');
  t.equal(evaluatePolicy(p, at('/version/x')).level, 'Metadata');
  t.equal(evaluatePolicy(p, pods()).level, 'None', 'URL rules never match resource requests');
});

t.test('omitStages of the policy and the rule; omitManagedFields', async (t) => {
  const p = policy(`
- level: Metadata
  verbs: [get]
  omitStages: [ResponseStarted]
  omitManagedFields: false
- level: Metadata
`, 'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nomitStages: [RequestReceived]\nomitManagedFields: true\n');
  const get = evaluatePolicy(p, pods());
  t.same(get.omitStages.sort(), ['RequestReceived', 'ResponseStarted']);
  t.equal(get.omitManagedFields, false);
  const list = evaluatePolicy(p, pods({ verb: 'list' }));
  t.same(list.omitStages, ['RequestReceived']);
  t.equal(list.omitManagedFields, true);
});

t.test('bad policies name the rule and field', async (t) => {
  t.throws(() => policy('- level: Loud\n'), /rules\[0\]\.level: Unsupported value: "Loud"/);
  t.throws(() => policy('- verbs: [get]\n'), /rules\[0\]\.level: Required value/);
  t.throws(() => policy('- level: None\n- level: None\n  omitStages: [Later]\n'), /rules\[1\]\.omitStages\[0\]: Unsupported value/);
  t.throws(() => policy('- level: None\n  nonResourceURLs: [/x]\n  namespaces: [a]\n'), /both regular resources and non-resource URLs/);
  t.throws(() => policy('- level: None\n  nonResourceURLs: ["/a*b"]\n'), /final character/);
  t.throws(() => parsePolicy('apiVersion: v1\nkind: ConfigMap\n'), /expected kind Policy/);
  t.throws(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n'), /0 rules/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-policy-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'policy.yaml');
  fs.writeFileSync(file, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n');
  t.throws(() => loadPolicyFile(file), new RegExp(`audit policy file "${file}": rules\\[0\\]\\.level`));
  t.throws(() => loadPolicyFile(path.join(dir, 'missing.yaml')), /failed to read audit policy file/);
});
