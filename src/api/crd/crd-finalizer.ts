/**
 * kube's CRDFinalizer: a CustomResourceDefinition being deleted keeps its cleanup finalizer until
 * every custom object is gone. The Terminating condition says how far it got
 * (InstanceDeletionInProgress, then InstanceDeletionCompleted or NeverEstablished); the objects are
 * deleted namespace by namespace (deletecollection); a cleanup that cannot confirm zero objects
 * within a minute fails with InstanceDeletionCheck and is retried.
 */
import { isApiError } from '../errors';
import type { KubeObject } from '../kind';
import type { KindDefinition } from '../kind';
import type { Registry } from '../registry/types';
import { CLEANUP_FINALIZER } from './types';
import type { Condition } from './types';
import { isConditionTrue, setCondition } from './conditions';

export interface CleanupOptions {
  registry: Registry;
  crdKind: KindDefinition;
  /** the storage kind of the CRD's objects; undefined when it was never served */
  storageKind?: KindDefinition;
  now(): string;
  /** how long to wait for objects with finalizers (kube: one minute) */
  waitMs?: number;
}

const STATUS_OPTIONS = { dryRun: false, fieldManager: 'kube-apiserver' };

async function writeStatus(o: CleanupOptions, crd: KubeObject): Promise<KubeObject> {
  const result = await o.registry.updateStatus({ kind: o.crdKind, name: crd.metadata?.name }, crd, STATUS_OPTIONS);
  return result.object;
}

/** one cleanup pass; throws to be retried (a conflict, or objects that would not go) */
export async function cleanUpCrd(o: CleanupOptions, current: KubeObject): Promise<void> {
  let crd = structuredClone(current);
  setCondition(crd, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }, o.now());
  crd = await writeStatus(o, crd);
  crd = structuredClone(crd);
  if (isConditionTrue(crd, 'Established') && o.storageKind) {
    let cond: Omit<Condition, 'lastTransitionTime'>;
    let failure: unknown;
    try {
      await deleteInstances(o, o.storageKind);
      cond = { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' };
    } catch (err) {
      failure = err;
      const message = err instanceof Error ? err.message : String(err);
      cond = (err as { check?: boolean }).check
        ? { type: 'Terminating', status: 'True', reason: 'InstanceDeletionCheck', message: `could not confirm zero CustomResources remaining: ${message}` }
        : { type: 'Terminating', status: 'True', reason: 'InstanceDeletionFailed', message: `could not issue all deletes: ${message}` };
    }
    setCondition(crd, cond, o.now());
    if (failure) {
      await writeStatus(o, crd).catch(() => undefined);
      throw failure;
    }
  } else {
    setCondition(crd, { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' }, o.now());
  }
  crd.metadata!.finalizers = (crd.metadata?.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
  // the last finalizer gone from an object being deleted removes it
  await writeStatus(o, crd);
}

async function deleteInstances(o: CleanupOptions, kind: KindDefinition): Promise<void> {
  const all = await o.registry.list({ kind }, {});
  const namespaces = new Set(all.items.map((i) => i.metadata?.namespace ?? ''));
  for (const ns of namespaces) {
    try {
      await o.registry.deleteCollection(kind.namespaced ? { kind, namespace: ns } : { kind }, {}, { dryRun: false, propagationPolicy: 'Background' });
    } catch (err) {
      if (!isApiError(err) || err.code !== 404) throw err;
    }
  }
  const deadline = Date.now() + (o.waitMs ?? 60_000);
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    const left = await o.registry.list({ kind }, {});
    if (left.items.length === 0) return;
    if (Date.now() > deadline) throw Object.assign(new Error(`${left.items.length} remaining`), { check: true });
    await new Promise((r) => setTimeout(r, delay));
  }
}
