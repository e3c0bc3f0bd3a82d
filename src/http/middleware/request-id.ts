/** Request id: kube's audit ID, echoed in the `Audit-Id` response header. */
import { randomUUID } from 'node:crypto';
import type { ApiMiddleware } from '../context';

export function requestId(): ApiMiddleware {
  return async (ctx, next) => {
    const given = ctx.get('Audit-ID');
    ctx.state.requestId = given && given.length <= 128 ? given : randomUUID();
    ctx.set('Audit-Id', ctx.state.requestId);
    await next();
  };
}
