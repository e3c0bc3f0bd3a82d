/**
 * The HTTPS listener (HTTP/1.1, keep-alive). Node's per-socket inactivity timeout is off so that long
 * watches are never cut by the server; watches end at their own timeout, other requests at
 * --request-timeout (both in the app).
 */
import https from 'node:https';
import type Koa from 'koa';

export interface StartServerOptions {
  /** the Koa app (createApiServerApp(...).app; the whole createApiServerApp result is accepted too) */
  app: Koa<any, any> | { app: Koa<any, any> };
  bindAddress: string;
  port: number;
  cert: string | Buffer;
  key: string | Buffer;
}

export function startServer(opts: StartServerOptions): Promise<https.Server> {
  const app = 'callback' in opts.app ? opts.app : opts.app.app;
  const server = https.createServer({ cert: opts.cert, key: opts.key }, app.callback());
  // no inactivity timeout on sockets (a quiet watch is not idle)
  server.setTimeout(0);
  // headers must still arrive promptly; whole request bodies within 5 minutes (Node's default)
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.bindAddress, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
