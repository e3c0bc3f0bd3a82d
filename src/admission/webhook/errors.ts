/**
 * The errors webhook admission answers with, as kube words them (admission/plugin/webhook/errors
 * and webhookutil.ErrCallingWebhook).
 */
import { ApiError, errors, type StatusDetails, type StatusReason } from '../../api/errors';
import { isObj, num, str, type Obj } from '../../api/kinds/util';
import type { AdmissionAttributes } from '../types';

/** failurePolicy Fail on a webhook that could not be called or gave an unusable answer: 500 */
export function callingWebhookError(webhook: string, reason: string): ApiError {
  return errors.internal(`failed calling webhook "${webhook}": ${reason}`);
}

/** sideEffects Unknown or Some on a dry-run request: 400 */
export function dryRunUnsupported(webhook: string): ApiError {
  return errors.badRequest(`admission webhook "${webhook}" does not support dry run`);
}

/**
 * A denial (kube's ToStatusErr): the webhook's Status with its code (403 when it gave none; a code
 * below 400 becomes 400), its reason (Forbidden, or InternalError for 500, when it gave none), and
 * the message `admission webhook "x" denied the request: <message or reason>`.
 */
export function denial(webhook: string, result: Obj | undefined, a: AdmissionAttributes): ApiError {
  const r = result ?? {};
  let code = num(r.code) ?? 0;
  if (code === 0) code = 403;
  else if (code < 400) code = 400;
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const message = str(r.message) ? `${deniedBy}: ${str(r.message)}` : str(r.reason) ? `${deniedBy}: ${str(r.reason)}` : `${deniedBy} without explanation`;
  const reason = (str(r.reason) || (code === 500 ? 'InternalError' : 'Forbidden')) as StatusReason;
  let details: StatusDetails;
  if (isObj(r.details)) details = r.details as StatusDetails;
  else if (code === 500) details = { causes: [{ message }] };
  else details = { name: a.name || 'Unknown', group: a.kind.group, kind: a.kind.resource };
  return new ApiError(code, reason, message, details);
}
