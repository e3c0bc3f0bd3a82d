/**
 * The resource routes, generic over the Scheme: /api/v1/... and /apis/<group>/<version>/...,
 * namespaced and cluster-scoped shapes, lists across namespaces, the status and scale subresources
 * and the deprecated /watch/ paths. Resolves the request to a kind and a Target, then calls the verb.
 */
import type { KindDefinition } from '../api/kind';
import type { Scheme } from '../api/scheme';
import type { ApiContext } from './context';
import { deleteCollection, deleteResource } from './handlers/delete';
import { getResource, listResource, watchResource } from './handlers/read';
import type { ResourceDeps, ResourceRequest, Subresource } from './handlers/types';
import { createResource, patchResource, updateResource } from './handlers/write';
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

function subresourceOf(kind: KindDefinition, name: string): Subresource | undefined {
  if (name === 'status' && kind.statusSubresource) return 'status';
  if (name === 'scale' && kind.scale) return 'scale';
  return undefined;
}

/** resolve the path against the scheme: 404 for what is not served, 405 for a method the path lacks */
export function resolveResource(scheme: Scheme, ctx: ApiContext, info: ResourceRequestInfo): ResourceRequest {
  const kind = scheme.byResource(info.group, info.version, info.resource);
  if (!kind || info.extra.length > 0) throw pathNotFound();
  // a namespaced kind has no named path outside a namespace; a cluster-scoped kind none inside one
  if (kind.namespaced ? info.namespace === undefined && info.name !== undefined : info.namespace !== undefined) throw pathNotFound();
  let subresource: Subresource | undefined;
  if (info.subresource !== undefined) {
    const s = subresourceOf(kind, info.subresource);
    if (!s || info.watchPath) throw pathNotFound();
    subresource = s;
  }

  const verb = info.verb;
  const allowed = subresource
    ? subresourceVerbs
    : info.name !== undefined
      ? namedVerbs
      : kind.namespaced && info.namespace === undefined
        ? allNamespacesVerbs
        : collectionVerbs;
  const kindVerbs = kind.verbs ?? defaultVerbs;
  const methodOk = !info.watchPath || ctx.method === 'GET' || ctx.method === 'HEAD';
  const verbOk = allowed.has(verb) && (subresource !== undefined || kindVerbs.includes(verb)) && (verb !== 'watch' || info.name === undefined || info.watchPath);
  if (!methodOk || !verbOk) throw methodNotSupported(info.resource, info.group, verb);

  const target: ResourceRequest['target'] = { kind };
  if (kind.namespaced && info.namespace !== undefined) target.namespace = info.namespace;
  if (info.name !== undefined) target.name = info.name;
  return { ctx, info, kind, target, subresource };
}

export async function serveResource(scheme: Scheme, deps: ResourceDeps, ctx: ApiContext, info: ResourceRequestInfo): Promise<void> {
  const r = resolveResource(scheme, ctx, info);
  await handlers[info.verb](r, deps);
}
