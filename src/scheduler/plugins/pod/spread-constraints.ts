/**
 * PodTopologySpread's constraints (kube 1.20's podtopologyspread/common.go): the pod's own
 * topologySpreadConstraints of one kind (DoNotSchedule for filtering, ScheduleAnyway for scoring),
 * or, when it has none, the plugin's default constraints with the selector of the pod's workload.
 */
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '../../../api/selectors';
import type { KubeObject } from '../../../client/types';
import { podSpec } from '../../framework/resource';
import type { FrameworkHandle } from '../../framework/types';
import { defaultSelector } from './default-selector';

export type WhenUnsatisfiable = 'DoNotSchedule' | 'ScheduleAnyway';

export interface TopologySpreadConstraintObject {
  maxSkew?: number;
  topologyKey?: string;
  whenUnsatisfiable?: string;
  labelSelector?: LabelSelectorObject | null;
}

export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelSelector;
}

/** kube's filterTopologySpreadConstraints; throws on an invalid selector */
export function constraintsOfKind(constraints: readonly TopologySpreadConstraintObject[], action: WhenUnsatisfiable): SpreadConstraint[] {
  const out: SpreadConstraint[] = [];
  for (const c of constraints) {
    if (c.whenUnsatisfiable !== action) continue;
    out.push({ maxSkew: c.maxSkew ?? 0, topologyKey: c.topologyKey ?? '', selector: labelSelectorFromObject(c.labelSelector) });
  }
  return out;
}

export function podConstraints(pod: KubeObject): readonly TopologySpreadConstraintObject[] {
  return (podSpec(pod).topologySpreadConstraints as TopologySpreadConstraintObject[] | undefined) ?? [];
}

/**
 * The constraints of `action` that apply to the pod: its own, or the defaults with the workload's
 * selector (none when nothing selects the pod). `what` words the error as kube does ("hard"/"soft").
 */
export function constraintsFor(pod: KubeObject, action: WhenUnsatisfiable, defaults: readonly TopologySpreadConstraintObject[], handle: FrameworkHandle): SpreadConstraint[] {
  const own = podConstraints(pod);
  const what = action === 'DoNotSchedule' ? 'hard' : 'soft';
  if (own.length > 0) {
    try {
      return constraintsOfKind(own, action);
    } catch (err) {
      throw new Error(`obtaining pod's ${what} topology spread constraints: ${(err as Error).message}`);
    }
  }
  const constraints = constraintsOfKind(defaults, action);
  if (constraints.length === 0) return constraints;
  const selector = defaultSelector(handle, pod);
  if (selector.isEmpty()) return [];
  for (const c of constraints) c.selector = selector;
  return constraints;
}

/** does the node have every constraint's topology key? */
export function hasAllTopologyKeys(labels: Record<string, string>, constraints: readonly SpreadConstraint[]): boolean {
  for (const c of constraints) if (labels[c.topologyKey] === undefined) return false;
  return true;
}
