import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import t from 'tap';
import { authenticatorChain } from '../../src/auth/authenticator';
import { onlyCertificatesOf, parseCaBundle } from '../../src/auth/authn/cert-chain';
import { RequestHeaderAuthenticator } from '../../src/auth/authn/request-header';
import { X509Authenticator } from '../../src/auth/authn/x509';
import { authentication } from '../../src/http/middleware/authentication';
import { makeCa, makeCert, servingPki } from '../helpers/test-pki';
import type { TestCert } from '../helpers/test-pki';

t.test('front-proxy users from request headers, behind a proxy certificate', async (t) => {
  const { dir, serverCa, serving } = servingPki(t, 'request-header');
  const clientCa = makeCa(dir, 'client-ca');
  const proxyCa = makeCa(dir, 'proxy-ca');
  const strangerCa = makeCa(dir, 'stranger-ca');
  const proxy = makeCert(dir, 'proxy', proxyCa, { commonName: 'front-proxy-client', usage: 'client' });
  const otherProxy = makeCert(dir, 'other-proxy', proxyCa, { commonName: 'other-proxy', usage: 'client' });
  const user = makeCert(dir, 'user', clientCa, { commonName: 'carol', organization: 'staff', usage: 'client' });
  const stranger = makeCert(dir, 'stranger', strangerCa, { commonName: 'front-proxy-client', usage: 'client' });

  const chain = authenticatorChain([
    new RequestHeaderAuthenticator({
      roots: parseCaBundle(proxyCa.cert),
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User', 'X-Proxy-User'],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
    }),
    onlyCertificatesOf(parseCaBundle(clientCa.cert), new X509Authenticator()),
  ], { anonymous: true });
  const middleware = authentication(chain);

  // the listener takes certificates of both CAs; each authenticator checks its own
  const server = https.createServer({ key: serving.key, cert: serving.cert, requestCert: true, rejectUnauthorized: false, ca: [clientCa.cert, proxyCa.cert] }, (req, res) => {
    const ctx = { req, method: req.method, url: req.url, state: { log: { debug: () => {} } } as Record<string, any> };
    middleware(ctx as never, async () => {})
      .then(() => res.end(JSON.stringify({ user: ctx.state.user, headers: req.headers })))
      .catch((err: Error & { code?: number }) => {
        res.statusCode = err.code ?? 500;
        res.end(JSON.stringify({ error: err.message }));
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;

  const get = (client: TestCert | undefined, headers: Record<string, string | string[]>) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, path: '/', ca: serverCa.cert, headers, ...(client ? { cert: client.cert, key: client.key } : {}), agent: false }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(body) }));
      });
      req.on('error', reject);
      req.end();
    });

  const headers = { 'X-Remote-User': 'alice', 'X-Remote-Group': ['devs', 'ops'], 'X-Remote-Extra-Scopes': 'read', 'X-Remote-Extra-Acme.com%2Fteam': 'blue', 'X-Other': 'kept' };
  const viaProxy = await get(proxy, headers);
  t.equal(viaProxy.status, 200);
  t.same(viaProxy.body.user, { name: 'alice', groups: ['devs', 'ops', 'system:authenticated'], extra: { scopes: ['read'], 'acme.com/team': ['blue'] } }, 'user, groups and extra (keys lower-cased and unescaped)');
  t.notOk('x-remote-user' in viaProxy.body.headers, 'the username header is removed');
  t.notOk('x-remote-group' in viaProxy.body.headers, 'group headers are removed');
  t.notOk(Object.keys(viaProxy.body.headers).some((h) => h.startsWith('x-remote-extra-')), 'extra headers are removed');
  t.equal(viaProxy.body.headers['x-other'], 'kept');

  const second = await get(proxy, { 'X-Remote-User': '', 'X-Proxy-User': 'bob' });
  t.equal(second.body.user.name, 'bob', 'the first non-empty username header');

  t.equal((await get(otherProxy, headers)).status, 401, 'a common name outside --requestheader-allowed-names');
  t.equal((await get(stranger, headers)).status, 401, 'a certificate of another CA');
  t.equal((await get(proxy, {})).status, 401, 'a proxy certificate without a user header is not a user itself');

  const direct = await get(user, { 'X-Remote-User': 'mallory' });
  t.same(direct.body.user, { name: 'carol', groups: ['staff', 'system:authenticated'] }, 'a client CA certificate cannot set the headers');
  t.equal(direct.body.headers['x-remote-user'], 'mallory', 'and they are not consumed');

  const anonymous = await get(undefined, { 'X-Remote-User': 'alice' });
  t.equal(anonymous.body.user.name, 'system:anonymous', 'headers without a certificate mean nothing');
});

t.test('errors in kube\'s words', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'request-header-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const proxyCa = makeCa(dir, 'proxy-ca');
  const otherCa = makeCa(dir, 'other-ca');
  const proxy = makeCert(dir, 'proxy', proxyCa, { commonName: 'other-proxy', usage: 'client' });
  const foreign = makeCert(dir, 'foreign', otherCa, { commonName: 'front-proxy-client', usage: 'client' });
  const socketOf = (c: TestCert) => ({ getPeerCertificate: () => ({ raw: Buffer.from(c.cert.replace(/-----[^-]+-----|\s/g, ''), 'base64') }) }) as unknown as TLSSocket;
  const authn = new RequestHeaderAuthenticator({ roots: parseCaBundle(proxyCa.cert), allowedNames: ['front-proxy-client'], usernameHeaders: ['x-remote-user'], groupHeaders: [], extraHeaderPrefixes: [] });
  await t.rejects(authn.authenticate({ headers: { 'x-remote-user': 'a' }, socket: socketOf(proxy) }), { message: 'x509: subject with cn=other-proxy is not in the allowed list' });
  await t.rejects(authn.authenticate({ headers: { 'x-remote-user': 'a' }, socket: socketOf(foreign) }), { message: /^verifying certificate .* failed: x509: certificate signed by unknown authority$/ });
  const anyName = new RequestHeaderAuthenticator({ roots: parseCaBundle(proxyCa.cert), allowedNames: [], usernameHeaders: ['x-remote-user'], groupHeaders: [], extraHeaderPrefixes: [] });
  t.equal((await anyName.authenticate({ headers: { 'x-remote-user': 'a' }, socket: socketOf(proxy) }))?.user.name, 'a', 'no allowed names: any certificate of the CA');
  t.throws(() => parseCaBundle('not a certificate'), { message: 'data does not contain any valid RSA or ECDSA certificates' });
});
