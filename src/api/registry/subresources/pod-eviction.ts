/**
 * POST pods/<name>/eviction with a policy/v1 or policy/v1beta1 Eviction: kube's EvictionREST.
 *
 * - the pod must exist (404) and the Eviction must name it (400);
 * - a pod that is not running (Succeeded, Failed, Pending) or already terminating is deleted
 *   without looking at budgets;
 * - otherwise the budgets of the namespace that select the pod decide: none -> delete; more than one
 *   -> 500 (kube's Status, no reason); one -> a disruption is taken from it (429 TooManyRequests
 *   with a DisruptionBudget cause when none is left or the budget is not processed yet), then the
 *   pod is deleted with the Eviction's deleteOptions.
 *
 * Dry run (the request's or the deleteOptions'; they must agree when both are given) changes
 * nothing. The answer is a Success Status (201).
 */
import { ApiError } from '../../errors';
import type { KubeObject } from '../../kind';
import { arrAt, objAt, str } from '../../kinds/util';
import type { RegistryContext } from '../context';
import { readCurrent } from '../context';
import { deleteObject } from '../delete';
import { invalidOptions } from '../resource-version';
import type { DeleteOptions, Target, WriteOptions, WriteResult } from '../types';
import { notSupported } from '../../validation/field-errors';
import { checkActionBody, successStatus } from './action-body';
import { budgetKind, budgetsFor, takeDisruption } from './disruption-budget';
import type { SubresourceHandler } from './types';

const MANY_BUDGETS = 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';

/** Go's fmt of a []string: `[All]` */
const goList = (values: string[]): string => `[${values.join(' ')}]`;

/**
 * the DeleteOptions of the pod's deletion: the Eviction's own, with the request's dry run
 * (kube's propagateDryRun, whose disagreement is a plain error, hence a 500)
 */
function deleteOptionsOf(eviction: KubeObject, options: WriteOptions): DeleteOptions {
  const raw = objAt(eviction, 'deleteOptions');
  const requestDryRun = options.dryRun ? ['All'] : [];
  if (!raw) return { dryRun: options.dryRun };
  const own = arrAt(raw, 'dryRun').map(str);
  if (own.length > 0 && requestDryRun.length > 0 && own.join('\u0000') !== requestDryRun.join('\u0000')) {
    throw new ApiError(500, undefined, `DryRun in DeleteOptions ${goList(own)} does not match the DryRun in CreateOptions ${goList(requestDryRun)}`);
  }
  const dryRun = own.length > 0 ? own : requestDryRun;
  if (dryRun.some((d) => d !== 'All')) throw invalidOptions('DeleteOptions', [notSupported('dryRun', dryRun, ['All'])]);
  const out: DeleteOptions = { dryRun: dryRun.length > 0 };
  if (typeof raw.gracePeriodSeconds === 'number') out.gracePeriodSeconds = raw.gracePeriodSeconds;
  if (typeof raw.orphanDependents === 'boolean') out.orphanDependents = raw.orphanDependents;
  if (typeof raw.propagationPolicy === 'string') out.propagationPolicy = raw.propagationPolicy;
  const pre = objAt(raw, 'preconditions');
  if (pre) {
    out.preconditions = {};
    if (typeof pre.uid === 'string') out.preconditions.uid = pre.uid;
    if (typeof pre.resourceVersion === 'string') out.preconditions.resourceVersion = pre.resourceVersion;
  }
  return out;
}

/** kube's canIgnorePDB: a pod that is not running, or is already going, disrupts nothing more */
function canIgnoreBudgets(pod: KubeObject): boolean {
  const phase = str(objAt(pod, 'status')?.phase);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata?.deletionTimestamp;
}

async function evict(ctx: RegistryContext, target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
  const { obj: eviction, warnings } = checkActionBody(ctx, target, body, options);
  const deleteOptions = deleteOptionsOf(eviction, options);
  const pod = (await readCurrent(ctx, target)).obj;
  const done = (): WriteResult => (warnings.length ? { object: successStatus(), created: true, warnings } : { object: successStatus(), created: true });
  const kind = budgetKind(ctx);
  if (!canIgnoreBudgets(pod) && kind) {
    const budgets = await budgetsFor(ctx, kind, pod);
    if (budgets.length > 1) throw new ApiError(500, undefined, MANY_BUDGETS);
    if (budgets.length === 1) await takeDisruption(ctx, kind, budgets[0], target.name ?? '', deleteOptions.dryRun);
  }
  await deleteObject(ctx, target, deleteOptions);
  return done();
}

export const podEviction: SubresourceHandler = {
  create: (ctx, target, body, options) => evict(ctx, target, body, options),
};
