/** delete (DELETE on a name) and deletecollection (DELETE on a collection). */
import { decodeObject, readBody } from '../body';
import { negotiateOutput } from '../negotiate';
import { parseDeleteOptions, parseListOptions } from '../query';
import { writeObject } from '../respond';
import type { ResourceDeps, ResourceRequest } from './types';
import type { DeleteOptions } from '../../api/registry/types';

/** DeleteOptions from the body (JSON or YAML) when there is one, else from the query, as kube reads them */
async function deleteOptions(r: ResourceRequest, deps: ResourceDeps): Promise<DeleteOptions> {
  const body = await readBody(r.ctx.req, deps.maxRequestBodyBytes);
  const decoded = body.length > 0 ? decodeObject(body, r.ctx.get('Content-Type') || undefined) : undefined;
  const opts = parseDeleteOptions(r.ctx.state.query, decoded);
  opts.user = r.ctx.state.user;
  return opts;
}

export async function deleteResource(r: ResourceRequest, deps: ResourceDeps): Promise<void> {
  const negotiated = negotiateOutput(r.ctx.get('Accept'), { allowTable: false, stream: false });
  const opts = await deleteOptions(r, deps);
  const result = await deps.registry.delete(r.target, opts);
  writeObject(r.ctx, result.code, result.body, negotiated);
}

export async function deleteCollection(r: ResourceRequest, deps: ResourceDeps): Promise<void> {
  const negotiated = negotiateOutput(r.ctx.get('Accept'), { allowTable: false, stream: false });
  const list = parseListOptions(r.ctx.state.query, false);
  const opts = await deleteOptions(r, deps);
  writeObject(r.ctx, 200, await deps.registry.deleteCollection(r.target, list, opts), negotiated);
}
