import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { AbacAuthorizer, loadPolicyFile, parsePolicy } from '../../src/auth/authz/abac';

const alice = { name: 'alice', groups: ['system:authenticated'] };
const bob = { name: 'bob', groups: ['ops', 'system:authenticated'] };
const anon = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

t.test('v0 policies: kube conversion defaults', async (t) => {
  t.same(parsePolicy('{"user":"alice","readonly":true,"resource":"pods"}'), { user: 'alice', group: '', readonly: true, apiGroup: '*', resource: 'pods', namespace: '*', nonResourcePath: '' });
  t.same(parsePolicy('{}'), { user: '', group: 'system:authenticated', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' });
  t.same(parsePolicy('{"user":"*","namespace":"x"}').group, 'system:authenticated');
  t.throws(() => parsePolicy('{"user":3}'), { message: 'user must be a string' });
  t.throws(() => parsePolicy('{"apiVersion":"v9","kind":"Policy"}'));
});

t.test('matching: subject, read-only, namespace, resource, group, paths', async (t) => {
  const abac = new AbacAuthorizer([
    parsePolicy('{"user":"alice","readonly":true,"resource":"pods","namespace":"dev"}'),
    parsePolicy('{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"ops","namespace":"*","resource":"deployments","apiGroup":"apps"}}'),
    parsePolicy('{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"system:unauthenticated","readonly":true,"nonResourcePath":"/version*"}}'),
  ]);
  const r = (user: typeof alice, verb: string, resource: string, namespace: string, apiGroup = '') => abac.authorize({ user, verb, resourceRequest: true, resource, namespace, apiGroup });
  t.same(await r(alice, 'list', 'pods', 'dev'), { allowed: true });
  t.same(await r(alice, 'delete', 'pods', 'dev'), { allowed: false, reason: 'No policy matched.' }, 'read-only');
  t.equal((await r(alice, 'get', 'pods', 'prod')).allowed, false);
  t.equal((await r(bob, 'delete', 'deployments', 'any', 'apps')).allowed, true);
  t.equal((await r(bob, 'delete', 'deployments', 'any', 'extensions')).allowed, false);
  t.equal((await abac.authorize({ user: anon, verb: 'get', resourceRequest: false, path: '/version/' })).allowed, true);
  t.equal((await abac.authorize({ user: anon, verb: 'get', resourceRequest: false, path: '/api' })).allowed, false);
  const rules = await abac.rulesFor(alice, 'dev');
  t.same(rules.resourceRules, [{ verbs: ['get', 'list', 'watch'], apiGroups: ['*'], resources: ['pods'] }]);
});

t.test('a policy file: comments and blank lines skipped, a bad line named', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'abac-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'policy.jsonl');
  fs.writeFileSync(file, '# comment\n\n{"user":"alice"}\n');
  t.equal(loadPolicyFile(file).length, 1);
  fs.writeFileSync(file, '{"user":"alice"}\n{"user":\n');
  t.throws(() => loadPolicyFile(file), { message: new RegExp(`^error reading policy file ${file}, line 2: \\{"user":: `) });
  t.throws(() => loadPolicyFile(path.join(dir, 'none')), { message: `error reading policy file ${path.join(dir, 'none')}: no such file or directory` });
});
