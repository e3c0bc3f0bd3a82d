/** the listener speaks HTTP/2 (ALPN h2) beside HTTP/1.1, with SNI, version policy, client certificates and GOAWAY */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import Koa from 'koa';
import t from 'tap';
import type { Test } from 'tap';
import { DEFAULT_FRONT_PROXY_HEADERS } from '../../src/aggregator/front-proxy-headers';
import { outgoingHeaders } from '../../src/aggregator/proxy-request';
import { startServer } from '../../src/http/server';
import { servingTlsPolicy } from '../../src/server/tls-options';
import type { StartServerOptions } from '../../src/http/server';

interface Pair { cert: string; key: string }

/** openssl-made certificates; `signer` signs (else self-signed) */
function makeCert(dir: string, name: string, cn: string, sans: string[] = [], signer?: Pair & { name: string }): Pair {
  const key = path.join(dir, `${name}.key`);
  const crt = path.join(dir, `${name}.crt`);
  const ext = sans.length > 0 ? ['-addext', `subjectAltName=${sans.join(',')}`] : [];
  if (!signer) {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${cn}`, ...ext, '-keyout', key, '-out', crt], { stdio: 'ignore' });
  } else {
    const csr = path.join(dir, `${name}.csr`);
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${cn}`, '-keyout', key, '-out', csr], { stdio: 'ignore' });
    execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', path.join(dir, `${signer.name}.crt`), '-CAkey', path.join(dir, `${signer.name}.key`), '-CAcreateserial', '-days', '1', '-out', crt], { stdio: 'ignore' });
  }
  return { cert: fs.readFileSync(crt, 'utf8'), key: fs.readFileSync(key, 'utf8') };
}

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-h2-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** a tiny app that says which protocol and client certificate it saw */
function echoApp(): Koa {
  const app = new Koa();
  app.use(async (ctx) => {
    const socket = ctx.req.socket as tls.TLSSocket;
    const cert = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
    if (ctx.path === '/slow') await new Promise((r) => setTimeout(r, 200));
    ctx.body = { httpVersion: ctx.req.httpVersion, cn: cert?.subject?.CN ?? null, authorized: socket.authorized ?? null };
  });
  return app;
}

async function listen(t: Test, opts: Omit<StartServerOptions, 'bindAddress' | 'port' | 'app'>, app: Koa = echoApp()) {
  const server = await startServer({ app, bindAddress: '127.0.0.1', port: 0, ...opts });
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return { server, port: (server.address() as AddressInfo).port };
}

function h2get(session: http2.ClientHttp2Session, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': p });
    let status = 0;
    let body = '';
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve({ status, body }));
    req.on('error', reject);
    req.end();
  });
}

function connectH2(t: Test, port: number, extra: tls.ConnectionOptions = {}): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false, ...extra } as http2.SecureClientSessionOptions);
    t.teardown(() => session.destroy());
    session.once('remoteSettings', () => resolve(session));
    session.once('error', reject);
  });
}

t.test('ALPN offers h2: HTTP/2 and HTTP/1.1 clients are both served, client certificates reach the app', async (t) => {
  const dir = tmp(t);
  const serving = makeCert(dir, 'serving', '127.0.0.1', ['IP:127.0.0.1']);
  const ca = makeCert(dir, 'ca', 'test-ca');
  const client = makeCert(dir, 'client', 'alice', [], { ...ca, name: 'ca' });
  const { port } = await listen(t, { ...serving, clientCa: ca.cert });

  const alpn = await new Promise<string | false>((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
      resolve(s.alpnProtocol ?? false);
      s.end();
    });
    s.on('error', reject);
  });
  t.equal(alpn, 'h2', 'a client offering both gets h2');

  const session = await connectH2(t, port, { cert: client.cert, key: client.key });
  t.equal(session.remoteSettings.maxConcurrentStreams, 250, "0 or unset is Go's default of 250");
  const answers = await Promise.all([h2get(session, '/slow'), h2get(session, '/a'), h2get(session, '/b')]);
  for (const a of answers) t.same(JSON.parse(a.body), { httpVersion: '2.0', cn: 'alice', authorized: true }, 'three streams on one connection, the certificate seen through the session');
  t.equal(session.state.remoteWindowSize, 256 * 1024 * 250, "the connection's upload window has room for every stream's 256 KiB, as kube sizes it");

  const h1 = await new Promise<string>((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
  t.same(JSON.parse(h1), { httpVersion: '1.1', cn: null, authorized: false }, 'HTTP/1.1 without ALPN still works');
});

t.test('--http2-max-streams-per-connection is advertised', async (t) => {
  const dir = tmp(t);
  const { port } = await listen(t, { ...makeCert(dir, 'serving', 'localhost'), http2MaxStreamsPerConnection: 7 });
  const session = await connectH2(t, port);
  t.equal(session.remoteSettings.maxConcurrentStreams, 7);
});

t.test('--goaway-chance sends GOAWAY after a response on HTTP/2', async (t) => {
  const dir = tmp(t);
  const { port } = await listen(t, { ...makeCert(dir, 'serving', 'localhost'), goawayChance: 1 });
  const session = await connectH2(t, port);
  const goaway = new Promise<number>((resolve) => session.once('goaway', (code) => resolve(code)));
  const r = await h2get(session, '/');
  t.equal(r.status, 200, 'the request itself is answered');
  t.equal(await goaway, http2.constants.NGHTTP2_NO_ERROR, 'the server says GOAWAY (no error) so the client reconnects');

  // a long request chosen for GOAWAY still runs to its end: GOAWAY comes while it is open
  const again = await connectH2(t, port);
  const early = new Promise<string>((resolve) => again.once('goaway', () => resolve('goaway')));
  const slow = h2get(again, '/slow').then((x) => `answer ${x.status}`);
  t.equal(await Promise.race([early, slow]), 'goaway', 'GOAWAY arrives before the answer, as kube sends it with the headers');
  t.equal(await slow, 'answer 200', 'and the request still gets its answer');

  const off = await listen(t, { ...makeCert(dir, 'serving2', 'localhost') });
  const quiet = await connectH2(t, off.port);
  let told = false;
  quiet.once('goaway', () => (told = true));
  for (let i = 0; i < 5; i++) await h2get(quiet, '/');
  t.equal(told, false, 'no GOAWAY when the chance is 0');
});

function servedCn(port: number, servername?: string, extra: tls.ConnectionOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...(servername ? { servername } : {}), ...extra }, () => {
      resolve(String(s.getPeerCertificate().subject.CN));
      s.end();
    });
    s.on('error', reject);
  });
}

t.test('--tls-sni-cert-key: the certificate is chosen by the requested name', async (t) => {
  const dir = tmp(t);
  const def = makeCert(dir, 'default', 'default-cert');
  const one = makeCert(dir, 'one', 'one.example.com', ['DNS:one.example.com']);
  const two = makeCert(dir, 'two', 'two-cert');
  const { port } = await listen(t, {
    ...def,
    sniCertificates: [{ ...one, names: [] }, { ...two, names: ['two.example.com', '*.apps.example.com'] }],
  });
  t.equal(await servedCn(port, 'one.example.com'), 'one.example.com', "names from the certificate's SANs");
  t.equal(await servedCn(port, 'two.example.com'), 'two-cert', 'explicit names');
  t.equal(await servedCn(port, 'x.apps.example.com'), 'two-cert', 'wildcards');
  t.equal(await servedCn(port, 'unknown.example.com'), 'default-cert', 'no match: the default certificate');
  t.equal(await servedCn(port), 'default-cert', 'no SNI: the default certificate');
});

t.test('a bad SNI key pair stops the start naming the certificate', async (t) => {
  const dir = tmp(t);
  const def = makeCert(dir, 'default', 'default-cert');
  const other = makeCert(dir, 'other', 'other');
  await t.rejects(
    startServer({ app: echoApp(), bindAddress: '127.0.0.1', port: 0, ...def, sniCertificates: [{ cert: other.cert, key: def.key, names: [], source: '/x/other.crt' }] }),
    { name: 'ListenError', message: /^invalid SNI cert keypair \[0\/"\/x\/other.crt"\]: / },
  );
});

t.test('--tls-min-version=VersionTLS13 refuses a TLS 1.2-only client; --tls-cipher-suites limits TLS 1.2 suites', async (t) => {
  const dir = tmp(t);
  const serving = makeCert(dir, 'serving', 'localhost');
  const v13 = await listen(t, { ...serving, minVersion: 'TLSv1.3' });
  await t.rejects(servedCn(v13.port, undefined, { maxVersion: 'TLSv1.2' }), /protocol version|alert/i, 'a TLS 1.2 client is refused');
  t.equal(await servedCn(v13.port, undefined, { minVersion: 'TLSv1.3' }), 'localhost', 'TLS 1.3 works');

  const suites = await listen(t, { ...serving, ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384:TLS_AES_128_GCM_SHA256' });
  await t.rejects(servedCn(suites.port, undefined, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }), /handshake|alert|cipher/i, 'a suite not allowed is refused');
  const cipher = await new Promise<string>((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port: suites.port, rejectUnauthorized: false, maxVersion: 'TLSv1.2' }, () => {
      resolve(s.getCipher().name);
      s.end();
    });
    s.on('error', reject);
  });
  t.equal(cipher, 'ECDHE-ECDSA-AES256-GCM-SHA384', 'the allowed suite is used');
});

t.test('HTTP/2 pseudo-headers are not forwarded to extension servers', async (t) => {
  const dir = tmp(t);
  let forwarded: http.OutgoingHttpHeaders = {};
  const app = new Koa();
  app.use(async (ctx) => {
    forwarded = outgoingHeaders(ctx.req, { user: { name: 'alice', groups: ['g'] }, names: DEFAULT_FRONT_PROXY_HEADERS, host: 'backend:443', upgrade: false });
    ctx.body = 'ok';
  });
  const { port } = await listen(t, makeCert(dir, 'serving', 'localhost'), app);
  const session = await connectH2(t, port);
  await new Promise<void>((resolve, reject) => {
    const req = session.request({ ':path': '/apis/x/v1/things', accept: 'application/json' });
    req.on('error', reject);
    req.resume();
    req.on('end', () => resolve());
    req.end();
  });
  t.same(Object.keys(forwarded).filter((k) => k.startsWith(':')), [], 'no :method, :path, :authority or :scheme');
  t.equal(forwarded.Host, 'backend:443');
  t.equal(forwarded.accept, 'application/json', 'ordinary headers go on');
  // http.request refuses pseudo-header names; the backend request can be built from these
  t.doesNotThrow(() => http.request({ host: '127.0.0.1', port: 9, headers: forwarded }).on('error', () => {}).destroy());
});

t.test('--tls-min-version=VersionTLS10 serves TLS 1.0 clients (OpenSSL 3 needs a lower security level for that)', async (t) => {
  const dir = tmp(t);
  const policy = servingTlsPolicy({ tlsMinVersion: 'VersionTLS10', tlsCipherSuites: [], tlsSniCertKeys: [] }, () => {});
  const { port } = await listen(t, { ...makeCert(dir, 'serving', 'localhost'), ...policy });
  const old = await new Promise<string | null>((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' }, () => {
      resolve(s.getProtocol());
      s.end();
    });
    s.on('error', reject);
  });
  t.equal(old, 'TLSv1');
  const strict = await listen(t, { ...makeCert(dir, 'serving2', 'localhost'), ...servingTlsPolicy({ tlsCipherSuites: [], tlsSniCertKeys: [] }, () => {}) });
  await t.rejects(
    new Promise((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port: strict.port, rejectUnauthorized: false, minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' }, () => resolve(s.end()));
      s.on('error', reject);
    }),
    /alert|version/i,
    'without the flag TLS 1.0 is refused (the default minimum is TLS 1.2)',
  );
});
