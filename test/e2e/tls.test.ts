/** the TLS serving flags on the real binary: SNI certificates, the minimum version, cipher suite and flag errors */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import t from 'tap';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';

const built = fs.existsSync(MAIN_JS);

function ballast(...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN_JS, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** an openssl-made self-signed pair; returns the file paths */
function selfSigned(dir: string, name: string, cn: string, sans: string[] = []): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  const ext = sans.length > 0 ? ['-addext', `subjectAltName=${sans.join(',')}`] : [];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${cn}`, ...ext, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}

function handshake(port: number, opts: tls.ConnectionOptions = {}): Promise<{ cn: string; protocol: string | null }> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...opts }, () => {
      resolve({ cn: String(s.getPeerCertificate().subject.CN), protocol: s.getProtocol() });
      s.end();
    });
    s.on('error', reject);
  });
}

t.test('flag errors stop the start with one line', { skip: !built && 'run make build first' }, async (t) => {
  const cipher = ballast('apiserver', '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_NOT_A_SUITE');
  t.equal(cipher.code, 1);
  t.match(cipher.stderr, /^Error: Cipher suite TLS_NOT_A_SUITE not supported or doesn't exist$/m);
  const version = ballast('apiserver', '--tls-min-version=TLS12');
  t.equal(version.code, 1);
  t.match(version.stderr, /invalid argument "TLS12" for "--tls-min-version" flag/);
  const sni = ballast('apiserver', '--tls-sni-cert-key=only-a-cert.pem');
  t.equal(sni.code, 1);
  t.match(sni.stderr, /^Error: invalid argument "only-a-cert.pem" for "--tls-sni-cert-key" flag: expected comma separated certificate and key file paths$/m);
  const goaway = ballast('apiserver', '--goaway-chance=0.5');
  t.equal(goaway.code, 1);
  t.match(goaway.stderr, /invalid argument "0.5" for "--goaway-chance" flag/);
});

t.test('a missing SNI certificate file stops the start naming it', { skip: !built && 'run make build first' }, async (t) => {
  const dir = tempDir(t, 'sni-missing');
  const r = ballast('apiserver', '--data-dir', dir, `--secure-port=${await freePort()}`, '--bind-address=127.0.0.1', `--tls-sni-cert-key=${dir}/nope.crt,${dir}/nope.key`);
  t.equal(r.code, 1);
  t.match(r.stderr, `invalid SNI cert keypair [0/"${dir}/nope.crt"]: ${dir}/nope.crt: no such file or directory`);
});

t.test('--tls-sni-cert-key serves each name its certificate', { skip: !built && 'run make build first' }, async (t) => {
  const dir = tempDir(t, 'sni');
  const alpha = selfSigned(dir, 'alpha', 'alpha.example.com', ['DNS:alpha.example.com']);
  const beta = selfSigned(dir, 'beta', 'beta-cert');
  const server = await startApiServer(t, { args: [`--tls-sni-cert-key=${alpha.cert},${alpha.key}`, `--tls-sni-cert-key=${beta.cert},${beta.key}:beta.example.com,*.beta.example.com`] });
  t.equal((await handshake(server.port, { servername: 'alpha.example.com' })).cn, 'alpha.example.com', "by the certificate's own name");
  t.equal((await handshake(server.port, { servername: 'beta.example.com' })).cn, 'beta-cert', 'by a name on the flag');
  t.equal((await handshake(server.port, { servername: 'api.beta.example.com' })).cn, 'beta-cert', 'by a wildcard on the flag');
  const fallback = await handshake(server.port, { servername: 'localhost' });
  t.not(fallback.cn, 'beta-cert', 'another name gets the default (generated) certificate');
  t.not(fallback.cn, 'alpha.example.com');
  t.equal((await server.request('GET', '/readyz')).status, 200, 'clients of the default certificate are unaffected');
});

t.test('--tls-min-version=VersionTLS13 refuses TLS 1.2 clients', { skip: !built && 'run make build first' }, async (t) => {
  const server = await startApiServer(t, { args: ['--tls-min-version=VersionTLS13', '--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_RC4_128_SHA'] });
  await t.rejects(handshake(server.port, { maxVersion: 'TLSv1.2' }), /protocol version|alert/i, 'a TLS 1.2-only client is refused');
  t.equal((await handshake(server.port)).protocol, 'TLSv1.3');
  t.match(server.output, "Use of insecure cipher 'TLS_RSA_WITH_RC4_128_SHA' detected.", 'insecure suites are accepted with a warning');
  if (!missingKubectl('1.32')) {
    const k = kubectlFor(t, '1.32', server);
    t.match(await k.ok(['get', 'namespaces']), /default/, 'kubectl (TLS 1.3) is served');
  }
});

t.test('--tls-cipher-suites limits the TLS 1.2 suites', { skip: !built && 'run make build first' }, async (t) => {
  // the generated serving key is RSA, so the RSA suites are the ones that can be negotiated
  const server = await startApiServer(t, { args: ['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'] });
  await t.rejects(handshake(server.port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' }), /alert|handshake|cipher/i, 'a suite not listed is refused');
  const cipher = await new Promise<string>((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false, maxVersion: 'TLSv1.2' }, () => {
      resolve(s.getCipher().name);
      s.end();
    });
    s.on('error', reject);
  });
  t.equal(cipher, 'ECDHE-RSA-AES256-GCM-SHA384');
  if (!missingKubectl('1.20')) {
    const k = kubectlFor(t, '1.20', server);
    t.match(await k.ok(['get', 'namespaces']), /default/, 'kubectl 1.20 is served');
  }
});
