import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { createWebhookSink, loadWebhookKubeconfig } from '../../src/audit/webhook-sink';
import type { AuditEvent } from '../../src/audit/types';

const ev: AuditEvent = {
  kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: 'w1', stage: 'ResponseComplete', requestURI: '/', verb: 'get',
  user: {}, requestReceivedTimestamp: '', stageTimestamp: '',
};

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-webhook-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function listen(t: Test, server: http.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as AddressInfo).port;
}

t.test('a failed call is retried after the initial backoff; giving up throws', async (t) => {
  const bodies: string[] = [];
  let failures = 2;
  const port = await listen(t, http.createServer((req, res) => {
    let b = '';
    req.on('data', (c) => (b += c)).on('end', () => {
      if (failures-- > 0) return res.writeHead(503).end();
      bodies.push(b);
      res.writeHead(200).end('{}');
    });
  }));
  const target = { url: new URL(`http://127.0.0.1:${port}/`), insecureSkipTlsVerify: false };
  await createWebhookSink({ target, version: 'audit.k8s.io/v1', initialBackoffMs: 10 }).write([ev]);
  t.equal(bodies.length, 1);
  t.match(JSON.parse(bodies[0]), { kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: [{ auditID: 'w1' }] });
  failures = 100;
  await t.rejects(createWebhookSink({ target, version: 'audit.k8s.io/v1', initialBackoffMs: 1, attempts: 3 }).write([ev]), /answered 503/);
});

t.test('HTTPS with the kubeconfig CA and client certificate', async (t) => {
  const dir = tmp(t);
  const ssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  const subj = (cn: string) => ['-subj', `/CN=${cn}`, '-addext', 'subjectAltName=IP:127.0.0.1'];
  ssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', ...subj('hook'), '-keyout', path.join(dir, 'srv.key'), '-out', path.join(dir, 'srv.crt')]);
  ssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=apiserver', '-keyout', path.join(dir, 'cli.key'), '-out', path.join(dir, 'cli.crt')]);
  const seen: string[] = [];
  const server = https.createServer(
    { cert: fs.readFileSync(path.join(dir, 'srv.crt')), key: fs.readFileSync(path.join(dir, 'srv.key')), ca: fs.readFileSync(path.join(dir, 'cli.crt')), requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      seen.push((req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject.CN);
      req.resume().on('end', () => res.writeHead(200).end());
    },
  );
  const port = await listen(t, server);
  const kubeconfig = path.join(dir, 'hook.yaml');
  fs.writeFileSync(kubeconfig, `clusters:
- name: c
  cluster: {server: "https://127.0.0.1:${port}/", certificate-authority: srv.crt}
users:
- name: u
  user: {client-certificate: cli.crt, client-key-data: ${fs.readFileSync(path.join(dir, 'cli.key')).toString('base64')}}
`);
  const target = loadWebhookKubeconfig(kubeconfig);
  await createWebhookSink({ target, version: 'audit.k8s.io/v1', initialBackoffMs: 10, attempts: 1 }).write([ev]);
  t.same(seen, ['apiserver'], 'the client certificate was presented and the server trusted');
});

t.test('a bad kubeconfig is one line naming the file', async (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'bad.yaml');
  fs.writeFileSync(file, 'clusters: []\n');
  t.throws(() => loadWebhookKubeconfig(file), { message: `invalid audit webhook config file "${file}": no cluster with a server` });
  fs.writeFileSync(file, 'clusters: [{cluster: {server: "https://x"}}]\nusers: [{user: {client-certificate: missing.crt}}]\n');
  t.throws(() => loadWebhookKubeconfig(file), /invalid audit webhook config file .*: client-certificate: ENOENT/);
});
