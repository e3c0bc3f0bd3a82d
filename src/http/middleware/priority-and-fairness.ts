/**
 * kube's WithPriorityAndFairness (1.20): every request is classified by the FlowSchemas, answered
 * with the UIDs of its FlowSchema and priority level in X-Kubernetes-PF-FlowSchema-UID and
 * X-Kubernetes-PF-PriorityLevel-UID, and waits for a seat of its level (exempt levels never wait).
 * A request its level rejects (Reject, full queue, waited too long) is a 429 TooManyRequests with
 * `Retry-After: 1`. Long-running requests (watches, exec, logs) are not classified nor counted,
 * as in kube 1.20; kube 1.22 and later count a watch's initialisation against its level.
 */
import { ApiError } from '../../api/errors';
import type { UserInfo } from '../../api/reviews/authorizer';
import type { Classification } from '../../flowcontrol/flow-control';
import type { Seat } from '../../flowcontrol/queue-set';
import type { ApiContext, ApiMiddleware } from '../context';
import { isLongRunning } from '../request-info';
import type { RequestInfo } from '../request-info';

/** what the middleware needs of the flow controller */
export interface RequestFlowControl {
  classify(user: UserInfo, info: RequestInfo): Classification;
  /** a seat without waiting, or undefined when the request must queue (then: admit) */
  tryAdmit?(c: Classification): Seat | undefined;
  admit(c: Classification, signal?: AbortSignal): Promise<Seat>;
}

/** requests of an app without authentication count as anonymous */
const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

export function priorityAndFairness(flowControl: RequestFlowControl): ApiMiddleware {
  return async (ctx, next) => {
    const info = ctx.state.info;
    if (isLongRunning(info)) return next();
    const c = flowControl.classify(ctx.state.user ?? anonymous, info);
    if (c.flowSchema.uid) ctx.set('X-Kubernetes-PF-FlowSchema-UID', c.flowSchema.uid);
    if (c.priorityLevel.uid) ctx.set('X-Kubernetes-PF-PriorityLevel-UID', c.priorityLevel.uid);
    const seat = flowControl.tryAdmit?.(c) ?? (await queued(ctx, flowControl, c));
    try {
      await next();
    } finally {
      seat.release();
    }
  };
}

/** wait in the level's queues; a client that goes away while queued gives up its place */
async function queued(ctx: ApiContext, flowControl: RequestFlowControl, c: Classification): Promise<Seat> {
  const gone = new AbortController();
  const onClose = (): void => gone.abort();
  ctx.res.once('close', onClose);
  try {
    return await flowControl.admit(c, gone.signal);
  } catch (err) {
    ctx.state.log.debug({ flowSchema: c.flowSchema.name, priorityLevel: c.priorityLevel.name, reason: (err as Error).message }, 'request rejected by priority and fairness');
    throw new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 });
  } finally {
    ctx.res.off('close', onClose);
  }
}
