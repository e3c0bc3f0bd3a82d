/**
 * What the audit policy and the events know of a request from its request info alone: kube's
 * authorizer attributes (as the policy checker reads them) and the event's objectRef.
 */
import type { UserInfo } from '../api/reviews/authorizer';
import type { RequestInfo } from '../http/request-info';
import type { PolicyAttributes } from './policy';
import type { ObjectReference } from './types';

export function policyAttributes(info: RequestInfo, user: UserInfo | undefined): PolicyAttributes {
  const u = user ? { name: user.name, groups: user.groups } : undefined;
  if (!info.isResourceRequest) return { user: u, verb: info.verb, resourceRequest: false, path: info.path };
  return {
    user: u,
    verb: info.verb,
    resourceRequest: true,
    apiGroup: info.group,
    resource: info.resource,
    subresource: info.subresource,
    namespace: namespaceOf(info),
    name: info.name,
  };
}

/** kube's request info puts a namespace's own name in its namespace field */
function namespaceOf(info: RequestInfo): string | undefined {
  if (!info.isResourceRequest) return undefined;
  if (info.namespace === undefined && info.resource === 'namespaces' && info.name) return info.name;
  return info.namespace;
}

export function objectRef(info: RequestInfo): ObjectReference | undefined {
  if (!info.isResourceRequest) return undefined;
  const ref: ObjectReference = { resource: info.resource };
  const ns = namespaceOf(info);
  if (ns) ref.namespace = ns;
  if (info.name) ref.name = info.name;
  if (info.group) ref.apiGroup = info.group;
  ref.apiVersion = info.version;
  if (info.subresource) ref.subresource = info.subresource;
  return ref;
}
