/**
 * createRegistry: the API semantics over a Store, one file per verb. See types.ts for the contract
 * the HTTP layer calls.
 */
import { randomUUID } from 'node:crypto';
import type pino from 'pino';
import type { Store } from '../../storage/store';
import type { Scheme } from '../scheme';
import type { Definitions } from '../../schema/types';
import type { Registry, Target } from './types';
import type { BootstrapObject } from '../bootstrap-objects';
import type { RegistryContext } from './context';
import { DEFAULT_FRESHNESS_WAIT_MS } from './resource-version';
import { get } from './get';
import { list } from './list';
import { watch } from './watch';
import { create } from './create';
import { update } from './update';
import { patch } from './patch';
import { deleteNamed } from './delete';
import { deleteCollection } from './delete-collection';
import { getStatus, patchStatus, updateStatus } from './status';
import { getScale, patchScale, updateScale } from './scale';
import { NamespaceFinalizer } from './namespace-finalizer';
import { subresourceHandler } from './subresources';
import type { SubresourceHandler } from './subresources';
import { bootstrap } from './bootstrap';
import { errors, isApiError } from '../errors';
import { DEFAULT_WATCH_CACHE_SETTINGS, WatchCaches } from '../../cache/watch-caches';
import { cacheId } from './cached';
import type { WatchCacheSettings } from '../../cache/watch-caches';
import type { Admission } from '../../admission/types';
import { admitAndValidate } from '../../admission/attributes';

/** every failure leaves the registry as an ApiError; anything else is a 500 (and logged) */
function guard<A extends unknown[], R>(logger: pino.Logger | undefined, fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      if (isApiError(err)) throw err;
      logger?.error({ err }, 'unexpected registry failure');
      throw errors.internal(err instanceof Error ? err.message : String(err));
    }
  };
}

export interface RegistryOptions {
  store: Store;
  scheme: Scheme;
  /** schema definitions for the type check of writes and strategic merge patch; skipped when absent */
  definitions?: Definitions;
  logger?: pino.Logger;
  clock?: () => Date;
  newUid?: () => string;
  /** how long a "not older than" read waits for a future resourceVersion (default 3000 ms, kube's) */
  freshnessWaitMs?: number;
  /** minimum interval between BOOKMARK events of one watch (default 5000 ms) */
  bookmarkIntervalMs?: number;
  /** first retry delay of the namespace finalizer while content remains (default 200 ms) */
  namespaceRetryMs?: number;
  /**
   * --inprocess-namespace-controller (default true): the registry finishes terminating namespaces
   * itself (NamespaceFinalizer), a stand-in for kube's namespace controller until the controller
   * manager runs beside the API server; false leaves them to the controller manager
   */
  inprocessNamespaceController?: boolean;
  /** the watch cache flags (default: on, 100 events per resource); `false` turns it off */
  watchCache?: WatchCacheSettings | false;
  /** objects created at start and reconciled (bootstrap RBAC, PriorityClasses, FlowSchemas, APIServices) */
  bootstrapObjects?: () => BootstrapObject[];
  /** the admission chain (src/admission); without one, writes get only the kinds' own checks */
  admission?: Admission;
  /** --enable-garbage-collector (default true): false = no orphan/foregroundDeletion finalizers on delete */
  enableGarbageCollection?: boolean;
  /** --delete-collection-workers (default 1) */
  deleteCollectionWorkers?: number;
}

export interface RegistryWithLifecycle extends Registry {
  /** ensure the system namespaces and the bootstrap objects exist; resume namespaces left terminating */
  bootstrap(): Promise<void>;
  /** stop background work (namespace finalization) */
  close(): Promise<void>;
  /** resolves when no namespace finalization is under way (tests, orderly shutdown) */
  idle(): Promise<void>;
}

export function createRegistry(opts: RegistryOptions): RegistryWithLifecycle {
  let finalizer: NamespaceFinalizer | undefined;
  const cacheSettings = opts.watchCache === false ? undefined : (opts.watchCache ?? DEFAULT_WATCH_CACHE_SETTINGS);
  const caches = cacheSettings?.enabled ? new WatchCaches({ store: opts.store, settings: cacheSettings, logger: opts.logger }) : undefined;
  const ctx: RegistryContext = Object.freeze({
    store: opts.store,
    scheme: opts.scheme,
    definitions: opts.definitions,
    logger: opts.logger,
    clock: opts.clock ?? (() => new Date()),
    newUid: opts.newUid ?? randomUUID,
    freshnessWaitMs: opts.freshnessWaitMs ?? DEFAULT_FRESHNESS_WAIT_MS,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 5000,
    caches,
    onNamespaceTerminating: (name: string) => finalizer?.schedule(name),
    admission: opts.admission,
    enableGarbageCollection: opts.enableGarbageCollection,
    deleteCollectionWorkers: opts.deleteCollectionWorkers,
  });
  if (opts.inprocessNamespaceController !== false) finalizer = new NamespaceFinalizer({ ctx, retryDelayMs: opts.namespaceRetryMs });
  // kinds added, replaced or removed at runtime (custom resources): a cache whose kind is no longer
  // served as the same definition is retired, so no watch or read goes through a stale decoder
  const unsubscribe = caches
    ? opts.scheme.onChange(() => {
        const served = new Map(opts.scheme.kinds.map((k) => [cacheId(k), k] as const));
        for (const id of caches.ids()) {
          const owner = caches.ownerOf(id);
          if (owner && served.get(id) !== owner) caches.drop(id);
        }
      })
    : undefined;
  const fin = finalizer;

  const g = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => guard(opts.logger, fn);
  /** the handler's verb, or 405 when the subresource does not serve it */
  const sub = <V extends keyof SubresourceHandler>(t: Target, name: string, verb: V, httpVerb: string): NonNullable<SubresourceHandler[V]> => {
    const fn = subresourceHandler(t.kind, name).handler[verb];
    if (!fn) {
      const qualified = t.kind.group ? `${t.kind.resource}/${name}.${t.kind.group}` : `${t.kind.resource}/${name}`;
      throw errors.methodNotAllowed(`${httpVerb} is not supported on resources of kind "${qualified}"`);
    }
    return fn;
  };
  return {
    get: g((t, o) => get(ctx, t, o)),
    list: g((t, o) => list(ctx, t, o)),
    watch: g((t, o, sink) => watch(ctx, t, o, sink)),
    create: g((t, body, o) => create(ctx, t, body, o)),
    update: g((t, body, o) => update(ctx, t, body, o)),
    patch: g((t, type, body, o) => patch(ctx, t, type, body, o)),
    delete: g((t, o) => deleteNamed(ctx, t, o)),
    deleteCollection: g((t, l, o) => deleteCollection(ctx, t, l, o)),
    getStatus: g((t, o) => getStatus(ctx, t, o)),
    updateStatus: g((t, body, o) => updateStatus(ctx, t, body, o)),
    patchStatus: g((t, type, body, o) => patchStatus(ctx, t, type, body, o)),
    getScale: g((t, o) => getScale(ctx, t, o)),
    updateScale: g((t, body, o) => updateScale(ctx, t, body, o)),
    patchScale: g((t, type, body, o) => patchScale(ctx, t, type, body, o)),
    getSubresource: g((t, name, o) => sub(t, name, 'get', 'get')(ctx, t, o)),
    updateSubresource: g((t, name, body, o) => sub(t, name, 'update', 'update')(ctx, t, body, o)),
    patchSubresource: g((t, name, type, body, o) => sub(t, name, 'patch', 'patch')(ctx, t, type, body, o)),
    createSubresource: g(async (t, name, body, o) => {
      const handler = sub(t, name, 'create', 'create');
      // kube admits the action's body (Binding, Eviction) as a CREATE of the subresource
      await admitAndValidate(ctx.admission, { operation: 'CREATE', kind: t.kind, subresource: name, namespace: t.namespace, name: t.name, object: body, options: o });
      return handler(ctx, t, body, o);
    }),
    // the server's own objects are reconciled without admission (an AlwaysDeny or a webhook that is
    // not up yet must not keep the server from starting)
    bootstrap: () => bootstrap(Object.freeze({ ...ctx, admission: undefined }), (name) => fin?.schedule(name), opts.bootstrapObjects?.() ?? []),
    close: async () => {
      fin?.close();
      unsubscribe?.();
      caches?.stop();
    },
    idle: async () => fin?.idle(),
  };
}

export type { Registry } from './types';
