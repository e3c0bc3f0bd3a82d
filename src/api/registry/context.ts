/**
 * What every verb needs: the store, the scheme, clocks and generators, and a few shared reads.
 * One RegistryContext is built by createRegistry and passed to the verb functions.
 */
import type pino from 'pino';
import type { Store, KeyValue } from '../../storage/store';
import type { Scheme } from '../scheme';
import type { KindDefinition, KubeObject } from '../kind';
import type { Definitions } from '../../schema/types';
import type { WatchCaches } from '../../cache/watch-caches';
import type { Admission } from '../../admission/types';
import type { PatchType, Target, WriteOptions } from './types';
import { errors } from '../errors';
import { decodeStored } from './codec';
import { kindPrefix, objectKey } from './keys';
import { translateError, qualifiedResource } from './storage-errors';

export interface RegistryContext {
  readonly store: Store;
  readonly scheme: Scheme;
  readonly definitions?: Definitions;
  readonly logger?: pino.Logger;
  readonly clock: () => Date;
  readonly newUid: () => string;
  /** how long a "not older than" read waits for a future revision */
  readonly freshnessWaitMs: number;
  /** the minimum interval between two BOOKMARK events of one watch */
  readonly bookmarkIntervalMs: number;
  /** the watch caches (src/cache); undefined = every read goes to the store */
  readonly caches?: WatchCaches;
  /** called after a namespace was marked for deletion (the in-process namespace finalizer) */
  readonly onNamespaceTerminating?: (name: string) => void;
  /** the admission chain every write goes through; undefined = no admission (only the kinds' own checks) */
  readonly admission?: Admission;
  /** --enable-garbage-collector; false = deletes leave finalizers as they are (kube's EnableGarbageCollection) */
  readonly enableGarbageCollection?: boolean;
  /** --delete-collection-workers: objects a collection delete deletes at once (default 1) */
  readonly deleteCollectionWorkers?: number;
}

/** the kinds that may carry extra registry knobs beyond KindDefinition (see report: candidates for kind.ts) */
export interface RegistryKindOptions {
  /** kube's AllowCreateOnUpdate: PUT of a missing object creates it (few built-in kinds) */
  allowCreateOnUpdate?: boolean;
  /** kube's AllowUnconditionalUpdate: PUT without metadata.resourceVersion (default true) */
  allowUnconditionalUpdate?: boolean;
  /** kube's ReturnDeletedObject: DELETE answers with the object instead of a Success Status */
  returnDeletedObject?: boolean;
  /**
   * the patch types the kind accepts (kube's per-resource supported patch types); others are a 415
   * naming these. Default: all. Custom resources take no strategic merge patch.
   */
  patchTypes?: readonly PatchType[];
  /**
   * the kind's own decode-time schema check instead of the built-in definitions (custom resources:
   * their structural schema). Same contract as checkSchemaOf: may prune obj, returns warnings,
   * throws the 400s of fieldValidation=Strict and of wrong types.
   */
  checkSchema?(obj: KubeObject, fieldValidation: WriteOptions['fieldValidation'], decodeErrors: string[]): string[];
  /**
   * kube's per-kind Delete hook before the generic one, on a copy of an object not yet being
   * deleted (CustomResourceDefinition adds its cleanup finalizer and a Terminating condition)
   */
  prepareForDelete?(obj: KubeObject, now: Date): void;
  /**
   * objects keep the apiVersion they were stored with when read (no relabelling to the kind's
   * version) and are stored with their own apiVersion: for kinds whose conversion cannot run inside
   * the registry (custom resources with a conversion webhook), converted at the registry's edge
   */
  keepsStoredVersion?: boolean;
}

/**
 * the context whose store holds the kind's objects: with --etcd-servers-overrides a resource lives in
 * a store of its own, whose revisions (resourceVersions, compaction, freshness waits) are its own
 */
export function forKind(ctx: RegistryContext, kind: KindDefinition): RegistryContext {
  const store = ctx.store.storeFor?.(kindPrefix(kind));
  return store === undefined || store === ctx.store ? ctx : { ...ctx, store };
}

export function kindOptions(kind: KindDefinition): RegistryKindOptions {
  return kind as KindDefinition & RegistryKindOptions;
}

export function requireName(target: Target): string {
  if (!target.name) throw errors.badRequest('name is required for this request');
  return target.name;
}

export function requireNamespace(target: Target): string | undefined {
  if (target.kind.namespaced && !target.namespace) throw errors.badRequest('namespace is required for this request');
  return target.kind.namespaced ? target.namespace : undefined;
}

export interface Current {
  key: string;
  kv: KeyValue;
  obj: KubeObject;
}

/** the newest stored state of the target object, or 404 */
export async function readCurrent(ctx: RegistryContext, target: Target): Promise<Current> {
  const name = requireName(target);
  const key = objectKey(target.kind, requireNamespace(target), name);
  let kv: KeyValue | undefined;
  try {
    kv = await ctx.store.get(key);
  } catch (err) {
    throw translateError(err, target.kind, name);
  }
  if (!kv) throw errors.notFound(qualifiedResource(target.kind), name);
  return { key, kv, obj: decodeStored(target.kind, kv.value, kv.modRevision) };
}

/** the namespace kind of the scheme (core/v1 namespaces), when served */
export function namespaceKind(scheme: Scheme): KindDefinition | undefined {
  return scheme.byResource('', 'v1', 'namespaces');
}
