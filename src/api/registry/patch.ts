/**
 * PATCH: apply a json, merge or strategic merge patch to the newest object, then continue as an
 * update. A resourceVersion in the patched result that differs from the current one is a
 * precondition failure (409). A concurrent writer makes kube's GuaranteedUpdate re-read and
 * re-apply the patch; a failed client precondition is not retried. Server-side apply is not served
 * yet: 415 UnsupportedMediaType.
 */
import { ApiError, errors } from '../errors';
import type { KindDefinition } from '../kind';
import type { KubeObject } from '../kind';
import type { PatchType, Target, WriteOptions, WriteResult } from './types';
import type { Current, RegistryContext } from './context';
import { kindOptions, requireName, requireNamespace } from './context';
import { clone } from './codec';
import { applyPatch } from '../patch';
import { withWarnings } from './create';
import { guaranteedUpdate } from './guaranteed-update';
import { checkWrittenObject, prepareUpdate } from './update';
import { trackWrite } from './managed';
import { serverSideApply } from './apply';

/** kube's 415 for a patch type the kind does not take (custom resources: no strategic merge patch) */
export function checkPatchType(kind: KindDefinition, type: PatchType): void {
  const allowed = kindOptions(kind).patchTypes;
  if (!allowed || allowed.includes(type)) return;
  const names: Record<PatchType, string> = {
    json: 'application/json-patch+json',
    merge: 'application/merge-patch+json',
    strategic: 'application/strategic-merge-patch+json',
    apply: 'application/apply-patch+yaml',
  };
  throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${allowed.map((t) => names[t]).join(', ')}`);
}

/** apply a non-apply patch to a copy of doc; the result must still be an object */
export function patchObject(ctx: RegistryContext, type: PatchType, doc: KubeObject, body: string, root: string): KubeObject {
  if (type === 'apply') throw errors.unsupportedMediaType('application/apply-patch+yaml');
  const defs = ctx.definitions;
  // strategic merge patch needs the kind's schema (list merge keys); without it kube answers 400
  const result = applyPatch(type, clone(doc), body, defs && defs[root] ? { definitions: defs, root } : undefined);
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw errors.badRequest('the patched object must be a JSON object');
  }
  return result as KubeObject;
}

export async function patch(
  ctx: RegistryContext,
  target: Target,
  type: PatchType,
  body: string,
  options: WriteOptions & { force?: boolean },
): Promise<WriteResult> {
  checkPatchType(target.kind, type);
  requireName(target);
  requireNamespace(target);
  if (type === 'apply') return serverSideApply(ctx, target, body, options);
  return patchWith(ctx, target, type, body, options, (patched, current) => prepareUpdate(ctx, target.kind, patched, current));
}

/**
 * The non-apply patch flow of a resource and of its status: patch the newest object, check what
 * the patch made of it, prepare it as the verb's update would, and record the manager's fields.
 */
export async function patchWith(
  ctx: RegistryContext,
  target: Target,
  type: PatchType,
  body: string,
  options: WriteOptions,
  prepare: (patched: KubeObject, current: Current) => KubeObject,
  subresource?: string,
): Promise<WriteResult> {
  const { kind } = target;
  let warnings: string[] = [];
  const result = await guaranteedUpdate(ctx, {
    target,
    dryRun: options.dryRun,
    compute: (current) => {
      const checked = checkWrittenObject(ctx, target, patchObject(ctx, type, current.obj, body, kind.schemaName), options);
      warnings = checked.warnings;
      return trackWrite(ctx, kind, current.obj, prepare(checked.object, current), options, subresource);
    },
    admission: { subresource, options, optionsKind: 'PatchOptions' },
  });
  return withWarnings(result, warnings);
}
