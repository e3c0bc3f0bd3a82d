/**
 * How the registry fills AdmissionAttributes for a write: the caller, dry-run, and the operation's
 * options object as kube sends it to webhooks (CreateOptions, UpdateOptions, PatchOptions,
 * DeleteOptions of meta.k8s.io/v1).
 */
import type { KindDefinition, KubeObject } from '../api/kind';
import type { DeleteOptions, WriteOptions } from '../api/registry/types';
import type { Admission, AdmissionAttributes, AdmissionOperation } from './types';

export interface WriteAdmission {
  operation: AdmissionOperation;
  kind: KindDefinition;
  subresource?: string;
  namespace?: string;
  name?: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  options: WriteOptions | DeleteOptions;
  /** 'PatchOptions' for patch and apply; default by operation */
  optionsKind?: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';
  /** where the plugins' warnings go (the response's Warning headers) */
  warnings?: string[];
}

function optionsObject(w: WriteAdmission): Record<string, unknown> {
  const kind = w.optionsKind ?? (w.operation === 'CREATE' ? 'CreateOptions' : w.operation === 'DELETE' ? 'DeleteOptions' : 'UpdateOptions');
  const o: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (w.options.dryRun) o.dryRun = ['All'];
  if (kind !== 'DeleteOptions' && w.options.fieldManager) o.fieldManager = w.options.fieldManager;
  if (kind === 'DeleteOptions') {
    const d = w.options as DeleteOptions;
    if (d.gracePeriodSeconds !== undefined) o.gracePeriodSeconds = d.gracePeriodSeconds;
    if (d.propagationPolicy !== undefined) o.propagationPolicy = d.propagationPolicy;
    if (d.orphanDependents !== undefined) o.orphanDependents = d.orphanDependents;
    if (d.preconditions !== undefined) o.preconditions = d.preconditions;
  }
  return o;
}

export function writeAttributes(w: WriteAdmission): AdmissionAttributes {
  return {
    operation: w.operation,
    kind: w.kind,
    subresource: w.subresource ?? '',
    namespace: w.kind.namespaced ? w.namespace ?? w.object?.metadata?.namespace ?? '' : '',
    name: w.name ?? w.object?.metadata?.name ?? w.oldObject?.metadata?.name ?? '',
    object: w.object,
    oldObject: w.oldObject,
    options: optionsObject(w),
    dryRun: w.options.dryRun,
    user: w.options.user,
    warnings: w.warnings,
  };
}

/** the mutating phase; a no-op without admission */
export async function admitWrite(admission: Admission | undefined, w: WriteAdmission): Promise<void> {
  if (admission) await admission.admit(writeAttributes(w));
}

/** the validating phase; a no-op without admission */
export async function validateWrite(admission: Admission | undefined, w: WriteAdmission): Promise<void> {
  if (admission) await admission.validate(writeAttributes(w));
}

/** both phases on the same attributes (delete, and updates whose mutations come last) */
export async function admitAndValidate(admission: Admission | undefined, w: WriteAdmission): Promise<void> {
  if (!admission) return;
  const attributes = writeAttributes(w);
  await admission.admit(attributes);
  await admission.validate(attributes);
}
