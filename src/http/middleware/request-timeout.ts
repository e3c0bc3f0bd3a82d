/**
 * kube's --request-timeout for everything but long-running requests: a request still unanswered
 * after the timeout gets a 504 Timeout Status. A `?timeout=` query parameter (a Go duration, as
 * kubectl sends `timeout=32s`) can only shorten it.
 */
import { ApiError, errors } from '../../api/errors';
import type { ApiMiddleware } from '../context';
import { isLongRunning } from '../request-info';

const units: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** parse a Go duration (`32s`, `1m30s`, `500ms`) into milliseconds; undefined when malformed */
export function parseGoDuration(s: string): number | undefined {
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  const body = s.startsWith('+') || s.startsWith('-') ? s.slice(1) : s;
  if (body === '0') return 0;
  if (body === '') return undefined;
  let consumed = 0;
  while ((m = re.exec(body)) !== null) {
    total += Number(m[1]) * units[m[2]];
    consumed = re.lastIndex;
  }
  if (consumed !== body.length) return undefined;
  return s.startsWith('-') ? -total : total;
}

export function requestTimeout(defaultSeconds: number): ApiMiddleware {
  return async (ctx, next) => {
    if (isLongRunning(ctx.state.info)) return next();
    let ms = defaultSeconds * 1000;
    const given = ctx.state.query.get('timeout');
    if (given) {
      const d = parseGoDuration(given);
      if (d === undefined) throw errors.badRequest(`invalid timeout specified in the request URL: ${given}`);
      if (d > 0 && d < ms) ms = d;
    }
    if (!(ms > 0)) return next();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ApiError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {})),
        ms,
      );
    });
    try {
      await Promise.race([next(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
