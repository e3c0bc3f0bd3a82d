/**
 * The disruption budget side of an eviction (kube's EvictionREST getPodDisruptionBudgets and
 * checkAndDecrement): which PodDisruptionBudgets of the namespace select the pod, and the guaranteed
 * update that takes one disruption from a budget and records the pod in status.disruptedPods (so
 * the disruption controller does not count it as available), or refuses with 429.
 */
import { ApiError } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { labelSelectorFromObject } from '../../selectors';
import type { LabelSelectorObject } from '../../selectors';
import { arrAt, ensureObj, int, isObj, objAt, str } from '../../kinds/util';
import type { RegistryContext } from '../context';
import { clone } from '../codec';
import { guaranteedUpdate } from '../guaranteed-update';
import { list } from '../list';
import { trackWrite } from '../managed';
import { timestamp } from '../meta';

/** kube's MaxDisruptedPodSize: more unconfirmed evictions than this and the budget refuses */
const MAX_DISRUPTED_PODS = 2000;
const REFUSED = "Cannot evict pod as it would violate the pod's disruption budget.";

/** the stored (policy/v1) PodDisruptionBudget kind, if the scheme serves it */
export function budgetKind(ctx: RegistryContext): KindDefinition | undefined {
  return ctx.scheme.byResource('policy', 'v1', 'poddisruptionbudgets');
}

/** the budgets of the pod's namespace whose selector matches the pod (v1 meaning: `{}` selects all) */
export async function budgetsFor(ctx: RegistryContext, kind: KindDefinition, pod: KubeObject): Promise<KubeObject[]> {
  const namespace = pod.metadata?.namespace;
  const budgets = await list(ctx, { kind, namespace }, {});
  const labels = pod.metadata?.labels ?? {};
  return budgets.items.filter((pdb) => {
    const selector = objAt(pdb, 'spec')?.selector;
    return isObj(selector) && labelSelectorFromObject(selector as LabelSelectorObject).matches(labels);
  });
}

/** kube's NewForbidden on the budget (its resource spelled `poddisruptionbudget`, as kube's eviction code does) */
function forbidden(name: string, why: string): ApiError {
  return new ApiError(403, 'Forbidden', `poddisruptionbudget.policy ${JSON.stringify(name)} is forbidden: ${why}`, {
    name,
    group: 'policy',
    kind: 'poddisruptionbudget',
  });
}

function tooManyRequests(message: string): ApiError {
  return new ApiError(429, 'TooManyRequests', REFUSED, { causes: [{ reason: 'DisruptionBudget', message }] });
}

/** kube's UpdateDisruptionAllowedCondition once the last allowed disruption is taken */
function markNoDisruptionAllowed(status: Record<string, unknown>, now: string): void {
  const conditions = arrAt(status, 'conditions');
  const condition = {
    type: 'DisruptionAllowed',
    status: 'False',
    observedGeneration: int(status.observedGeneration),
    lastTransitionTime: now,
    reason: 'InsufficientPods',
    message: '',
  };
  const i = conditions.findIndex((c) => isObj(c) && c.type === 'DisruptionAllowed');
  if (i < 0) {
    status.conditions = [...conditions, condition];
    return;
  }
  const old = conditions[i] as Record<string, unknown>;
  // kube's SetStatusCondition keeps the transition time when the status does not change
  if (old.status === 'False' && old.lastTransitionTime) condition.lastTransitionTime = str(old.lastTransitionTime);
  status.conditions = conditions.map((c, j) => (j === i ? { ...old, ...condition, message: str(old.message) } : c));
}

/** take one disruption from the budget for `podName`, retrying on concurrent writers; throws 429 or 403 when refused */
export async function takeDisruption(ctx: RegistryContext, kind: KindDefinition, budget: KubeObject, podName: string, dryRun: boolean): Promise<void> {
  const name = budget.metadata?.name ?? '';
  await guaranteedUpdate(ctx, {
    target: { kind, namespace: budget.metadata?.namespace, name },
    dryRun,
    compute(current) {
      const pdb = clone(current.obj);
      const status = ensureObj(pdb, 'status');
      if (int(status.observedGeneration) < int(pdb.metadata?.generation)) {
        throw tooManyRequests(`The disruption budget ${name} is still being processed by the server.`);
      }
      const allowed = int(status.disruptionsAllowed);
      if (allowed < 0) throw forbidden(name, 'pdb disruptions allowed is negative');
      const disrupted = isObj(status.disruptedPods) ? status.disruptedPods : {};
      if (Object.keys(disrupted).length > MAX_DISRUPTED_PODS) {
        throw forbidden(name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
      }
      if (allowed === 0) {
        throw tooManyRequests(`The disruption budget ${name} needs ${int(status.desiredHealthy)} healthy pods and has ${int(status.currentHealthy)} currently`);
      }
      const now = timestamp(ctx.clock());
      status.disruptionsAllowed = allowed - 1;
      if (allowed - 1 === 0) markNoDisruptionAllowed(status, now);
      status.disruptedPods = { ...disrupted, [podName]: now };
      // kube writes this through its loopback client: the update is the API server's own
      return trackWrite(ctx, kind, current.obj, pdb, { dryRun, fieldManager: 'kube-apiserver' }, 'status');
    },
  });
}
