/**
 * The resource routes, generic over the Scheme: /api/v1/... and /apis/<group>/<version>/...,
 * namespaced and cluster-scoped shapes, lists across namespaces, the status and scale subresources
 * and the deprecated /watch/ paths. Resolves the request to a kind and a Target, then calls the verb.
 */
import type { KindDefinition, SubresourceDefinition } from '../api/kind';
import type { Scheme } from '../api/scheme';
import type { ApiContext } from './context';
import { deleteCollection, deleteResource } from './handlers/delete';
import { getResource, listResource, watchResource } from './handlers/read';
import type { ResourceDeps, ResourceRequest, Subresource } from './handlers/types';
import { createResource, patchResource, updateResource } from './handlers/write';
import { connectResource } from './handlers/connect';
import { methodNotSupported, pathNotFound } from './http-errors';
import { defaultVerbs } from './discovery';
import type { ResourceRequestInfo } from './request-info';

type Handler = (r: ResourceRequest, deps: ResourceDeps) => Promise<void>;

const handlers: Record<string, Handler> = {
  get: getResource,
  list: listResource,
  watch: watchResource,
  create: createResource,
  update: updateResource,
  patch: patchResource,
  delete: deleteResource,
  deletecollection: deleteCollection,
};

/** verbs a path shape serves: named object, collection in a namespace (or cluster-scoped), across namespaces */
const namedVerbs = new Set(['get', 'update', 'patch', 'delete', 'watch']);
const collectionVerbs = new Set(['list', 'watch', 'create', 'deletecollection']);
const allNamespacesVerbs = new Set(['list', 'watch']);
const subresourceVerbs = new Set(['get', 'update', 'patch']);

function subresourceOf(kind: KindDefinition, name: string): { name: Subresource; declared?: SubresourceDefinition } | undefined {
  if (name === 'status' && kind.statusSubresource) return { name };
  if (name === 'scale' && kind.scale) return { name };
  const declared = kind.subresources?.find((s) => s.name === name);
  return declared && { name, declared };
}

/** resolve the path against the scheme: 404 for what is not served, 405 for a method the path lacks */
export function resolveResource(scheme: Scheme, ctx: ApiContext, info: ResourceRequestInfo): ResourceRequest {
  const kind = scheme.byResource(info.group, info.version, info.resource);
  if (!kind) throw pathNotFound();
  // a namespaced kind has no named path outside a namespace; a cluster-scoped kind none inside one
  if (kind.namespaced ? info.namespace === undefined && info.name !== undefined : info.namespace !== undefined) throw pathNotFound();
  let sub: ReturnType<typeof subresourceOf>;
  if (info.subresource !== undefined) {
    sub = subresourceOf(kind, info.subresource);
    if (!sub || info.watchPath) throw pathNotFound();
  }
  // only connect subresources (pods/x/proxy/<path>) have segments after the subresource
  if (info.extra.length > 0 && sub?.declared?.type !== 'connect') throw pathNotFound();

  const verb = info.verb;
  const allowed = sub?.declared
    ? new Set(sub.declared.verbs)
    : sub
      ? subresourceVerbs
      : info.name !== undefined
        ? namedVerbs
        : kind.namespaced && info.namespace === undefined
          ? allNamespacesVerbs
          : collectionVerbs;
  const kindVerbs = kind.verbs ?? defaultVerbs;
  const methodOk = !info.watchPath || ctx.method === 'GET' || ctx.method === 'HEAD';
  const verbOk = allowed.has(verb) && (sub !== undefined || kindVerbs.includes(verb)) && (verb !== 'watch' || info.name === undefined || info.watchPath);
  if (!methodOk || !verbOk) throw methodNotSupported(sub?.declared ? `${info.resource}/${sub.name}` : info.resource, info.group, verb);

  const target: ResourceRequest['target'] = { kind };
  if (kind.namespaced && info.namespace !== undefined) target.namespace = info.namespace;
  if (info.name !== undefined) target.name = info.name;
  return { ctx, info, kind, target, subresource: sub?.name, declared: sub?.declared };
}

export async function serveResource(scheme: Scheme, deps: ResourceDeps, ctx: ApiContext, info: ResourceRequestInfo): Promise<void> {
  const r = resolveResource(scheme, ctx, info);
  // pods/ephemeralcontainers is not served at all with its gate off
  if (r.kind.group === '' && r.kind.resource === 'pods' && r.subresource === 'ephemeralcontainers' && deps.featureGates?.enabled('EphemeralContainers') === false) throw pathNotFound();
  if (r.declared?.type === 'connect') return connectResource(r, deps);
  await handlers[info.verb](r, deps);
}
