/**
 * The one place errors become responses: a thrown ApiError is written as its metav1 Status with
 * `status.code` as the HTTP status (plus Retry-After when the Status asks for one); anything else is
 * logged and answered as a 500 InternalError Status.
 */
import { errors, isApiError } from '../../api/errors';
import type { Status } from '../../api/errors';
import type { ApiContext, ApiMiddleware } from '../context';
import { wantsPretty } from '../respond';

export function writeStatus(ctx: ApiContext, status: Status): void {
  ctx.status = status.code;
  const retry = status.details?.retryAfterSeconds;
  if (retry && retry > 0) ctx.set('Retry-After', String(retry));
  ctx.body = JSON.stringify(status, null, ctx.state.query && wantsPretty(ctx) ? 2 : undefined) + '\n';
  ctx.set('Content-Type', 'application/json');
}

export function errorStatus(): ApiMiddleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const apiError = isApiError(err) ? err : undefined;
      if (!apiError) ctx.state.log.error({ err }, 'unexpected error while serving request');
      if (ctx.headerSent || !ctx.writable) {
        // a streamed response already started: nothing can be said to the client any more
        ctx.res.destroy();
        return;
      }
      const status = apiError ? apiError.status : errors.internal(err instanceof Error ? err.message : String(err)).status;
      if (status.code === 413) ctx.set('Connection', 'close');
      writeStatus(ctx, status);
    }
  };
}
