/**
 * kube's WithAuthentication: the authenticator chain names the caller (ctx.state.user) or the
 * request ends with 401 Unauthorized (the reason is logged, never told to the client). On success
 * the Authorization header and any front-proxy headers the authenticator consumed are removed, so
 * nothing behind (handlers, extension servers) sees the credential.
 */
import type { TLSSocket } from 'node:tls';
import type { ChainAuthenticator } from '../../auth/authenticator';
import { errors } from '../../api/errors';
import type { ApiMiddleware } from '../context';

export function authentication(chain: ChainAuthenticator): ApiMiddleware {
  return async (ctx, next) => {
    const result = await chain.authenticate({
      headers: ctx.req.headers,
      socket: ctx.req.socket as TLSSocket,
      method: ctx.method,
      url: ctx.url,
    });
    if (!result.user) {
      ctx.state.log.debug({ errors: result.errors }, 'Unable to authenticate the request');
      throw errors.unauthorized();
    }
    ctx.state.user = result.user;
    if (result.audiences) ctx.state.audiences = result.audiences;
    delete ctx.req.headers.authorization;
    for (const h of result.consumedHeaders ?? []) delete ctx.req.headers[h.toLowerCase()];
    await next();
  };
}
