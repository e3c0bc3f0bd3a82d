/**
 * Client certificates: the identity is read from the certificate once per connection, and the
 * validity window is still checked at every request.
 */
import https from 'node:https';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { X509Authenticator } from '../../src/auth/authn/x509';
import { makeCa, makeCert, servingPki } from '../helpers/test-pki';

t.test('one certificate read per connection; each request checks the validity window', async (t) => {
  const { dir, serverCa, serving } = servingPki(t, 'x509');
  const clientCa = makeCa(dir, 'client-ca');
  const strangerCa = makeCa(dir, 'stranger-ca');
  const user = makeCert(dir, 'user', clientCa, { commonName: 'carol', organization: 'staff', usage: 'client' });
  const stranger = makeCert(dir, 'stranger', strangerCa, { commonName: 'mallory', usage: 'client' });

  const authenticator = new X509Authenticator();
  // the server's reads (the client reads the server's certificate too: its local port is not the server's)
  let reads = 0;
  let serverPort = -1;
  const original = tls.TLSSocket.prototype.getPeerCertificate;
  tls.TLSSocket.prototype.getPeerCertificate = function (this: tls.TLSSocket, ...args: Parameters<typeof original>) {
    if (this.localPort === serverPort) reads++;
    return original.apply(this, args);
  } as typeof original;
  t.teardown(() => {
    tls.TLSSocket.prototype.getPeerCertificate = original;
  });
  const server = https.createServer({ key: serving.key, cert: serving.cert, requestCert: true, rejectUnauthorized: false, ca: [clientCa.cert] }, (req, res) => {
    authenticator.authenticate({ headers: req.headers, socket: req.socket as tls.TLSSocket }).then(
      (r) => res.end(JSON.stringify(r ?? null)),
      (err: Error) => {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: err.message }));
      },
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  serverPort = port;
  const agentFor = (cert?: { cert: string; key: string }) => new https.Agent({ keepAlive: true, maxSockets: 1, ca: serverCa.cert, ...cert });
  const get = (agent: https.Agent) =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
        })
        .on('error', reject);
    });

  const carol = agentFor({ cert: user.cert, key: user.key });
  t.teardown(() => carol.destroy());
  for (let i = 0; i < 5; i++) t.same(await get(carol), { status: 200, body: { user: { name: 'carol', groups: ['staff'] } } });
  t.equal(reads, 1, 'five requests on one connection read the certificate once');

  const realNow = Date.now;
  Date.now = () => realNow() + 30 * 24 * 3600 * 1000;
  try {
    const late = await get(carol);
    t.equal(late.status, 401, 'a certificate that expired while its connection stayed open is refused');
    t.match(late.body, { error: /certificate has expired or is not yet valid/ });
  } finally {
    Date.now = realNow;
  }
  t.equal((await get(carol)).status, 200, 'and accepted again within its window');

  const mallory = agentFor({ cert: stranger.cert, key: stranger.key });
  t.teardown(() => mallory.destroy());
  for (let i = 0; i < 2; i++) t.match(await get(mallory), { status: 401, body: { error: /mallory failed: x509: certificate signed by unknown authority/ } });
  const anonymous = agentFor();
  t.teardown(() => anonymous.destroy());
  t.same(await get(anonymous), { status: 200, body: null }, 'no certificate: no opinion');
});
