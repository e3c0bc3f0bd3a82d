/**
 * The real `ballast controller-manager` process against a real API server: serving with delegated
 * authentication and authorization, leader election and take-over after kill -9, clean SIGTERM,
 * per-controller service account credentials, and one-line flag errors.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import type { Test } from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RestClient } from '../../src/client/rest-client';
import { RESOURCES } from '../../src/client/resources';
import { ServiceAccountCredentials } from '../../src/controllers/manager';
import { MAIN_JS, freePort, startApiServer, waitFor, type ApiServerProcess } from './harness';

const LEADER_FLAGS = ['--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=1s'];

interface Manager {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function startManager(t: Test, server: ApiServerProcess, extra: string[]): Promise<Manager> {
  const port = await freePort();
  const kubeconfig = path.join(server.dataDir, 'controller-manager.kubeconfig');
  const child = spawn(process.execPath, [MAIN_JS, 'controller-manager', '--kubeconfig', kubeconfig, '--secure-port', String(port), '--bind-address', '127.0.0.1', ...LEADER_FLAGS, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const m = { child, port, output: () => out, exited };
  await waitFor(`controller manager on ${port}`, async () => {
    if (child.exitCode !== null) throw new Error(`the controller manager exited:\n${out}`);
    // with --secure-port=0 there is nothing to ask: wait for the campaign to begin
    if (extra.includes('--secure-port=0')) return out.includes('attempting to acquire leader lease');
    return (await get(m, '/healthz')).status === 200;
  }, 30_000);
  return m;
}

function get(m: Manager, urlPath: string, opts: { cert?: Buffer; key?: Buffer; token?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = opts.token ? { Authorization: `Bearer ${opts.token}` } : {};
    const req = https.request(`https://127.0.0.1:${m.port}${urlPath}`, { rejectUnauthorized: false, cert: opts.cert, key: opts.key, headers, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

t.test('the controller manager process', async (t) => {
  const server = await startApiServer(t, { args: ['--authorization-mode=Node,RBAC'] });
  const admin = new RestClient(loadClientConfig(server.kubeconfig), { contentType: 'application/json' });
  t.teardown(() => admin.close());
  const adminCert = { cert: fs.readFileSync(path.join(server.dataDir, 'pki', 'admin.crt')), key: fs.readFileSync(path.join(server.dataDir, 'pki', 'admin.key')) };
  const holder = async (): Promise<string> => {
    const lease = await admin.get(RESOURCES.leases, 'kube-system', 'kube-controller-manager');
    return String((lease.spec as Record<string, unknown>).holderIdentity ?? '');
  };

  const first = await startManager(t, server, ['--authentication-kubeconfig', server.kubeconfig, '--authorization-kubeconfig', server.kubeconfig, '--use-service-account-credentials']);
  const firstHolder = await waitFor('a lease holder', async () => (await holder()) || undefined);
  t.ok(first.output().includes(firstHolder), 'the first manager holds kube-system/kube-controller-manager');
  t.match(firstHolder, /^[^_]+_[0-9a-f-]{36}$/, 'identity is <hostname>_<uuid>');

  t.test('serving: health anonymously, metrics behind delegated auth', async (t) => {
    t.equal((await get(first, '/healthz')).body, 'ok');
    t.equal((await get(first, '/healthz/leaderElection')).status, 403, 'only the exact always-allowed paths skip authorization');
    t.equal((await get(first, '/healthz/leaderElection', adminCert)).body, 'ok');
    t.match((await get(first, '/readyz?verbose')).body, /\[\+\]leaderElection ok/);
    const anonymous = await get(first, '/metrics');
    t.equal(anonymous.status, 403);
    t.match(JSON.parse(anonymous.body), { kind: 'Status', reason: 'Forbidden', message: 'forbidden: User "system:anonymous" cannot get path "/metrics"' });
    const bad = await get(first, '/metrics', { token: 'not-a-token' });
    t.equal(bad.status, 401);
    t.match(JSON.parse(bad.body), { reason: 'Unauthorized', message: 'Unauthorized' });
    const metrics = await get(first, '/metrics', adminCert);
    t.equal(metrics.status, 200, 'the admin\'s certificate (client CA looked up) and a SubjectAccessReview allow it');
    t.match(metrics.body, /leader_election_master_status\{name="kube-controller-manager"\} 1/);
    t.match(metrics.body, /process_cpu_user_seconds_total/);
    const queued = await waitFor('the serviceaccount queue measured', async () => {
      const body = (await get(first, '/metrics', adminCert)).body;
      // an added key is measured once a worker takes it, so wait for both
      return /workqueue_adds_total\{name="serviceaccount"\} [1-9]/.test(body) &&
        /workqueue_queue_duration_seconds_count\{name="serviceaccount"\} [1-9]/.test(body) ? body : undefined;
    });
    t.match(queued, /workqueue_queue_duration_seconds_count\{name="serviceaccount"\} \d+/, "the controllers' work queues are measured");
    // a service account's token is checked by TokenReview, then its access by SubjectAccessReview
    await admin.create(RESOURCES.serviceAccounts, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } });
    const tr = (await admin.request('POST', '/api/v1/namespaces/default/serviceaccounts/reader/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [] } },
    })) as { status: { token: string } };
    const asReader = await get(first, '/metrics', { token: tr.status.token });
    t.equal(asReader.status, 403);
    t.match(JSON.parse(asReader.body).message, /^forbidden: User "system:serviceaccount:default:reader" cannot get path "\/metrics"/);
  });

  const second = await startManager(t, server, ['--authentication-kubeconfig', server.kubeconfig]);

  t.test('without --authorization-kubeconfig only the always-allowed paths are served', async (t) => {
    t.equal((await get(second, '/livez')).status, 200);
    const metrics = await get(second, '/metrics', adminCert);
    t.equal(metrics.status, 403);
    t.match(JSON.parse(metrics.body).message, /^forbidden: User "ballast-admin" cannot get path "\/metrics"/);
  });

  t.test('the other manager takes over when the leader is killed', async (t) => {
    t.equal(await holder(), firstHolder, 'the second waits');
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    const next = await waitFor('a new holder', async () => {
      const h = await holder();
      return h !== firstHolder && h !== '' ? h : undefined;
    }, 20_000);
    // the lease duration counts from the candidate's last sight of a renewal, then a jittered retry (up to 2.2 periods)
    t.ok(Date.now() - killedAt < 4000 + 2200 + 2000, `taken over within the lease duration and a retry: ${Date.now() - killedAt}ms`);
    t.equal(next, /attempting to acquire leader lease .*identity=(\S+)/.exec(second.output())?.[1], 'the second manager is the new holder');
  });

  t.test('SIGTERM stops cleanly', async (t) => {
    second.child.kill('SIGTERM');
    t.equal(await second.exited, 0);
  });

  t.test('losing the lease ends the process, as kube\'s "leaderelection lost"', async (t) => {
    const third = await startManager(t, server, ['--secure-port=0']);
    const mine = /attempting to acquire leader lease .*identity=(\S+)/.exec(third.output())![1];
    await waitFor('the third manager leads', async () => (await holder()) === mine, 20_000);
    // another holder writes itself into the lease on every retry period: the leader cannot renew
    let exited = false;
    void third.exited.then(() => (exited = true));
    const deadline = Date.now() + 20_000;
    while (!exited && Date.now() < deadline) {
      const lease = await admin.get(RESOURCES.leases, 'kube-system', 'kube-controller-manager');
      const now = new Date().toISOString().replace('Z', '000Z');
      await admin.update(RESOURCES.leases, { ...lease, spec: { ...(lease.spec as object), holderIdentity: 'intruder', renewTime: now } }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500));
    }
    t.ok(exited, `the leader exits:\n${third.output().split('\n').filter((l) => !l.includes('Skipping')).join('\n')}`);
    t.equal(await third.exited, 1);
    t.match(third.output(), /leaderelection lost/);
    t.not(mine, 'intruder');
  });

  t.test('--use-service-account-credentials: each controller acts as its own service account', async (t) => {
    const abort = new AbortController();
    t.teardown(() => abort.abort());
    const base = loadClientConfig(path.join(server.dataDir, 'controller-manager.kubeconfig'));
    const managerClient = new RestClient(base, { contentType: 'application/json' });
    const sa = new ServiceAccountCredentials({ client: managerClient, base, qps: -1, burst: 10, contentType: 'application/json', logger: pino({ level: 'silent' }) });
    t.teardown(() => {
      sa.close();
      managerClient.close();
    });
    await sa.prepare(['replicaset'], abort.signal);
    await admin.get(RESOURCES.serviceAccounts, 'kube-system', 'replicaset-controller');
    const client = sa.clients.get('replicaset')!;
    t.ok(client.config.token, 'a TokenRequest token');
    // system:controller:replicaset-controller may list pods, not secrets
    await client.list(RESOURCES.pods, 'default');
    await t.rejects(client.list(RESOURCES.secrets, 'default'), { code: 403 });
    // the manager process made the accounts of its controllers, under kube's names, and each may do its work
    for (const account of ['service-account-controller', 'node-controller', 'generic-garbage-collector', 'root-ca-cert-publisher']) {
      await waitFor(`${account} account`, () => admin.get(RESOURCES.serviceAccounts, 'kube-system', account));
    }
    t.notOk(await admin.get(RESOURCES.serviceAccounts, 'kube-system', 'serviceaccount-token-controller').catch(() => undefined), 'the token controller uses the manager\'s own credentials');
    // (test/e2e/all.test.ts runs the controllers under these accounts: a Deployment's pods come up)
  });
});

t.test('bad flags are one-line errors', async (t) => {
  for (const flag of ['--controllers=bogus', '--leader-elect-resource-lock=foo']) {
    const r = spawnSync(process.execPath, [MAIN_JS, 'controller-manager', '--kubeconfig', '/nonexistent', flag], { encoding: 'utf8' });
    t.equal(r.status, 1, flag);
    const lines = r.stderr.trim().split('\n');
    t.equal(lines.length, 2, `${flag}: the error and the usage hint`);
    t.match(lines[0], /^Error: /);
    t.equal(lines[1], "Run 'ballast controller-manager --help' for usage.");
  }
});
