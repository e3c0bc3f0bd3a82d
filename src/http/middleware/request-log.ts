/**
 * One pino child logger per request, and one line per request when it ends (kube's httplog line:
 * verb, URI, response code, latency, user agent). Routine lines are debug; 5xx answers are warnings.
 * Which of them appear is decided by the level of the caller's logger (the `-v` flag).
 */
import type pino from 'pino';
import type { ApiMiddleware } from '../context';
import { parseRequestInfo } from '../request-info';

export function requestLog(root: pino.Logger): ApiMiddleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.state.query = new URLSearchParams(ctx.querystring);
    ctx.state.info = parseRequestInfo(ctx.method, ctx.path, ctx.state.query);
    ctx.state.log = root.child({ auditID: ctx.state.requestId });
    try {
      await next();
    } finally {
      const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
      const line = {
        verb: ctx.state.info.verb,
        method: ctx.method,
        uri: ctx.url,
        code: ctx.status,
        latencyMs: Math.round(latencyMs * 1000) / 1000,
        userAgent: ctx.get('User-Agent'),
        srcIP: ctx.ip,
      };
      if (ctx.status >= 500) ctx.state.log.warn(line, 'HTTP');
      else ctx.state.log.debug(line, 'HTTP');
    }
  };
}
