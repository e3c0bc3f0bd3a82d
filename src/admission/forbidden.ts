/**
 * The refusals admission plugins answer with, in kube's words (admission.NewForbidden and friends):
 * `<resource>[.<group>] "<name>" is forbidden: <why>`.
 */
import { ApiError } from '../api/errors';
import type { AdmissionAttributes } from './types';

function qualifiedResource(a: AdmissionAttributes): string {
  const kind = a.kind;
  return kind.group ? `${kind.resource}.${kind.group}` : kind.resource;
}

/** the name a refusal reports: the request's, else the object's (generateName objects have none yet) */
function nameOf(a: AdmissionAttributes): string {
  return a.name || a.object?.metadata?.name || a.oldObject?.metadata?.name || '';
}

/** kube's admission.NewForbidden: 403 Forbidden about the request's object */
export function admissionForbidden(a: AdmissionAttributes, why: string): ApiError {
  const name = nameOf(a);
  const resource = qualifiedResource(a);
  const message = name ? `${resource} "${name}" is forbidden: ${why}` : `${resource} is forbidden: ${why}`;
  return new ApiError(403, 'Forbidden', message, { name, group: a.kind.group, kind: a.kind.resource });
}

/** kube's utilerrors.NewAggregate text: one error as itself, several as `[a, b]` */
export function aggregate(messages: string[]): string {
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

/** true when the attributes are about `resource` in `group` (the main resource, unless subresource given) */
export function isResource(a: AdmissionAttributes, group: string, resource: string, subresource = ''): boolean {
  return a.kind.group === group && a.kind.resource === resource && a.subresource === subresource;
}
