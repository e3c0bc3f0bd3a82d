/**
 * The HTTPS listener, as kube serves it: ALPN offers h2 and http/1.1, so Go clients (kubectl, Helm)
 * speak HTTP/2 and the rest keep HTTP/1.1 with keep-alive. Node's per-socket and per-session
 * inactivity timeouts are off so that long watches are never cut by the server; watches end at their
 * own timeout, other requests at --request-timeout (both in the app).
 */
import http from 'node:http';
import http2 from 'node:http2';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type Koa from 'koa';
import type { SniCertificate } from '../server/tls-options';
import { namedCertificateIndex, selectNamedCertificate } from '../server/tls-options';

/** takes a protocol upgrade request (returns true) or leaves it to the app (false) */
export type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => boolean;

export interface StartServerOptions {
  /** the Koa app (createApiServerApp(...).app; the whole createApiServerApp result is accepted too) */
  app: Koa<any, any> | { app: Koa<any, any> };
  bindAddress: string;
  port: number;
  /** the default serving certificate (chain) and key, used when no SNI certificate matches */
  cert: string | Buffer;
  key: string | Buffer;
  /**
   * CA bundle for client certificates: clients are asked for one (never required) and what they
   * send is verified against it; the x509 authenticator reads the outcome
   */
  clientCa?: string | Buffer;
  /** protocol upgrades (SPDY, WebSocket) to pass on, e.g. to extension servers */
  upgrade?: UpgradeHandler;
  /** --tls-min-version as OpenSSL's name (TLSv1.2, ...); unset keeps Node's default */
  minVersion?: tls.SecureVersion;
  /** --tls-cipher-suites as an OpenSSL cipher list; unset keeps Node's default */
  ciphers?: string;
  /** --tls-sni-cert-key, in flag order */
  sniCertificates?: readonly SniCertificate[];
  /** --http2-max-streams-per-connection; 0 or unset is Go's default, 250 */
  http2MaxStreamsPerConnection?: number;
  /** --goaway-chance: share of HTTP/2 requests after which the connection is sent GOAWAY (0 to 0.02) */
  goawayChance?: number;
}

/** the running listener; the close helpers reach HTTP/1.1 connections and HTTP/2 sessions alike */
export interface ApiListener extends http2.Http2SecureServer {
  /** HTTP/1.1: idle connections are closed; HTTP/2: every session gets GOAWAY and ends after its open streams */
  closeIdleConnections(): void;
  /** every connection is cut at once */
  closeAllConnections(): void;
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
}

/** Go's http2 server default for concurrent streams, which kube makes explicit */
const DEFAULT_MAX_STREAMS = 250;
/** kube sizes each stream's upload window for 99% of API request bodies (256 KiB) */
const STREAM_UPLOAD_WINDOW = 256 * 1024;

/**
 * A listener that could not start: the address is taken or not ours, or the certificate or key is
 * unusable. The message is one line meant for the operator (the CLI prints it as is).
 */
export class ListenError extends Error {
  /** the system error code when there is one (EADDRINUSE, EACCES, ...) */
  readonly code?: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ListenError';
    const code = (options?.cause as NodeJS.ErrnoException | undefined)?.code;
    if (code) this.code = code;
  }
}

/** the words Go's net package uses for the common bind failures (what kube-apiserver prints) */
const BIND_FAILURES: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'cannot assign requested address',
};

type Handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;

/** start listening; rejects with ListenError when the address or the certificate cannot be used */
export function startServer(opts: StartServerOptions): Promise<ApiListener> {
  const app = 'callback' in opts.app ? opts.app : opts.app.app;
  const maxStreams = opts.http2MaxStreamsPerConnection && opts.http2MaxStreamsPerConnection > 0 ? opts.http2MaxStreamsPerConnection : DEFAULT_MAX_STREAMS;
  const clientCerts = opts.clientCa ? { requestCert: true, rejectUnauthorized: false, ca: opts.clientCa } : {};
  const policy = { ...(opts.minVersion ? { minVersion: opts.minVersion } : {}), ...(opts.ciphers ? { ciphers: opts.ciphers } : {}) };
  let server: ApiListener;
  try {
    const sni = sniCallback(opts.sniCertificates ?? [], { ...clientCerts, ...policy });
    server = http2.createSecureServer(
      {
        cert: opts.cert,
        key: opts.key,
        ...clientCerts,
        ...policy,
        ...(sni ? { SNICallback: sni } : {}),
        allowHTTP1: true,
        settings: { maxConcurrentStreams: maxStreams, initialWindowSize: STREAM_UPLOAD_WINDOW },
        // Node refuses new streams once a session buffers more than this (MiB); many concurrent
        // watches and large bodies need more than the 10 MiB default
        maxSessionMemory: 128,
      },
      withGoaway(app.callback() as Handler, opts.goawayChance ?? 0),
    ) as ApiListener;
  } catch (err) {
    if (err instanceof ListenError) return Promise.reject(err);
    // OpenSSL's words (e.g. "PEM routines::no start line") name the problem well enough
    return Promise.reject(new ListenError(`invalid serving certificate or key: ${(err as Error).message}`, { cause: err }));
  }
  // no inactivity timeout on sockets or sessions (a quiet watch is not idle)
  server.setTimeout(0);
  // HTTP/1.1: headers must still arrive promptly; whole request bodies within 5 minutes (Node's default)
  const h1 = server as unknown as { headersTimeout: number; keepAliveTimeout: number };
  h1.headersTimeout = 60_000;
  h1.keepAliveTimeout = 65_000;
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    // room for every stream's upload window at once, as kube sizes the connection window
    session.once('connect', () => session.setLocalWindowSize(STREAM_UPLOAD_WINDOW * maxStreams));
  });
  server.closeIdleConnections = () => {
    http.Server.prototype.closeIdleConnections.call(server as unknown as http.Server);
    for (const s of sessions) if (!s.closed) s.close();
  };
  server.closeAllConnections = () => {
    http.Server.prototype.closeAllConnections.call(server as unknown as http.Server);
    for (const s of sessions) s.destroy();
  };
  const events = server as unknown as import('node:events').EventEmitter;
  events.on('clientError', answerClientError);
  server.on('secureConnection', feedParserFromJs);
  const where = opts.bindAddress.includes(':') ? `[${opts.bindAddress}]:${opts.port}` : `${opts.bindAddress}:${opts.port}`;
  if (opts.upgrade) events.on('upgrade', upgradeOrApp(opts.upgrade, app.callback()));
  return new Promise((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException): void => {
      const why = (err.code && BIND_FAILURES[err.code]) || err.message;
      reject(new ListenError(`failed to listen on ${where}: ${why}`, { cause: err }));
    };
    server.once('error', failed);
    server.listen(opts.port, opts.bindAddress, () => {
      server.off('error', failed);
      resolve(server);
    });
  });
}

/**
 * --tls-sni-cert-key: a secure context per certificate, chosen by the name the client sends (kube's
 * precedence, src/server/tls-options.ts); no match, or no name, gets the default certificate. Each
 * context carries the client CA and the version and cipher policy too, as OpenSSL verifies client
 * certificates with the context the handshake switched to.
 */
function sniCallback(certs: readonly SniCertificate[], common: tls.SecureContextOptions): ((name: string, cb: (err: Error | null, ctx?: tls.SecureContext) => void) => void) | undefined {
  if (certs.length === 0) return undefined;
  const contexts = certs.map((c, i) => {
    try {
      return tls.createSecureContext({ ...common, cert: c.cert, key: c.key });
    } catch (err) {
      throw new ListenError(`invalid SNI cert keypair [${i}${c.source ? `/"${c.source}"` : ''}]: ${(err as Error).message}`, { cause: err });
    }
  });
  const index = namedCertificateIndex(certs);
  return (name, cb) => {
    const i = selectNamedCertificate(index, name);
    // undefined keeps the server's own (default) context
    cb(null, i === undefined ? undefined : contexts[i]);
  };
}

/**
 * --goaway-chance (kube's probabilistic GOAWAY filter): with this probability an HTTP/2 request
 * makes the server tell its connection GOAWAY. This request and the other open streams (watches
 * too) run to their end; the client sends new requests on a new connection, which a load balancer
 * may give to another server; the old connection closes once idle. HTTP/1.1 is left alone.
 */
function withGoaway(handler: Handler, chance: number): Handler {
  if (!(chance > 0)) return handler;
  return (req, res) => {
    if (req.httpVersionMajor === 2 && Math.random() < chance) {
      const session = (req as http2.Http2ServerRequest).stream.session;
      // Node's graceful close: GOAWAY naming the last stream taken, open streams finish
      if (session && !session.closed && !session.destroyed) session.close();
    }
    handler(req, res);
  };
}

/**
 * Requests Node's HTTP parser rejects before the app sees them (unknown methods, malformed request
 * lines or headers) still get a metav1 Status, as every other error does; Node's default answer is
 * a bare `400 Bad Request`. Go's server (kube-apiserver) accepts any method token, and kube then
 * answers 405 MethodNotAllowed, so an unknown method gets that here too. The connection is closed:
 * the parser cannot find where the next request starts.
 */
function answerClientError(err: Error & { code?: string }, socket: import('node:stream').Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // On a kept-alive connection the client may send its next request as soon as it has read the
  // previous answer, before that response has emitted 'finish' here; a pipelining client may send
  // it even earlier. Answer once the previous response is done, so the answers stay in order.
  const previous = (socket as { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (previous && !previous.writableFinished) {
    let answered = false;
    const answerLater = (): void => {
      if (answered) return;
      answered = true;
      if (socket.writable && !previous.destroyed) setImmediate(() => answerClientError(err, socket));
      else socket.destroy();
    };
    previous.once('finish', answerLater);
    previous.once('close', answerLater);
    return;
  }
  const [code, reason, message] =
    err.code === 'HPE_INVALID_METHOD'
      ? [405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'RequestHeaderFieldsTooLarge', 'Request Header Fields Too Large']
        : [400, 'BadRequest', `malformed HTTP request: ${err.code ?? err.message}`];
  const status: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
  if (code !== 431) status.reason = reason;
  const body = JSON.stringify(status) + '\n';
  socket.end(
    `HTTP/1.1 ${code} ${code === 405 ? 'Method Not Allowed' : code === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Node's HTTP server feeds a TLS socket's bytes to its parser natively. When a request arrives while
 * the previous response is still draining, Node pauses socket and parser, but the records TLS has
 * already decrypted keep reaching the paused parser, which fails with HPE_PAUSED and resets the
 * connection: a kept-alive client loses the request (seen with large responses followed by large
 * writes). A 'data' listener makes Node hand the socket back to JavaScript streams, which honour the
 * pause. Runs after Node's own connection listener (registered when the server was created).
 */
function feedParserFromJs(socket: tls.TLSSocket): void {
  // an HTTP/2 session reads its socket itself; only HTTP/1.1 sockets go to Node's parser
  if (socket.alpnProtocol === 'h2') return;
  socket.on('data', noop);
}

function noop(): void {}

/**
 * With an 'upgrade' listener Node hands every upgrade request to it; the ones the handler leaves
 * are answered by the app as plain requests (as Node does when nobody listens), on a response that
 * closes the connection afterwards.
 */
function upgradeOrApp(handler: UpgradeHandler, callback: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  return (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (handler(req, socket, head)) return;
    if (head.length > 0) socket.unshift(head);
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as import('node:net').Socket);
    res.once('finish', () => socket.end());
    callback(req, res);
  };
}
