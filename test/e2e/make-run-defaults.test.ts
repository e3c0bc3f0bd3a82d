/**
 * What `make run` starts is safe: the flags the Makefile passes (RUN_FLAGS) serve loopback only,
 * anonymous callers may read health and version and nothing else, and the admin kubeconfig and the
 * component kubeconfigs authenticate with their kube identities.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { REPO_ROOT, kubectlFor, missingKubectl, startApiServer } from './harness';

function runFlags(): string[] {
  const makefile = fs.readFileSync(path.join(REPO_ROOT, 'Makefile'), 'utf8');
  const line = /^RUN_FLAGS := (.*)$/m.exec(makefile);
  if (!line) throw new Error('no RUN_FLAGS in the Makefile');
  return line[1].trim().split(/\s+/);
}

t.test('the flags of make run: loopback, RBAC, anonymous limited to public info', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const flags = runFlags();
  t.same(flags.slice(flags.indexOf('--bind-address'), flags.indexOf('--bind-address') + 2), ['--bind-address', '127.0.0.1'], 'loopback only');
  // the harness adds its own --bind-address 127.0.0.1 and port; RUN_FLAGS come after, as in make run
  const server = await startApiServer(t, { args: flags });
  for (const p of ['/version', '/healthz', '/readyz', '/livez']) {
    t.equal((await server.requestWithoutCert('GET', p)).status, 200, `anonymous GET ${p}`);
  }
  for (const p of ['/api/v1/namespaces', '/api/v1/namespaces/default/secrets', '/apis', '/metrics']) {
    const r = await server.requestWithoutCert('GET', p);
    t.equal(r.status, 403, `anonymous GET ${p} is forbidden`);
  }
  const write = await server.requestWithoutCert('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'x' } }), { 'content-type': 'application/json' });
  t.equal(write.status, 403, 'anonymous writes are forbidden');
  t.match(JSON.parse(write.body).message, 'User "system:anonymous" cannot create resource "configmaps" in API group "" in the namespace "default"');

  const admin = kubectlFor(t, '1.32', server);
  await admin.ok(['create', 'configmap', 'made-by-admin']);
  t.pass('the admin kubeconfig may write');

  // the component kubeconfigs authenticate with kube's identities
  for (const [file, user] of [['controller-manager', 'system:kube-controller-manager'], ['scheduler', 'system:kube-scheduler']] as const) {
    const k = kubectlFor(t, '1.32', { ...server, kubeconfig: path.join(server.dataDir, `${file}.kubeconfig`) } as typeof server);
    t.match(await k.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']), user, `${file}.kubeconfig is ${user}`);
    t.equal((await k.ok(['auth', 'can-i', 'list', 'pods', '--all-namespaces'])).trim(), 'yes', `${user} may list pods (its bootstrap role)`);
    t.equal((await k.run(['auth', 'can-i', 'create', 'clusterrolebindings'])).stdout.trim(), 'no', `${user} may not grant itself more`);
  }
  const kubelet = kubectlFor(t, '1.32', { ...server, kubeconfig: path.join(server.dataDir, 'kubelet.kubeconfig') } as typeof server);
  t.match(await kubelet.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']), /^system:node:/, 'kubelet.kubeconfig is a node');
  // NodeRestriction (kubeadm turns it on): a node agent creates mirror pods only
  const run = await kubelet.run(['run', 'not-mirror', '--image=busybox', '-n', 'default']);
  t.not(run.code, 0, 'a node cannot create an ordinary pod');
  t.match(run.stderr, 'can only create mirror pods');
});
