/**
 * Requests for APIs other servers serve (kube's aggregation layer): the middleware hands a request
 * whose path a remote registration claims to that registration's proxy, with the caller's identity,
 * and the answer streams back untouched. The proxy's own failures are plain text, as kube's
 * aggregator writes them (`service unavailable`), not Status objects.
 *
 * Placed after the request timeout: a proxied request that is not long-running is cut at
 * --request-timeout as kube's timeout filter cuts it; watches stream for as long as they last and
 * are ended at shutdown with the other watches.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProxyError } from '../aggregator/proxy';
import type { OpenApiExtension } from '../openapi/service';
import type { ApiMiddleware, UserInfo } from './context';
import type { DiscoveryExtension } from './discovery-extension';
import { isLongRunning } from './request-info';

export interface ForwardRequest {
  req: IncomingMessage;
  res: ServerResponse;
  user: UserInfo;
  /** the backend answered with `status`; nothing was written before */
  onResponse?(status: number): void;
}

export interface ProxiedRoute {
  /** resolves when the answer was passed on; rejects with ProxyError when nothing was written */
  forward(o: ForwardRequest): Promise<void>;
}

/** what the server learns from the aggregation layer */
export interface AggregatedApis {
  /** the proxy for a path another server serves; undefined for paths served here */
  route(path: string): ProxiedRoute | undefined;
  discovery: DiscoveryExtension;
  openapi: OpenApiExtension;
}

/** kube's identity of a request no authenticator claimed */
const ANONYMOUS: UserInfo = Object.freeze({ name: 'system:anonymous', groups: ['system:unauthenticated'] });

export function aggregatedProxy(apis: AggregatedApis, trackLongRunning: (close: () => void) => () => void): ApiMiddleware {
  return async (ctx, next) => {
    const route = apis.route(ctx.path);
    if (!route) return next();
    const untrack = isLongRunning(ctx.state.info) ? trackLongRunning(() => ctx.res.destroy()) : undefined;
    try {
      await route.forward({
        req: ctx.req,
        res: ctx.res,
        user: ctx.state.user ?? ANONYMOUS,
        onResponse(status) {
          // the answer is written by the proxy; Koa only records the status for the request log
          ctx.respond = false;
          ctx.res.statusCode = status;
        },
      });
    } catch (err) {
      if (!(err instanceof ProxyError) || ctx.headerSent) throw err;
      // Go's http.Error
      ctx.status = err.code;
      ctx.set('Content-Type', 'text/plain; charset=utf-8');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = `${err.message}\n`;
    } finally {
      untrack?.();
    }
  };
}
