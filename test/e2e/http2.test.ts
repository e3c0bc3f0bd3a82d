/** the real server over HTTP/2: several watches on one connection, a stalled watch blocking nobody, kubectl negotiating h2 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { KubectlStream, kubectlFor, kubectlPath, missingKubectl, startApiServer, tempDir, waitFor } from './harness';
import type { ApiServerProcess } from './harness';
import { configMap, namespace } from './manifests';

/** an HTTP/2 session as the admin (client certificate) */
function adminSession(t: Test, server: ApiServerProcess): Promise<http2.ClientHttp2Session> {
  const pki = path.join(server.dataDir, 'pki');
  return new Promise((resolve, reject) => {
    const session = http2.connect(server.url, {
      ca: fs.readFileSync(path.join(pki, 'ca.crt')),
      cert: fs.readFileSync(path.join(pki, 'admin.crt')),
      key: fs.readFileSync(path.join(pki, 'admin.key')),
    });
    t.teardown(() => session.destroy());
    session.once('remoteSettings', () => resolve(session));
    session.once('error', reject);
  });
}

/** a watch stream whose events are collected as parsed lines */
function watch(session: http2.ClientHttp2Session, p: string) {
  const events: Array<{ type: string; object: { metadata: { name: string } } }> = [];
  const stream = session.request({ ':path': p });
  let status = 0;
  let partial = '';
  stream.on('response', (h) => (status = Number(h[':status'])));
  stream.on('data', (c: Buffer) => {
    const parts = (partial + c.toString()).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) if (line.trim() !== '') events.push(JSON.parse(line));
  });
  stream.end();
  return { stream, events, status: () => status, names: (type: string) => events.filter((e) => e.type === type).map((e) => e.object.metadata.name) };
}

function request(session: http2.ClientHttp2Session, method: string, p: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': method, ':path': p, ...(body ? { 'content-type': 'application/json' } : {}) });
    let status = 0;
    let text = '';
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', (c) => (text += c));
    req.on('end', () => resolve({ status, body: text }));
    req.on('error', reject);
    req.end(body);
  });
}

t.test('HTTP/2: watches share one connection and a stalled one blocks no other stream', async (t) => {
  const server = await startApiServer(t);
  const session = await adminSession(t, server);
  t.equal(session.alpnProtocol, 'h2', 'ALPN picks h2');
  t.equal(session.remoteSettings.maxConcurrentStreams, 250, "Go's default stream limit");

  t.equal((await request(session, 'POST', '/api/v1/namespaces', namespace('h2'))).status, 201);
  const cms = watch(session, '/api/v1/namespaces/h2/configmaps?watch=1');
  const all = watch(session, '/api/v1/configmaps?watch=true');
  const secrets = watch(session, '/api/v1/namespaces/h2/secrets?watch=1');
  // this one is never read: its flow-control window fills while the others go on
  const stalled = watch(session, '/api/v1/namespaces/h2/configmaps?watch=1');
  stalled.stream.pause();
  await waitFor('the watches to start', () => cms.status() === 200 && all.status() === 200 && secrets.status() === 200);

  const big = 'x'.repeat(200_000);
  for (let i = 0; i < 4; i++) {
    const r = await request(session, 'POST', '/api/v1/namespaces/h2/configmaps', configMap(`big-${i}`, 'h2', { big }));
    t.equal(r.status, 201, `create big-${i} on the same connection`);
  }
  await waitFor('every event on the read watches', () => cms.names('ADDED').length === 4 && all.names('ADDED').filter((n) => n.startsWith('big-')).length === 4, 20_000);
  t.same(cms.names('ADDED'), ['big-0', 'big-1', 'big-2', 'big-3'], 'the namespaced watch saw every create');
  const secret = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'h2' }, stringData: { a: 'b' } });
  t.equal((await request(session, 'POST', '/api/v1/namespaces/h2/secrets', secret)).status, 201);
  await waitFor('the secret event', () => secrets.names('ADDED').includes('s1'));
  const list = await request(session, 'GET', '/api/v1/namespaces/h2/configmaps?limit=1');
  t.equal(list.status, 200, 'a plain request still gets through');
  t.equal(session.closed || session.destroyed, false, 'all of it on one connection');
});

t.test('kubectl 1.32 watches and runs commands over HTTP/2', { skip: missingKubectl('1.32') ?? false }, async (t) => {
  const server = await startApiServer(t);
  const k = kubectlFor(t, '1.32', server);
  await k.ok(['create', '-f', '-'], namespace('kh2'));
  // Go's http2 package logs its connections with GODEBUG=http2debug=1, which shows the protocol
  const child = spawn(kubectlPath('1.32')!, ['--kubeconfig', server.kubeconfig, 'get', 'configmaps', '-n', 'kh2', '--watch', '--output-watch-events'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempDir(t, 'home'), GODEBUG: 'http2debug=1' },
  });
  const w = new KubectlStream(child);
  t.teardown(() => w.kill());
  await waitFor('the watch to start', () => /http2: Transport/.test(w.stderr) && /watch=true/.test(w.stderr));
  t.match(w.stderr, /http2: Transport creating client conn/, 'kubectl speaks HTTP/2');

  await k.ok(['create', '-f', '-'], configMap('one', 'kh2', { a: '1' }));
  t.match(await w.waitForLine(/^ADDED\s+one\s/), /one/);
  await k.ok(['label', 'configmap', 'one', '-n', 'kh2', 'x=y']);
  t.match(await w.waitForLine(/^MODIFIED\s+one\s/), /one/);
  await k.ok(['apply', '-f', '-'], configMap('two', 'kh2', { b: '2' }));
  t.match(await w.waitForLine(/^ADDED\s+two\s/), /two/);
  t.match(await k.ok(['get', 'configmaps', '-n', 'kh2']), /two\s+1\s/);
  await k.ok(['delete', 'configmap', 'one', '-n', 'kh2']);
  t.match(await w.waitForLine(/^DELETED\s+one\s/), /one/);
  t.ok(w.running, `the watch is still open (stderr: ${w.stderr.slice(-500)})`);
});

t.test('kubectl 1.20 watches over HTTP/2', { skip: missingKubectl('1.20') ?? false }, async (t) => {
  const server = await startApiServer(t, { args: ['--http2-max-streams-per-connection=50', '--goaway-chance=0.02'] });
  const k = kubectlFor(t, '1.20', server);
  await k.ok(['create', '-f', '-'], namespace('old'));
  const w = k.stream(['get', 'configmaps', '-n', 'old', '--watch', '--output-watch-events']);
  t.teardown(() => w.kill());
  for (let i = 0; i < 10; i++) await k.ok(['create', '-f', '-'], configMap(`c${i}`, 'old', { i: String(i) }));
  t.match(await w.waitForLine(/^ADDED\s+c9\s/), /c9/, 'every create seen, with GOAWAY now and then on the way');
  const session = await adminSession(t, server);
  t.equal(session.remoteSettings.maxConcurrentStreams, 50, '--http2-max-streams-per-connection is advertised');
});
