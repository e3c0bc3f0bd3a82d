/** create (POST), update (PUT) and patch (PATCH), on the resource and its status and scale subresources. */
import { errors } from '../../api/errors';
import type { KubeObject } from '../../api/kind';
import type { WriteResult } from '../../api/registry/types';
import { apiVersionOf } from '../../api/scheme';
import { decodeObject, patchTypeOf, readBody } from '../body';
import { jsonStrictErrors, strictDecodingErrorsOf } from '../codecs/duplicate-fields';
import { negotiateOutput } from '../negotiate';
import type { Negotiated } from '../negotiate';
import { parseCreateOptions, parsePatchOptions, parseUpdateOptions } from '../query';
import { writeObject, writeWarnings } from '../respond';
import type { ResourceDeps, ResourceRequest } from './types';

function writeResult(r: ResourceRequest, result: WriteResult, negotiated: Negotiated): void {
  writeWarnings(r.ctx, result.warnings);
  writeObject(r.ctx, result.created ? 201 : 200, result.object, negotiated);
}

/**
 * decode the body as the kind the URL names (Scale for /scale), filling in apiVersion and kind
 * when absent as kube's decoder defaults them, and rejecting another group/version or kind with 400.
 * The body's duplicate fields go to `strict`, for the registry to report under fieldValidation.
 */
async function readObject(r: ResourceRequest, deps: ResourceDeps, strict: string[] = []): Promise<KubeObject> {
  const body = await readBody(r.ctx.req, deps.maxRequestBodyBytes);
  const obj = decodeObject(body, r.ctx.get('Content-Type') || undefined, r.kind) as KubeObject;
  strict.push(...strictDecodingErrorsOf(obj));
  const bodyKinds = r.declared?.bodyKinds;
  if (bodyKinds && r.ctx.method === 'POST') {
    // an action's body may be any of its kinds (kube decodes policy/v1 and v1beta1 Evictions alike)
    const found = bodyKinds.find((k) => (obj.apiVersion === undefined || obj.apiVersion === '' || obj.apiVersion === k.apiVersion) && (obj.kind === undefined || obj.kind === '' || obj.kind === k.kind));
    if (!found) {
      const want = bodyKinds[0];
      throw errors.badRequest(`the API version in the data (${String(obj.apiVersion ?? '')}) or kind (${String(obj.kind ?? '')}) is not one of ${bodyKinds.map((k) => `${k.apiVersion}/${k.kind}`).join(', ')} (expected ${want.apiVersion} ${want.kind})`);
    }
    return { ...obj, apiVersion: found.apiVersion, kind: found.kind };
  }
  const apiVersion = r.subresource === 'scale' ? 'autoscaling/v1' : apiVersionOf(r.kind);
  const kind = r.subresource === 'scale' ? 'Scale' : r.kind.kind;
  if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== apiVersion) {
    throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`);
  }
  if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== kind) {
    throw errors.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${kind})`);
  }
  return { ...obj, apiVersion, kind };
}

export async function createResource(r: ResourceRequest, deps: ResourceDeps): Promise<void> {
  const negotiated = negotiateOutput(r.ctx.get('Accept'), { allowTable: false, stream: false });
  const opts = parseCreateOptions(r.ctx.state.query);
  opts.userAgent = r.ctx.get('User-Agent');
  opts.user = r.ctx.state.user;
  const strict: string[] = [];
  const obj = await readObject(r, deps, strict);
  if (strict.length) opts.strictDecodingErrors = strict;
  const result = r.declared ? await deps.registry.createSubresource(r.target, r.declared.name, obj, opts) : await deps.registry.create(r.target, obj, opts);
  writeResult(r, result, negotiated);
}

export async function updateResource(r: ResourceRequest, deps: ResourceDeps): Promise<void> {
  const negotiated = negotiateOutput(r.ctx.get('Accept'), { allowTable: false, stream: false });
  const opts = parseUpdateOptions(r.ctx.state.query);
  opts.userAgent = r.ctx.get('User-Agent');
  opts.user = r.ctx.state.user;
  const strict: string[] = [];
  const obj = await readObject(r, deps, strict);
  if (strict.length) opts.strictDecodingErrors = strict;
  const reg = deps.registry;
  const result = r.declared
    ? await reg.updateSubresource(r.target, r.declared.name, obj, opts)
    : r.subresource === 'status'
      ? await reg.updateStatus(r.target, obj, opts)
      : r.subresource === 'scale'
        ? await reg.updateScale(r.target, obj, opts)
        : await reg.update(r.target, obj, opts);
  writeResult(r, result, negotiated);
}

/** kube decodes merge and strategic merge patches strictly too: their repeated keys are reported */
function patchStrictErrors(body: string): string[] {
  try {
    JSON.parse(body);
  } catch {
    return []; // the registry answers the syntax error
  }
  return jsonStrictErrors(body);
}

export async function patchResource(r: ResourceRequest, deps: ResourceDeps): Promise<void> {
  const negotiated = negotiateOutput(r.ctx.get('Accept'), { allowTable: false, stream: false });
  const type = patchTypeOf(r.ctx.get('Content-Type') || undefined, { serverSideApply: deps.featureGates?.enabled('ServerSideApply') ?? true });
  const opts = parsePatchOptions(r.ctx.state.query, type);
  opts.userAgent = r.ctx.get('User-Agent');
  opts.user = r.ctx.state.user;
  const body = (await readBody(r.ctx.req, deps.maxRequestBodyBytes)).toString('utf8');
  if (body.trim() === '') throw errors.badRequest('the body of the request was empty');
  const strict = type === 'merge' || type === 'strategic' ? patchStrictErrors(body) : [];
  if (strict.length) opts.strictDecodingErrors = strict;
  const reg = deps.registry;
  const result = r.declared
    ? await reg.patchSubresource(r.target, r.declared.name, type, body, opts)
    : r.subresource === 'status'
      ? await reg.patchStatus(r.target, type, body, opts)
      : r.subresource === 'scale'
        ? await reg.patchScale(r.target, type, body, opts)
        : await reg.patch(r.target, type, body, opts);
  writeResult(r, result, negotiated);
}
