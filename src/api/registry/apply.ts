/**
 * PATCH with Content-Type application/apply-patch+yaml: server-side apply, as kube's applyPatcher.
 * The body (YAML or JSON) is a partial object of the target's apiVersion and kind; it is merged
 * into the live object by src/api/apply, which also keeps the managed fields and reports conflicts
 * (409) unless force. A missing object is created (201). Then the write continues as an update
 * (or create): name and namespace checks, resourceVersion precondition, defaults, validation,
 * dry-run.
 */
import { load } from 'js-yaml';
import { errors, isApiError } from '../errors';
import { isStorageError } from '../../storage/store';
import type { KindDefinition, KubeObject } from '../kind';
import { apiVersionOf, parseApiVersion } from '../scheme';
import { ApplyConflicts, ManagedFieldsError, applyManagedFields, conflictError } from '../apply';
import type { Target, WriteOptions, WriteResult } from './types';
import type { Current, RegistryContext } from './context';
import { requireName, requireNamespace } from './context';
import { decodeStored, encodeForStorage } from './codec';
import { guaranteedUpdate } from './guaranteed-update';
import { ensureNamespace, metaOf } from './meta';
import { checkName, prepareUpdate } from './update';
import { prepareCreate, withWarnings } from './create';
import { checkSchema } from './schema-check';
import { fieldManagerScope } from './managed';
import type { Subresource } from './managed';
import { objectKey } from './keys';
import { admitWrite, validateWrite } from '../../admission/attributes';
import { qualifiedResource, translateError } from './storage-errors';

export type ApplyOptions = WriteOptions & { force?: boolean };

/** the applied configuration: YAML (JSON is YAML) holding one object */
export function parseApplyBody(body: string): KubeObject {
  let value: unknown;
  try {
    value = load(body);
  } catch (err) {
    throw errors.badRequest(`error decoding patch: ${(err as Error).message.split('\n')[0]}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.badRequest('error decoding patch: the applied configuration must be an object');
  }
  return value as KubeObject;
}

/** kube's versionCheckManager and structuredMergeManager checks of the applied object */
function checkApplied(kind: KindDefinition, config: KubeObject): void {
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const gv = apiVersion ? parseApiVersion(apiVersion) : { group: '', version: '' };
  const k = typeof config.kind === 'string' ? config.kind : '';
  if (apiVersion !== apiVersionOf(kind) || k !== kind.kind) {
    throw errors.badRequest(`invalid object type: ${gv.group}/${gv.version}, Kind=${k}`);
  }
  const meta = config.metadata;
  if (meta !== undefined && (meta === null || typeof meta !== 'object' || Array.isArray(meta))) {
    throw errors.badRequest('error decoding patch: metadata must be an object');
  }
  if (meta && meta.managedFields !== undefined && meta.managedFields !== null) throw errors.badRequest('metadata.managedFields must be nil');
}

/** run the field manager's apply; conflicts become kube's 409 */
function mergeApplied(
  ctx: RegistryContext,
  kind: KindDefinition,
  live: KubeObject,
  config: KubeObject,
  options: ApplyOptions,
  subresource?: Subresource,
): KubeObject {
  try {
    const manager = options.fieldManager ?? '';
    return applyManagedFields(live, config, manager, options.force ?? false, fieldManagerScope(ctx, kind, subresource)).object;
  } catch (err) {
    if (err instanceof ApplyConflicts) throw conflictError(err.conflicts);
    if (err instanceof ManagedFieldsError) throw errors.internal(`failed to decode managed fields: ${err.message}`);
    throw err;
  }
}

/** the checks kube's patcher makes on the patched object before the update */
function checkTarget(kind: KindDefinition, obj: KubeObject, name: string, namespace: string | undefined): KubeObject {
  obj.apiVersion = apiVersionOf(kind);
  obj.kind = kind.kind;
  ensureNamespace(kind, metaOf(obj), namespace);
  checkName(obj, name);
  return obj;
}

export interface ApplyStep {
  subresource?: Subresource;
  /** the prepared update of `obj` over current (prepareUpdate or the status variant) */
  prepare(obj: KubeObject, current: Current): KubeObject;
  /** create the object when it does not exist (main resource only) */
  allowCreate: boolean;
}

export async function serverSideApply(ctx: RegistryContext, target: Target, body: string, options: ApplyOptions, step?: ApplyStep): Promise<WriteResult> {
  const { kind } = target;
  const name = requireName(target);
  const namespace = requireNamespace(target);
  if (!options.fieldManager) {
    throw errors.invalid('PatchOptions', 'meta.k8s.io', '', [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }]);
  }
  const config = parseApplyBody(body);
  checkApplied(kind, config);
  const warnings = checkSchema(ctx, kind, config, options.fieldValidation);
  const how: ApplyStep = step ?? { prepare: (obj, current) => prepareUpdate(ctx, kind, obj, current), allowCreate: true };
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      const result = await guaranteedUpdate(ctx, {
        target,
        dryRun: options.dryRun,
        compute: (current) => {
          const merged = checkTarget(kind, mergeApplied(ctx, kind, current.obj, config, options, how.subresource), name, namespace);
          // kube applies to the live object: without a resourceVersion of its own the configuration
          // writes over the one it was merged into (kinds without unconditional updates need one)
          const appliedRv = config.metadata?.resourceVersion;
          if (appliedRv === undefined || appliedRv === '') metaOf(merged).resourceVersion = current.obj.metadata?.resourceVersion;
          return how.prepare(merged, current);
        },
        admission: { subresource: how.subresource, options, optionsKind: 'PatchOptions' },
      });
      return withWarnings(result, warnings);
    } catch (err) {
      if (!(isApiError(err) && err.code === 404 && err.status.details?.name === name && how.allowCreate)) throw err;
    }
    const created = await createApplied(ctx, kind, config, name, namespace, options);
    if (created) return withWarnings(created, warnings);
  }
  throw errors.conflict(qualifiedResource(kind), name, 'the object was created and deleted concurrently, please retry');
}

/** kube's applyPatcher.createNewObject: the configuration applied to an empty object; undefined when it appeared meanwhile */
async function createApplied(
  ctx: RegistryContext,
  kind: KindDefinition,
  config: KubeObject,
  name: string,
  namespace: string | undefined,
  options: ApplyOptions,
): Promise<WriteResult | undefined> {
  const empty: KubeObject = { apiVersion: apiVersionOf(kind), kind: kind.kind, metadata: {} };
  const merged = checkTarget(kind, mergeApplied(ctx, kind, empty, config, options), name, namespace);
  if (merged.metadata?.uid) {
    throw errors.conflict(qualifiedResource(kind), name, `uid mismatch: the provided object specified uid ${merged.metadata.uid}, and no existing object was found`);
  }
  await admitWrite(ctx.admission, { operation: 'CREATE', kind, namespace, name, object: merged, options, optionsKind: 'PatchOptions' });
  const obj = prepareCreate(ctx, kind, merged, namespace, options.user);
  await validateWrite(ctx.admission, { operation: 'CREATE', kind, namespace, name, object: obj, options, optionsKind: 'PatchOptions' });
  if (options.dryRun) {
    delete obj.metadata!.resourceVersion;
    return { object: obj, created: true };
  }
  await kind.strategy.beforeStore?.(obj);
  try {
    const kv = await ctx.store.create(objectKey(kind, namespace, name), encodeForStorage(kind, obj));
    return { object: decodeStored(kind, kv.value, kv.modRevision), created: true };
  } catch (err) {
    if (isStorageError(err, 'Exists')) return undefined;
    throw translateError(err, kind, name);
  }
}


