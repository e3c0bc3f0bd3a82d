/**
 * The status subresource. GET answers the whole object. PUT and PATCH change only status: as kube's
 * status strategies (deploymentStatusStrategy and friends) do, everything but metadata and status
 * comes from the stored object, labels too; generation is not bumped. Same resourceVersion
 * precondition rules as the main resource.
 */
import { errors } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import type { GetOptions, PatchType, Target, WriteOptions, WriteResult } from './types';
import type { Current, RegistryContext } from './context';
import { requireName, requireNamespace } from './context';
import { clone } from './codec';
import { get } from './get';
import { carryUpdateMeta, metaOf, specPart } from './meta';
import { withWarnings } from './create';
import { guaranteedUpdate } from './guaranteed-update';
import { checkPrecondition, checkWrittenObject } from './update';
import { checkPatchType, patchWith } from './patch';
import { validateForStatusUpdate } from './validate';
import { trackWrite } from './managed';
import { serverSideApply } from './apply';

function requireStatus(kind: KindDefinition): void {
  if (!kind.statusSubresource) throw errors.notFound({ group: kind.group, resource: `${kind.resource}/status` }, '');
}

export async function getStatus(ctx: RegistryContext, target: Target, options: GetOptions): Promise<KubeObject> {
  requireStatus(target.kind);
  return get(ctx, target, options);
}

/** the status write of `obj` over the current object */
function prepareStatusUpdate(ctx: RegistryContext, kind: KindDefinition, obj: KubeObject, current: Current): KubeObject {
  checkPrecondition(kind, obj, current);
  const old = current.obj;
  const next: KubeObject = { ...clone(specPart(old)), apiVersion: old.apiVersion, kind: old.kind, metadata: obj.metadata };
  if (obj.status !== undefined) next.status = obj.status;
  carryUpdateMeta(next, old);
  const meta = metaOf(next);
  if (old.metadata?.labels) meta.labels = clone(old.metadata.labels);
  else delete meta.labels;
  kind.strategy.prepareForStatusUpdate?.(next, old);
  kind.strategy.defaults(next);
  validateForStatusUpdate(ctx, kind, next, old);
  return next;
}

export async function updateStatus(ctx: RegistryContext, target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
  const { kind } = target;
  requireStatus(kind);
  const { object: original, warnings } = checkWrittenObject(ctx, target, body, options);
  const result = await guaranteedUpdate(ctx, {
    target,
    dryRun: options.dryRun,
    compute: (current) => trackWrite(ctx, kind, current.obj, prepareStatusUpdate(ctx, kind, clone(original), current), options, 'status'),
    admission: { subresource: 'status', options },
  });
  return withWarnings(result, warnings);
}

export async function patchStatus(
  ctx: RegistryContext,
  target: Target,
  type: PatchType,
  body: string,
  options: WriteOptions & { force?: boolean },
): Promise<WriteResult> {
  const { kind } = target;
  requireStatus(kind);
  checkPatchType(kind, type);
  requireName(target);
  requireNamespace(target);
  if (type === 'apply') {
    return serverSideApply(ctx, target, body, options, {
      subresource: 'status',
      prepare: (obj, current) => prepareStatusUpdate(ctx, kind, obj, current),
      allowCreate: false,
    });
  }
  return patchWith(ctx, target, type, body, options, (patched, current) => prepareStatusUpdate(ctx, kind, patched, current), 'status');
}
