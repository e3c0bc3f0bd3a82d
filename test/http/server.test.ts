import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import type { Test } from 'tap';
import { Scheme } from '../../src/api/scheme';
import { createApiServerApp } from '../../src/http/app';
import { startServer } from '../../src/http/server';
import { FakeRegistry } from './fake-registry';
import { testVersion, widgetKind } from './helpers';

function selfSigned(): { cert: Buffer; key: Buffer } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-http-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { cert: fs.readFileSync(path.join(dir, 'cert.pem')), key: fs.readFileSync(path.join(dir, 'key.pem')) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function get(port: number, p: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path: p, rejectUnauthorized: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      })
      .on('error', reject);
  });
}

/** the app with the widget kind, served over HTTPS on a free port until the test ends */
async function serveWidgets(t: Test) {
  const { cert, key } = selfSigned();
  const { app } = createApiServerApp({
    scheme: new Scheme([widgetKind]),
    registry: new FakeRegistry(),
    logger: pino({ level: 'silent' }),
    health: [],
    version: testVersion,
  });
  const server = await startServer({ app, bindAddress: '127.0.0.1', port: 0, cert, key });
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  const { port } = server.address() as AddressInfo;
  return { app, cert, key, server, port };
}

t.test('startServer serves the app over HTTPS without socket timeouts', async (t) => {
  const { app, cert, key, server, port } = await serveWidgets(t);
  const r = await get(port, '/version');
  t.equal(r.status, 200);
  t.same(JSON.parse(r.body), testVersion);
  t.equal(server.timeout, 0, 'no inactivity timeout to cut quiet watches');
  t.equal(server.requestTimeout > 0, true, 'bodies must still arrive in bounded time');
  const l = await get(port, '/apis/test.ballast.io/v1/namespaces/d/widgets');
  t.equal(JSON.parse(l.body).kind, 'WidgetList');

  await t.rejects(startServer({ app, bindAddress: '127.0.0.1', port, cert, key }), { code: 'EADDRINUSE' }, 'listen errors reject');
});

t.test('an unknown method sent right behind another request is answered 405 after that request', async (t) => {
  const { port } = await serveWidgets(t);
  // both requests in one write: the parser meets FOOBAR while the first response is still being made
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      socket.write(
        'GET /apis/test.ballast.io/v1/namespaces/d/widgets HTTP/1.1\r\nHost: x\r\n\r\n' + 'FOOBAR /apis/test.ballast.io/v1/namespaces/d/widgets HTTP/1.1\r\nHost: x\r\n\r\n',
      );
    });
    let got = '';
    socket.on('data', (c) => (got += c));
    socket.on('end', () => resolve(got));
    socket.on('error', reject);
  });
  const statusLines = raw.split(/\r?\n/).filter((l) => l.startsWith('HTTP/1.1 '));
  t.same(statusLines, ['HTTP/1.1 200 OK', 'HTTP/1.1 405 Method Not Allowed'], 'both answered, in order');
  const last = JSON.parse(raw.slice(raw.lastIndexOf('\r\n\r\n') + 4));
  t.match(last, { kind: 'Status', code: 405, reason: 'MethodNotAllowed' });
});
