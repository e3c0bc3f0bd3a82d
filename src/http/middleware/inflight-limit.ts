/**
 * kube's --max-requests-inflight and --max-mutating-requests-inflight: requests over the limit get a
 * 429 TooManyRequests Status with `Retry-After: 1`. Long-running requests (watches) and health
 * probes are exempt. A limit of 0 or undefined means no limit.
 */
import { ApiError } from '../../api/errors';
import type { ApiMiddleware } from '../context';
import { isLongRunning, isMutating } from '../request-info';

export interface InflightLimits {
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
}

const healthPaths = /^\/(healthz|livez|readyz)(\/|$)/;

export function inflightLimit(limits: InflightLimits): ApiMiddleware {
  const inFlight = { readOnly: 0, mutating: 0 };
  return async (ctx, next) => {
    const info = ctx.state.info;
    if (isLongRunning(info) || healthPaths.test(ctx.path)) return next();
    const kind = isMutating(info) ? 'mutating' : 'readOnly';
    const limit = kind === 'mutating' ? limits.maxMutatingRequestsInflight : limits.maxRequestsInflight;
    if (limit && inFlight[kind] >= limit) {
      throw new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 });
    }
    inFlight[kind]++;
    try {
      await next();
    } finally {
      inFlight[kind]--;
    }
  };
}
