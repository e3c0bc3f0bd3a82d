/**
 * CORS (kube's WithCORS, on with --cors-allowed-origins): a request whose Origin matches one of the
 * patterns gets the Access-Control-* headers; a preflight (OPTIONS) from such an origin is answered
 * 204 here, before authentication, since browsers send preflights without credentials. Requests
 * from other origins pass on without the headers (the browser then refuses the response).
 */
import type { ApiMiddleware } from '../context';

const ALLOWED_METHODS = ['POST', 'GET', 'OPTIONS', 'PUT', 'DELETE', 'PATCH'].join(', ');
const ALLOWED_HEADERS = ['Content-Type', 'Content-Length', 'Accept-Encoding', 'X-CSRF-Token', 'Authorization', 'X-Requested-With', 'If-Modified-Since'].join(', ');
const EXPOSED_HEADERS = 'Date';

/** the patterns as regular expressions (unanchored, as Go's MatchString); checked when the flags are parsed */
export function cors(allowedOrigins: readonly string[]): ApiMiddleware {
  const patterns = allowedOrigins.map((p) => new RegExp(p));
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (origin !== '' && patterns.some((re) => re.test(origin))) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Methods', ALLOWED_METHODS);
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      ctx.set('Access-Control-Allow-Credentials', 'true');
      if (ctx.method === 'OPTIONS') {
        ctx.status = 204;
        return;
      }
    }
    await next();
  };
}
