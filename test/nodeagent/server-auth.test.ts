/**
 * The agent's authentication and authorization against a real API server: the admin's client
 * certificate, bearer tokens through TokenReview, anonymous, and a user RBAC denies, with kubelet's
 * answers and the subresource each path maps to.
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import t from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RestClient } from '../../src/client/rest-client';
import { startAgentServer } from '../../src/nodeagent/server/agent-server';
import { startApiServer, tempDir } from '../e2e/harness';

function get(port: number, p: string, opts: { method?: string; token?: string; cert?: Buffer; key?: Buffer } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = opts.token ? { Authorization: `Bearer ${opts.token}` } : {};
    const req = https.request({ host: '127.0.0.1', port, path: p, method: opts.method ?? 'GET', headers, cert: opts.cert, key: opts.key, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('kubelet authn/authz against the API server', async (t) => {
  const dir = tempDir(t, 'agent-auth-');
  const tokens = path.join(dir, 'tokens.csv');
  fs.writeFileSync(tokens, 'alice-token,alice,1,"system:masters"\nbob-token,bob,2\n');
  const api = await startApiServer(t, { args: ['--authorization-mode=RBAC', '--token-auth-file', tokens] });
  const client = new RestClient(loadClientConfig(api.kubeconfig, { userAgent: 'agent-auth-test' }), { contentType: 'application/json' });
  t.teardown(() => client.close());
  const pki = path.join(api.dataDir, 'pki');
  const server = await startAgentServer({
    address: '127.0.0.1',
    port: 0,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 0,
    tls: { certDir: path.join(dir, 'agent-pki'), hostname: 'localhost' },
    authentication: { anonymous: true, clientCAFile: path.join(pki, 'ca.crt'), webhook: { enabled: true, cacheTtlMs: 60_000 } },
    authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTtlMs: 60_000, cacheUnauthorizedTtlMs: 1_000 } },
    client,
    nodeName: 'node-a',
    pods: { list: () => [], get: () => undefined },
    runningPods: async () => [],
    runtime: {} as never,
    registry: new Registry(),
    checks: new Map(),
    logger: pino({ level: 'silent' }),
  });
  t.teardown(() => server.close());

  const admin = { cert: fs.readFileSync(path.join(pki, 'admin.crt')), key: fs.readFileSync(path.join(pki, 'admin.key')) };
  t.equal((await get(server.port, '/pods', admin)).status, 200, "the admin's client certificate");
  t.equal((await get(server.port, '/healthz', admin)).body, 'ok', '/healthz on the main port is behind auth, and passes for the admin');
  t.equal((await get(server.port, '/pods', { token: 'alice-token' })).status, 200, 'a token of system:masters through TokenReview');
  t.same(await get(server.port, '/pods', { token: 'nobody' }), { status: 401, body: 'Unauthorized' }, 'an unknown token');
  t.same(await get(server.port, '/pods'), { status: 403, body: 'Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource=proxy)' });
  t.same(await get(server.port, '/healthz'), { status: 403, body: 'Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource=proxy)' });
  const bob = (p: string, method = 'GET') => get(server.port, p, { token: 'bob-token', method }).then((a) => a.body);
  t.equal(await bob('/stats/summary'), 'Forbidden (user=bob, verb=get, resource=nodes, subresource=stats)');
  t.equal(await bob('/metrics/resource'), 'Forbidden (user=bob, verb=get, resource=nodes, subresource=metrics)');
  t.equal(await bob('/logs/syslog'), 'Forbidden (user=bob, verb=get, resource=nodes, subresource=log)');
  t.equal(await bob('/spec/'), 'Forbidden (user=bob, verb=get, resource=nodes, subresource=spec)');
  t.equal(await bob('/run/ns/p/c', 'POST'), 'Forbidden (user=bob, verb=create, resource=nodes, subresource=proxy)');
  t.equal(await bob('/containerLogs/ns/p/c'), 'Forbidden (user=bob, verb=get, resource=nodes, subresource=proxy)');

  // RBAC lets bob read node stats: a new answer once the denial's cache entry expired
  await api.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'stats-reader' }, rules: [{ apiGroups: [''], resources: ['nodes/stats'], verbs: ['get'] }] }), { 'Content-Type': 'application/json' });
  await api.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'bob-stats' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'stats-reader' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }] }), { 'Content-Type': 'application/json' });
  await new Promise((r) => setTimeout(r, 1_100));
  t.equal((await get(server.port, '/stats/summary', { token: 'bob-token' })).status, 503, 'allowed now (no stats provider here: 503)');
  t.equal(await bob('/pods'), 'Forbidden (user=bob, verb=get, resource=nodes, subresource=proxy)', 'still not proxy');
});
