/**
 * PUT: replace one object, as kube's update handler and generic store: name and namespace must
 * match the request, metadata.resourceVersion is a precondition (unset = unconditional update for
 * kinds that allow it, all built-ins here do), system metadata comes from the stored object, status
 * is kept for kinds with a status subresource, generation is bumped when anything but metadata and
 * status changed. Create-on-update only for kinds that allow it; otherwise 404.
 */
import { errors } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import type { Target, WriteOptions, WriteResult } from './types';
import type { Current, RegistryContext } from './context';
import { kindOptions, requireName, requireNamespace } from './context';
import { clone } from './codec';
import { bumpGeneration, carryUpdateMeta, ensureNamespace, metaOf } from './meta';
import { checkTypeMeta, create, withWarnings } from './create';
import { checkSchema } from './schema-check';
import { guaranteedUpdate } from './guaranteed-update';
import { parseResourceVersion } from './resource-version';
import { OPTIMISTIC_LOCK_MESSAGE, qualifiedResource } from './storage-errors';
import { validateForUpdate } from './validate';
import { isApiError } from '../errors';
import { trackWrite } from './managed';

/** kube's checkName: the object's name must be the one in the URL */
export function checkName(obj: KubeObject, name: string): void {
  const objName = obj.metadata?.name ?? '';
  if (objName !== name) throw errors.badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
}

/**
 * the resourceVersion precondition of a write: a stale one is a 409 Conflict; an unset one means
 * "unconditional" for kinds with AllowUnconditionalUpdate, else 422 as kube's store answers
 */
export function checkPrecondition(kind: KindDefinition, obj: KubeObject, current: Current): void {
  const rv = obj.metadata?.resourceVersion ?? '';
  const name = current.obj.metadata?.name ?? '';
  if (rv === '' || rv === '0') {
    if (kindOptions(kind).allowUnconditionalUpdate === false) {
      throw errors.invalid(kind.resource, kind.group, name, [
        { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be specified for an update', field: 'metadata.resourceVersion' },
      ]);
    }
    return;
  }
  if (parseResourceVersion(rv) !== current.kv.modRevision) {
    throw errors.conflict(qualifiedResource(kind), name, OPTIMISTIC_LOCK_MESSAGE);
  }
}

/**
 * the main-resource update of `obj` over the current object: precondition, carried system metadata,
 * defaults, kept status, PrepareForUpdate, generation, validation
 */
export function prepareUpdate(ctx: RegistryContext, kind: KindDefinition, obj: KubeObject, current: Current): KubeObject {
  checkPrecondition(kind, obj, current);
  const old = current.obj;
  carryUpdateMeta(obj, old);
  kind.strategy.defaults(obj);
  if (kind.statusSubresource) {
    if (old.status === undefined) delete obj.status;
    else obj.status = clone(old.status);
  }
  kind.strategy.prepareForUpdate?.(obj, old);
  bumpGeneration(kind, obj, old);
  validateForUpdate(ctx, kind, obj, old);
  return obj;
}

/**
 * What every write checks of the object it is given (a PUT body, a patched result): apiVersion and
 * kind, the schema (fieldValidation decides about unknown fields), and namespace and name against
 * the URL. Returns the object to write and the warnings for the response.
 */
export function checkWrittenObject(ctx: RegistryContext, target: Target, body: KubeObject, options: WriteOptions): { object: KubeObject; warnings: string[] } {
  const { kind } = target;
  const name = requireName(target);
  const namespace = requireNamespace(target);
  const object = checkTypeMeta(kind, body);
  const warnings = options.trusted ? [] : checkSchema(ctx, kind, object, options.fieldValidation, options.strictDecodingErrors);
  ensureNamespace(kind, metaOf(object), namespace);
  checkName(object, name);
  return { object, warnings };
}

export async function update(ctx: RegistryContext, target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
  const { kind } = target;
  const { object: original, warnings } = checkWrittenObject(ctx, target, body, options);
  try {
    const result = await guaranteedUpdate(ctx, {
      target,
      dryRun: options.dryRun,
      compute: (current) => trackWrite(ctx, kind, current.obj, prepareUpdate(ctx, kind, clone(original), current), options),
      admission: { options },
    });
    return withWarnings(result, warnings);
  } catch (err) {
    // kube's create-on-update (AllowCreateOnUpdate kinds only): a missing object is created
    if (isApiError(err) && err.code === 404 && err.status.details?.name === target.name && kindOptions(kind).allowCreateOnUpdate) {
      const fresh = clone(original);
      delete fresh.metadata!.resourceVersion;
      return create(ctx, target, fresh, options);
    }
    throw err;
  }
}
