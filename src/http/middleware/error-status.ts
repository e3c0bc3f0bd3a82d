/**
 * The one place errors become responses: a thrown ApiError is written as its metav1 Status with
 * `status.code` as the HTTP status (plus Retry-After when the Status asks for one); anything else is
 * logged and answered as a 500 InternalError Status.
 */
import { errors, isApiError } from '../../api/errors';
import type { Status } from '../../api/errors';
import type { ApiContext, ApiMiddleware } from '../context';
import { negotiateOutput } from '../negotiate';
import type { Negotiated } from '../negotiate';
import { wantsPretty } from '../respond';

export function writeStatus(ctx: ApiContext, status: Status): void {
  ctx.status = status.code;
  const retry = status.details?.retryAfterSeconds;
  if (retry && retry > 0) ctx.set('Retry-After', String(retry));
  // a 406 means no type the client accepts could be written: kube answers it in JSON
  const negotiated = status.code === 406 ? undefined : statusFormat(ctx);
  if (negotiated) {
    // kube's ErrorNegotiated: the Status in the type the client asked for (protobuf for client-go)
    ctx.body = negotiated.codec.encode(status, { pretty: false });
    ctx.set('Content-Type', negotiated.contentType);
    return;
  }
  ctx.body = JSON.stringify(status, null, ctx.state.query && wantsPretty(ctx) ? 2 : undefined) + '\n';
  ctx.set('Content-Type', 'application/json');
}

/** the negotiated type when the client prefers one other than JSON that can carry a Status */
function statusFormat(ctx: ApiContext): Negotiated | undefined {
  let negotiated: Negotiated;
  try {
    negotiated = negotiateOutput(ctx.get('Accept'), { allowTable: false, stream: false });
  } catch {
    return undefined; // not acceptable: JSON, as kube falls back to
  }
  const { codec } = negotiated;
  if (codec.mediaType === 'application/json' || !codec.canEncode) return undefined;
  return codec.canEncode({ kind: 'Status', apiVersion: 'v1' }) ? negotiated : undefined;
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
