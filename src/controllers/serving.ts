/**
 * The controller manager's HTTPS endpoint (kube-controller-manager's secure serving): /healthz (and
 * each check under it, e.g. /healthz/leaderElection), /livez, /readyz and /metrics, behind
 * delegated authentication and authorization. Without --tls-cert-file a self-signed CA and serving
 * certificate for localhost are made at start, as kube does, kept in --cert-dir when it is given.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type forge from 'node-forge';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ServingConfig } from '../options/controller-manager';
import type { DelegatedAuth } from './delegated-auth';
import { baseCertificate, newKeyPair } from '../server/pki';
import { lazy } from '../util/lazy';

/** node-forge (0.9 MB of JavaScript) is loaded the first time it is needed */
const forgeLib = lazy(() => require('node-forge') as typeof forge);

/** a named health check: undefined when healthy, else why not */
export type HealthCheck = () => string | undefined;

export interface ControllerManagerServerOptions {
  serving: ServingConfig;
  /** delegated authentication and authorization; absent on a plain-HTTP (insecure) port, which serves anyone */
  auth?: DelegatedAuth;
  registry: Registry;
  /** checks of /healthz, /livez and /readyz besides ping */
  checks: ReadonlyMap<string, HealthCheck>;
  logger: Logger;
  /** file stem of the certificate kept in --cert-dir */
  certName?: string;
}

export interface ServingCertificate {
  cert: string;
  key: string;
  /** the CA to trust for a generated certificate */
  ca?: string;
}

const utf8 = (): forge.asn1.Class => forgeLib().asn1.Type.UTF8 as unknown as forge.asn1.Class;

function newCertificate(publicKey: forge.pki.PublicKey, cn: string, now: number): forge.pki.Certificate {
  const cert = baseCertificate(publicKey, now, 365);
  cert.setSubject([{ name: 'commonName', value: cn, valueTagClass: utf8() }]);
  return cert;
}

/** kube's GenerateSelfSignedCertKey for "localhost": a CA `localhost-ca@<time>` signing `localhost@<time>` */
export function selfSignedCertificate(now = Date.now()): ServingCertificate {
  const stamp = Math.floor(now / 1000);
  const ca = newKeyPair();
  const caCert = newCertificate(ca.publicKey, `localhost-ca@${stamp}`, now);
  caCert.setIssuer(caCert.subject.attributes);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true, critical: true },
  ]);
  caCert.sign(ca.privateKey, forgeLib().md.sha256.create());
  const leaf = newKeyPair();
  const cert = newCertificate(leaf.publicKey, `localhost@${stamp}`, now);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
  ]);
  cert.sign(ca.privateKey, forgeLib().md.sha256.create());
  const caPem = forgeLib().pki.certificateToPem(caCert);
  return { cert: forgeLib().pki.certificateToPem(cert) + caPem, key: leaf.keyPem, ca: caPem };
}

/** the serving pair: the given files, else one kept in --cert-dir, else a fresh one in memory */
export function servingCertificate(serving: ServingConfig, name: string): ServingCertificate {
  if (serving.tlsCertFile && serving.tlsPrivateKeyFile) {
    return { cert: fs.readFileSync(serving.tlsCertFile, 'utf8'), key: fs.readFileSync(serving.tlsPrivateKeyFile, 'utf8') };
  }
  if (!serving.certDir) return selfSignedCertificate();
  const certFile = path.join(serving.certDir, `${name}.crt`);
  const keyFile = path.join(serving.certDir, `${name}.key`);
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) return { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8') };
  const made = selfSignedCertificate();
  fs.mkdirSync(serving.certDir, { recursive: true });
  fs.writeFileSync(keyFile, made.key, { mode: 0o600 });
  fs.writeFileSync(certFile, made.cert, { mode: 0o644 });
  return made;
}

/** kube's Status bodies for refused requests */
function status(res: ServerResponse, code: 401 | 403 | 500, message: string): void {
  const reason = code === 401 ? 'Unauthorized' : code === 403 ? 'Forbidden' : 'InternalError';
  const body: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (code === 403) body.details = {};
  res.writeHead(code, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' });
  res.end(JSON.stringify(body));
}

/**
 * A control-plane component's own endpoint: HTTPS with delegated authentication (the secure port),
 * or, without a certificate, the deprecated plain-HTTP port that answers anyone.
 */
export class ControllerManagerServer {
  readonly #server: https.Server | http.Server;
  readonly #o: ControllerManagerServerOptions;
  readonly #secure: boolean;

  constructor(o: ControllerManagerServerOptions, cert?: ServingCertificate) {
    this.#o = o;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.#handle(req, res).catch((err: unknown) => {
        o.logger.error({ err, path: req.url }, 'Request failed');
        if (!res.headersSent) status(res, 500, 'Internal Server Error');
        else res.destroy();
      });
    };
    this.#secure = cert !== undefined;
    if (!cert) {
      this.#server = http.createServer(handler);
      return;
    }
    const tlsOptions: https.ServerOptions = { cert: cert.cert, key: cert.key, minVersion: tlsVersion(o.serving.tlsMinVersion) };
    if (o.auth?.clientCa !== undefined) Object.assign(tlsOptions, { ca: o.auth.clientCa, requestCert: true, rejectUnauthorized: false });
    if (o.serving.tlsCipherSuites.length > 0) tlsOptions.ciphers = o.serving.tlsCipherSuites.join(':');
    this.#server = https.createServer(tlsOptions, handler);
  }

  async listen(): Promise<number> {
    const { bindAddress, securePort } = this.#o.serving;
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(securePort, bindAddress === '' ? undefined : bindAddress, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const port = (this.#server.address() as AddressInfo).port;
    this.#o.logger.info({ address: `${bindAddress}:${port}` }, this.#secure ? 'Serving securely' : 'Serving insecurely');
    return port;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const auth = this.#o.auth;
    const user = auth ? await auth.authenticate(req) : { name: 'system:anonymous', groups: [] };
    if (!user) return status(res, 401, 'Unauthorized');
    const decision = auth ? await auth.authorize(user, req.method ?? 'GET', url.pathname) : { allowed: true, reason: '' };
    if (!decision.allowed) {
      const why = decision.reason ? `: ${decision.reason}` : '';
      return status(res, 403, `forbidden: User "${user.name}" cannot ${(req.method ?? 'GET').toLowerCase() === 'get' ? 'get' : (req.method ?? '').toLowerCase()} path "${url.pathname}"${why}`);
    }
    if (url.pathname === '/metrics') {
      const text = await this.#o.registry.metrics();
      res.writeHead(200, { 'Content-Type': this.#o.registry.contentType });
      res.end(text);
      return;
    }
    for (const root of ['/healthz', '/livez', '/readyz']) {
      if (url.pathname === root || url.pathname.startsWith(`${root}/`)) return this.#health(root, url, res);
    }
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('404 page not found\n');
  }

  /** kube's healthz handler: "ok", or per-check lines with ?verbose or on failure */
  #health(root: string, url: URL, res: ServerResponse): void {
    const checks = new Map<string, HealthCheck>([['ping', () => undefined], ...this.#o.checks]);
    const one = url.pathname.slice(root.length + 1);
    if (one !== '') {
      const check = checks.get(one);
      if (!check) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('404 page not found\n');
        return;
      }
      const problem = check();
      res.writeHead(problem ? 500 : 200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(problem ? `internal server error: ${problem}\n` : 'ok');
      return;
    }
    const { failed, lines } = healthReport(checks, url.searchParams.getAll('exclude'));
    const kind = root.slice(1);
    res.writeHead(failed ? 500 : 200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    if (failed) res.end(`${lines.join('\n')}\n${kind} check failed\n`);
    else if (url.searchParams.has('verbose')) res.end(`${lines.join('\n')}\n${kind} check passed\n`);
    else res.end('ok');
  }
}

/**
 * kube's health report of named checks: one line per check (`[+]name ok`, `[-]name failed: reason
 * withheld`, `[+]name excluded: ok` for the ?exclude ones) and whether any failed
 */
export function healthReport(checks: ReadonlyMap<string, HealthCheck>, exclude: readonly string[]): { failed: boolean; lines: string[] } {
  const skip = new Set(exclude);
  const lines: string[] = [];
  let failed = false;
  for (const [name, check] of checks) {
    if (skip.has(name)) {
      lines.push(`[+]${name} excluded: ok`);
      continue;
    }
    const problem = check();
    if (problem) failed = true;
    lines.push(problem ? `[-]${name} failed: reason withheld` : `[+]${name} ok`);
  }
  return { failed, lines };
}

function tlsVersion(v: string | undefined): 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3' {
  switch (v) {
    case 'VersionTLS10':
      return 'TLSv1';
    case 'VersionTLS11':
      return 'TLSv1.1';
    case 'VersionTLS13':
      return 'TLSv1.3';
    default:
      return 'TLSv1.2';
  }
}
