/**
 * Calling one webhook: where (clientConfig.url, or clientConfig.service resolved to an address
 * through the aggregator's service resolvers over the Service and Endpoints read from the
 * registry), how (HTTPS verified with the caBundle, the system roots without one; a service is
 * checked under the name `<name>.<namespace>.svc`), and for how long (timeoutSeconds, capped at 30).
 * Failures are CallError with the reason in the words kube's client gives (`Post "<url>": ...`).
 */
import https from 'node:https';
import net from 'node:net';
import { isApiError } from '../../api/errors';
import type { KubeObject } from '../../api/kind';
import type { Registry } from '../../api/registry/types';
import type { Scheme } from '../../api/scheme';
import { isObj, num, objAt, str, type Obj } from '../../api/kinds/util';
import { clusterResolver, endpointResolver, type ResolvedEndpoint } from '../../aggregator/service-resolver';

/** the call did not produce an answer; `message` is the reason kube reports */
export class CallError extends Error {}

export type ServiceRouting = 'endpoint' | 'cluster';

export interface CallTarget {
  /** the URL kube would name in its messages */
  displayUrl: string;
  host: string;
  port: number;
  path: string;
  /** the TLS server name checked against the certificate */
  servername?: string;
  ca?: Buffer;
}

export interface ClientOptions {
  registry: Registry;
  scheme: Scheme;
  /** 'cluster' (kube's default): the Service's clusterIP; 'endpoint': an address of its Endpoints */
  serviceRouting?: ServiceRouting;
}

const maxTimeoutSeconds = 30;
const maxResponseBytes = 16 * 1024 * 1024;

export function timeoutSecondsOf(hook: Obj): number {
  const t = num(hook.timeoutSeconds) ?? 10;
  return Math.min(Math.max(t, 1), maxTimeoutSeconds);
}

async function getOrUndefined(registry: Registry, scheme: Scheme, resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
  const kind = scheme.byResource('', 'v1', resource);
  if (!kind) return undefined;
  try {
    return await registry.get({ kind, namespace, name }, {});
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    throw err;
  }
}

async function resolveService(service: Obj, opts: ClientOptions): Promise<ResolvedEndpoint> {
  const namespace = str(service.namespace);
  const name = str(service.name);
  const [svc, eps] = await Promise.all([
    getOrUndefined(opts.registry, opts.scheme, 'services', namespace, name),
    getOrUndefined(opts.registry, opts.scheme, 'endpoints', namespace, name),
  ]);
  const lookup = { service: () => svc, endpoints: () => eps };
  const resolver = opts.serviceRouting === 'endpoint' ? endpointResolver(lookup) : clusterResolver(lookup);
  return resolver.resolve(namespace, name, num(service.port) ?? 443);
}

/** where to send the review for `hook`, with the query kube's client adds (`?timeout=10s`) */
export async function callTarget(hook: Obj, opts: ClientOptions): Promise<CallTarget> {
  const config = objAt(hook, 'clientConfig') ?? {};
  const ca = str(config.caBundle) ? Buffer.from(str(config.caBundle), 'base64') : undefined;
  const query = `?timeout=${timeoutSecondsOf(hook)}s`;
  const service = objAt(config, 'service');
  if (service) {
    const servername = `${str(service.name)}.${str(service.namespace)}.svc`;
    const port = num(service.port) ?? 443;
    const path = (str(service.path) || '/') + query;
    const displayUrl = `https://${servername}:${port}${path}`;
    let resolved: ResolvedEndpoint;
    try {
      resolved = await resolveService(service, opts);
    } catch (err) {
      throw new CallError(`Post "${displayUrl}": ${err instanceof Error ? err.message : String(err)}`);
    }
    return { displayUrl, host: resolved.host, port: resolved.port, path, servername, ca };
  }
  let url: URL;
  try {
    url = new URL(str(config.url));
  } catch {
    throw new CallError(`parse "${str(config.url)}": invalid URL`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    displayUrl: `${str(config.url)}${query}`,
    host,
    port: url.port ? Number(url.port) : 443,
    path: (url.pathname || '/') + query,
    servername: net.isIP(host) ? undefined : host,
    ca,
  };
}

/** Go's words for what Node's TLS and socket errors mean */
function reasonOf(err: NodeJS.ErrnoException, target: CallTarget): string {
  const addr = `${net.isIPv6(target.host) ? `[${target.host}]` : target.host}:${target.port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${target.host}: no such host`;
    case 'EHOSTUNREACH':
      return `dial tcp ${addr}: connect: no route to host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: ${err.message}`;
    case 'ECONNRESET':
      return 'EOF';
    default:
      return err.message;
  }
}

/** POST `body` as JSON; resolves with the decoded JSON answer of a 2xx response */
export function post(target: CallTarget, body: unknown, timeoutSeconds: number): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  const fail = (reason: string): CallError => new CallError(`Post "${target.displayUrl}": ${reason}`);
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (err: Error | undefined, value?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value);
    };
    const req = https.request({
      host: target.host,
      port: target.port,
      path: target.path,
      method: 'POST',
      servername: target.servername,
      ca: target.ca,
      agent: false,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': payload.length },
    });
    const timer = setTimeout(() => {
      done(fail('context deadline exceeded'));
      req.destroy();
    }, timeoutSeconds * 1000);
    req.on('error', (err: NodeJS.ErrnoException) => done(fail(reasonOf(err, target))));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxResponseBytes) {
          done(fail('the response from the webhook is too large'));
          req.destroy();
        } else chunks.push(c);
      });
      res.on('error', (err: NodeJS.ErrnoException) => done(fail(reasonOf(err, target))));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const code = res.statusCode ?? 0;
        if (code < 200 || code > 299) return done(new CallError(httpFailure(code, text)));
        try {
          done(undefined, JSON.parse(text));
        } catch (err) {
          done(new CallError(`${err instanceof Error ? err.message : String(err)}`));
        }
      });
    });
    req.end(payload);
  });
}

/** how kube's REST client words a non-2xx answer */
function httpFailure(code: number, text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObj(parsed) && parsed.kind === 'Status' && str(parsed.message)) return str(parsed.message);
  } catch {
    // not JSON: fall through
  }
  if (text.trim() === '') return `the server responded with the status code ${code} but did not return more information`;
  return `an error on the server ("${text.trim().slice(0, 200)}") has prevented the request from succeeding`;
}
