/**
 * What kube's bootstrap controller and post-start hooks ensure at start: the system namespaces
 * exist, then every bootstrap object (RBAC, PriorityClasses, FlowSchemas, APIServices: see
 * src/api/bootstrap-objects.ts) is created when missing and reconciled when it exists. Namespaces
 * left Terminating by a previous run are handed to the namespace finalizer again.
 */
import type { BootstrapObject } from '../bootstrap-objects';
import { isApiError } from '../errors';
import type { KubeObject } from '../kind';
import { get } from './get';
import { update } from './update';
import type { RegistryContext } from './context';
import { namespaceKind } from './context';
import { decodeStored } from './codec';
import { collectionPrefix } from './keys';
import { create } from './create';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** how many bootstrap objects are ensured at once */
const BATCH = 32;

/** the field manager kube's own bootstrap writes are recorded under */
const MANAGER = 'kube-apiserver';

export async function bootstrap(ctx: RegistryContext, resumeTermination: (name: string) => void, objects: BootstrapObject[] = []): Promise<void> {
  const kind = namespaceKind(ctx.scheme);
  if (!kind) return;
  for (const name of SYSTEM_NAMESPACES) {
    try {
      await create(ctx, { kind }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false, trusted: true });
    } catch (err) {
      if (!isApiError(err) || err.code !== 409) throw err;
    }
  }
  // independent keys: ensured a batch at a time so the store's writer commits each batch together
  // (one by one, a hundred bootstrap RBAC objects cost a hundred fsyncs at every fresh start)
  for (let i = 0; i < objects.length; i += BATCH) await Promise.all(objects.slice(i, i + BATCH).map((b) => ensureObject(ctx, b)));
  const { items } = await ctx.store.list(collectionPrefix(kind));
  for (const kv of items) {
    const ns = decodeStored(kind, kv.value, kv.modRevision);
    if (ns.metadata?.deletionTimestamp && ns.metadata.name) resumeTermination(ns.metadata.name);
  }
}

/** create `b.object` when missing; otherwise write what its reconcile asks for (retrying conflicts) */
async function ensureObject(ctx: RegistryContext, b: BootstrapObject): Promise<void> {
  const wanted = b.object;
  const kind = ctx.scheme.byKind(String(wanted.apiVersion ?? ''), String(wanted.kind ?? ''));
  // a group/version turned off by --runtime-config: nothing to keep
  if (!kind) return;
  const name = String(wanted.metadata?.name ?? '');
  const namespace = kind.namespaced ? wanted.metadata?.namespace : undefined;
  const target = { kind, name, ...(namespace ? { namespace } : {}) };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await create(ctx, namespace ? { kind, namespace } : { kind }, structuredClone(wanted), { dryRun: false, fieldManager: MANAGER, trusted: true });
      return;
    } catch (err) {
      if (!isApiError(err) || err.code !== 409) throw err;
    }
    if (!b.reconcile) return;
    let existing: KubeObject;
    try {
      existing = await get(ctx, target, {});
    } catch (err) {
      if (isApiError(err) && err.code === 404) continue;
      throw err;
    }
    const next = b.reconcile(structuredClone(existing), structuredClone(wanted));
    if (!next) return;
    next.metadata = { ...next.metadata, resourceVersion: existing.metadata?.resourceVersion };
    try {
      await update(ctx, target, next, { dryRun: false, fieldManager: MANAGER, trusted: true });
      return;
    } catch (err) {
      if (!isApiError(err) || (err.code !== 409 && err.code !== 404)) throw err;
    }
  }
}
