/**
 * POST: create one object, as kube's create handler and generic store do: check the body's
 * apiVersion/kind and namespace against the request, system metadata, namespace lifecycle,
 * defaults, PrepareForCreate, validation, then store.create (201). generateName retries on a name
 * collision like kube (8 attempts). dryRun runs everything but the write; the response then has no
 * resourceVersion (kube's dry-run create decodes it at revision 0).
 */
import { apiVersionOf } from '../scheme';
import { ApiError, errors } from '../errors';
import { isStorageError } from '../../storage/store';
import type { UserInfo } from '../reviews/authorizer';
import type { KindDefinition, KubeObject } from '../kind';
import type { Target, WriteOptions, WriteResult } from './types';
import type { RegistryContext } from './context';
import { requireNamespace } from './context';
import { clone, encodeForStorage, storedResponse } from './codec';
import { objectKey } from './keys';
import { ensureNamespace, initCreateMeta, metaOf } from './meta';
import { checkNamespaceForCreate } from './namespace-lifecycle';
import { translateError } from './storage-errors';
import { validateForCreate } from './validate';
import { checkSchema } from './schema-check';
import { trackWrite } from './managed';
import { admitWrite, validateWrite } from '../../admission/attributes';

const MAX_NAME_GENERATION_ATTEMPTS = 8;

/** the body must be an object of the target's apiVersion and kind; missing ones are filled */
export function checkTypeMeta(kind: KindDefinition, body: unknown): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw errors.badRequest('the body of the request must be a JSON object');
  }
  const obj = clone(body as KubeObject);
  const expected = apiVersionOf(kind);
  // null is an unset field in kube's decoding, like an absent or empty one
  if (obj.apiVersion !== undefined && obj.apiVersion !== null && obj.apiVersion !== '' && obj.apiVersion !== expected) {
    throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`);
  }
  if (obj.kind !== undefined && obj.kind !== null && obj.kind !== '' && obj.kind !== kind.kind) {
    throw errors.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${kind.kind})`);
  }
  obj.apiVersion = expected;
  obj.kind = kind.kind;
  metaOf(obj);
  return obj;
}

/** the object as it will be stored: metadata, defaults, PrepareForCreate, validation */
export function prepareCreate(ctx: RegistryContext, kind: KindDefinition, obj: KubeObject, namespace: string | undefined, requester?: UserInfo): KubeObject {
  initCreateMeta(kind, obj, { namespace, now: ctx.clock(), uid: ctx.newUid() });
  kind.strategy.defaults(obj);
  kind.strategy.prepareForCreate?.(obj, requester);
  if (kind.tracksGeneration) metaOf(obj).generation = 1;
  validateForCreate(ctx, kind, obj);
  return obj;
}

export async function create(ctx: RegistryContext, target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
  const { kind } = target;
  const namespace = requireNamespace(target);
  const original = checkTypeMeta(kind, body);
  const warnings = options.trusted ? [] : checkSchema(ctx, kind, original, options.fieldValidation, options.strictDecodingErrors);
  ensureNamespace(kind, metaOf(original), namespace);
  // with an admission chain the namespace check is its NamespaceLifecycle plugin (which may be disabled)
  if (!ctx.admission) await checkNamespaceForCreate(ctx, kind, namespace ?? '', original.metadata?.name ?? '');
  else {
    // kube's decoding defaults the object before mutating admission sees it
    kind.strategy.defaults(original);
    await admitWrite(ctx.admission, { operation: 'CREATE', kind, namespace, object: original, options, warnings });
  }
  const generated = !original.metadata?.name && !!original.metadata?.generateName;
  for (let attempt = 1; ; attempt++) {
    // `original` is already the request's own copy (checkTypeMeta); only a generated name, which may
    // be retried with another one, needs it kept unchanged
    const obj = trackWrite(ctx, kind, undefined, prepareCreate(ctx, kind, generated ? clone(original) : original, namespace, options.user), options);
    const name = obj.metadata!.name!;
    await validateWrite(ctx.admission, { operation: 'CREATE', kind, namespace, name, object: obj, options, warnings });
    if (options.dryRun) {
      delete obj.metadata!.resourceVersion;
      return withWarnings({ object: obj, created: true }, warnings);
    }
    const key = objectKey(kind, namespace, name);
    await kind.strategy.beforeStore?.(obj);
    try {
      const kv = await ctx.store.create(key, encodeForStorage(kind, obj));
      return withWarnings({ object: storedResponse(kind, obj, kv.value, kv.modRevision), created: true }, warnings);
    } catch (err) {
      if (!isStorageError(err, 'Exists')) throw translateError(err, kind, name);
      if (generated) {
        if (attempt < MAX_NAME_GENERATION_ATTEMPTS) continue;
        // kube's NewGenerateNameConflict
        throw new ApiError(
          409,
          'AlreadyExists',
          `${kind.group ? `${kind.resource}.${kind.group}` : kind.resource} "${name}" already exists, the server was not able to generate a unique name for the object`,
          { name, group: kind.group, kind: kind.resource, retryAfterSeconds: 1 },
        );
      }
      throw await existsError(ctx, kind, key, name);
    }
  }
}

export function withWarnings(result: WriteResult, warnings: Iterable<string>): WriteResult {
  const list = [...new Set([...warnings, ...(result.warnings ?? [])])];
  return list.length ? { ...result, warnings: list } : result;
}

/** AlreadyExists; kube prefixes the message when the existing object is being deleted */
async function existsError(ctx: RegistryContext, kind: KindDefinition, key: string, name: string): Promise<ApiError> {
  const err = errors.alreadyExists({ group: kind.group, resource: kind.resource }, name);
  try {
    const kv = await ctx.store.get(key);
    const existing = kv ? (JSON.parse(kv.value) as KubeObject) : undefined;
    if (existing?.metadata?.deletionTimestamp) {
      err.status.message = `object is being deleted: ${err.status.message}`;
      err.message = err.status.message;
    }
  } catch {
    // the plain AlreadyExists is still the right answer
  }
  return err;
}
