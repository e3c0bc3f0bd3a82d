/**
 * kube's aggregator proxy handler, outside any HTTP framework: a request for a remote
 * registration's group/version goes over HTTPS to its extension server, and the answer streams
 * back as it arrives (watches and other long requests are never buffered). Protocol upgrades
 * (SPDY, WebSocket) are piped both ways once the backend has the request.
 *
 * kube's answers when the backend cannot be used are plain text (Go's http.Error), not Status:
 * `service unavailable` (503) while the registration is not Available or its Service cannot be
 * resolved, and the connection error's text (503) when the backend cannot be reached.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type pino from 'pino';
import type { APIService } from './apiservice';
import { isAvailable, servicePort } from './apiservice';
import { goDialError } from './backend-errors';
import type { ProxyClientCert } from './backend-tls';
import { backendTlsOptions } from './backend-tls';
import type { FrontProxyHeaderNames, UserIdentity } from './front-proxy-headers';
import { DEFAULT_FRONT_PROXY_HEADERS } from './front-proxy-headers';
import { backendPath, outgoingHeaders, responseHeaders } from './proxy-request';
import type { ResolvedEndpoint, ServiceResolver } from './service-resolver';

/** kube's timeout of a proxied discovery request (/apis/<group>/<version>) */
export const DISCOVERY_TIMEOUT_MS = 5000;

/** a failure before the backend answered: kube writes `message` as plain text with `code` */
export class ProxyError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProxyError';
  }
}

export interface AggregatorProxyOptions {
  resolver: () => ServiceResolver;
  clientCert?: ProxyClientCert;
  headerNames?: FrontProxyHeaderNames;
  logger?: pino.Logger;
}

export interface ForwardOptions {
  apiService: APIService;
  req: IncomingMessage;
  res: ServerResponse;
  user: UserIdentity;
  /** the backend answered with `status`; called before anything is written to res */
  onResponse?(status: number): void;
}

export interface FetchedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** a discovery request: exactly /apis/<group>/<version> (kube's three-segment non-resource path) */
function isDiscoveryPath(url: string): boolean {
  const path = url.split('?')[0];
  return path.split('/').filter((p) => p !== '').length === 3 && path.startsWith('/apis/');
}

function hostPort(e: ResolvedEndpoint): string {
  return e.host.includes(':') ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`;
}

export class AggregatorProxy {
  readonly #opts: AggregatorProxyOptions;
  readonly #agent = new https.Agent({ keepAlive: true });

  constructor(opts: AggregatorProxyOptions) {
    this.#opts = opts;
  }

  close(): void {
    this.#agent.destroy();
  }

  /** the backend of an Available registration; ProxyError(503) otherwise */
  #endpoint(s: APIService): ResolvedEndpoint {
    if (!isAvailable(s)) throw new ProxyError(503, 'service unavailable');
    const service = s.spec.service ?? {};
    try {
      return this.#opts.resolver().resolve(service.namespace ?? '', service.name ?? '', servicePort(s));
    } catch (err) {
      this.#opts.logger?.warn({ err, apiService: s.metadata.name }, `error resolving ${service.namespace}/${service.name}`);
      throw new ProxyError(503, 'service unavailable');
    }
  }

  /**
   * forward one request; resolves when the answer has been passed on (or the client went away),
   * rejects with ProxyError when nothing was written yet
   */
  forward(o: ForwardOptions): Promise<void> {
    const endpoint = this.#endpoint(o.apiService);
    const { req, res } = o;
    const url = req.url ?? '/';
    const headers = outgoingHeaders(req, {
      user: o.user,
      names: this.#opts.headerNames ?? DEFAULT_FRONT_PROXY_HEADERS,
      host: hostPort(endpoint),
      upgrade: false,
    });
    return new Promise((resolve, reject) => {
      let answered = false;
      const upstream = https.request({
        host: endpoint.host,
        port: endpoint.port,
        method: req.method,
        path: backendPath(url),
        headers,
        agent: this.#agent,
        ...backendTlsOptions(o.apiService, this.#opts.clientCert),
      });
      if (isDiscoveryPath(url)) upstream.setTimeout(DISCOVERY_TIMEOUT_MS, () => upstream.destroy(Object.assign(new Error('context deadline exceeded'), { code: 'DEADLINE' })));
      // the client went away, or the request was answered without us (--request-timeout's 504)
      const clientGone = (): void => {
        if (!answered) upstream.destroy();
      };
      res.once('close', clientGone);
      upstream.on('response', (answer) => {
        answered = true;
        if (res.headersSent || res.writableEnded || res.destroyed) {
          answer.destroy();
          upstream.destroy();
          resolve();
          return;
        }
        o.onResponse?.(answer.statusCode ?? 502);
        res.writeHead(answer.statusCode ?? 502, responseHeaders(answer.headers, answer.rawHeaders));
        // flush the headers now: a watch may send its first event much later
        res.flushHeaders();
        answer.pipe(res);
        answer.on('error', () => res.destroy());
        res.once('close', () => {
          answer.destroy();
          resolve();
        });
        res.once('finish', resolve);
      });
      upstream.on('error', (err) => {
        if (answered) {
          res.destroy();
          resolve();
          return;
        }
        res.off('close', clientGone);
        const message = (err as { code?: string }).code === 'DEADLINE' ? err.message : goDialError(err, endpoint.host, endpoint.port);
        this.#opts.logger?.debug({ err, apiService: o.apiService.metadata.name }, 'proxy: backend unreachable');
        reject(new ProxyError(503, message));
      });
      req.pipe(upstream);
    });
  }

  /**
   * a GET the server itself makes through the proxy (discovery and OpenAPI downloads), answered
   * in full; rejects with ProxyError when the backend cannot be used
   */
  fetch(apiService: APIService, path: string, o: { user: UserIdentity; headers?: Record<string, string>; timeoutMs: number }): Promise<FetchedResponse> {
    const endpoint = this.#endpoint(apiService);
    const names = this.#opts.headerNames ?? DEFAULT_FRONT_PROXY_HEADERS;
    const headers: Record<string, string | string[]> = { ...(o.headers ?? {}), [names.user]: o.user.name };
    if (o.user.groups.length > 0) headers[names.group] = o.user.groups;
    return new Promise((resolve, reject) => {
      const req = https.request({
        host: endpoint.host,
        port: endpoint.port,
        method: 'GET',
        path,
        headers,
        agent: this.#agent,
        ...backendTlsOptions(apiService, this.#opts.clientCert),
      });
      const timer = setTimeout(() => req.destroy(Object.assign(new Error('request timed out'), { code: 'DEADLINE' })), o.timeoutMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(new ProxyError(503, err.message));
        });
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        const code = (err as { code?: string }).code;
        reject(new ProxyError(503, code === 'DEADLINE' ? err.message : goDialError(err, endpoint.host, endpoint.port)));
      });
      req.end();
    });
  }

  /**
   * pass a protocol upgrade (SPDY, WebSocket) on: the request goes to the backend as received
   * (with the front-proxy headers), then bytes flow both ways until either side closes
   */
  upgrade(apiService: APIService, req: IncomingMessage, socket: Duplex, head: Buffer, user: UserIdentity): void {
    let endpoint: ResolvedEndpoint;
    try {
      endpoint = this.#endpoint(apiService);
    } catch (err) {
      writePlainError(socket, err as ProxyError);
      return;
    }
    const headers = outgoingHeaders(req, { user, names: this.#opts.headerNames ?? DEFAULT_FRONT_PROXY_HEADERS, host: hostPort(endpoint), upgrade: true });
    let lines = `${req.method} ${backendPath(req.url ?? '/')} HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      for (const v of Array.isArray(value) ? value : [value]) lines += `${name}: ${String(v)}\r\n`;
    }
    const backend = tls.connect({ host: endpoint.host, port: endpoint.port, ...backendTlsOptions(apiService, this.#opts.clientCert) });
    let connected = false;
    backend.once('secureConnect', () => {
      connected = true;
      backend.write(`${lines}\r\n`);
      if (head.length > 0) backend.write(head);
      socket.pipe(backend);
      backend.pipe(socket);
    });
    backend.on('error', (err) => {
      if (!connected) writePlainError(socket, new ProxyError(503, goDialError(err, endpoint.host, endpoint.port)));
      else socket.destroy();
    });
    socket.on('error', () => backend.destroy());
    socket.on('close', () => backend.destroy());
    backend.on('close', () => socket.destroy());
  }
}

/** Go's http.Error on a raw socket: the upgrade never happened */
export function writePlainError(socket: Duplex, err: ProxyError): void {
  const body = `${err.message}\n`;
  const reason = err.code === 503 ? 'Service Unavailable' : err.code === 404 ? 'Not Found' : 'Internal Server Error';
  socket.end(
    `HTTP/1.1 ${err.code} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
