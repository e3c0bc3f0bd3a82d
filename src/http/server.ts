/**
 * The HTTPS listener (HTTP/1.1, keep-alive). Node's per-socket inactivity timeout is off so that long
 * watches are never cut by the server; watches end at their own timeout, other requests at
 * --request-timeout (both in the app).
 */
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';

/** takes a protocol upgrade request (returns true) or leaves it to the app (false) */
export type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => boolean;

export interface StartServerOptions {
  /** the Koa app (createApiServerApp(...).app; the whole createApiServerApp result is accepted too) */
  app: Koa<any, any> | { app: Koa<any, any> };
  bindAddress: string;
  port: number;
  cert: string | Buffer;
  key: string | Buffer;
  /**
   * CA bundle for client certificates: clients are asked for one (never required) and what they
   * send is verified against it; the x509 authenticator reads the outcome
   */
  clientCa?: string | Buffer;
  /** protocol upgrades (SPDY, WebSocket) to pass on, e.g. to extension servers */
  upgrade?: UpgradeHandler;
}

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

/** start listening; rejects with ListenError when the address or the certificate cannot be used */
export function startServer(opts: StartServerOptions): Promise<https.Server> {
  const app = 'callback' in opts.app ? opts.app : opts.app.app;
  let server: https.Server;
  try {
    const clientCerts = opts.clientCa ? { requestCert: true, rejectUnauthorized: false, ca: opts.clientCa } : {};
    server = https.createServer({ cert: opts.cert, key: opts.key, ...clientCerts }, app.callback());
  } catch (err) {
    // OpenSSL's words (e.g. "PEM routines::no start line") name the problem well enough
    return Promise.reject(new ListenError(`invalid serving certificate or key: ${(err as Error).message}`, { cause: err }));
  }
  // no inactivity timeout on sockets (a quiet watch is not idle)
  server.setTimeout(0);
  // headers must still arrive promptly; whole request bodies within 5 minutes (Node's default)
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  server.on('secureConnection', feedParserFromJs);
  const where = opts.bindAddress.includes(':') ? `[${opts.bindAddress}]:${opts.port}` : `${opts.bindAddress}:${opts.port}`;
  if (opts.upgrade) server.on('upgrade', upgradeOrApp(opts.upgrade, app.callback()));
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
function feedParserFromJs(socket: import('node:tls').TLSSocket): void {
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
