/**
 * What kube 1.20's HPA controller does with a metric's proposal before scaling, for HPAs without
 * spec.behavior (normalizeDesiredReplicas): the highest recommendation of the downscale
 * stabilization window, bounded by minReplicas, maxReplicas and the scale-up limit (at most twice
 * the current replicas, and at least 4), each step named by the AbleToScale and ScalingLimited
 * conditions. Also the condition list's bookkeeping (setCondition).
 */

export interface HpaCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

/** kube's scaleUpLimitFactor and scaleUpLimitMinimum */
const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

export interface Recommendation {
  replicas: number;
  at: number;
}

/** kube's setConditionInList: a change of status moves lastTransitionTime; reason and message always follow */
export function setCondition(conditions: HpaCondition[], c: Omit<HpaCondition, 'lastTransitionTime'>, now: string): HpaCondition[] {
  const i = conditions.findIndex((x) => x.type === c.type);
  if (i < 0) return [...conditions, { ...c, lastTransitionTime: now }];
  const old = conditions[i];
  const next = { ...old, ...c, lastTransitionTime: old.status !== c.status ? now : old.lastTransitionTime ?? now };
  return conditions.map((x, j) => (j === i ? next : x));
}

/**
 * kube's stabilizeRecommendation: the highest recommendation within the window (the new one
 * included); the new one replaces a sample older than the window, or is appended.
 */
export function stabilize(history: Recommendation[], proposal: number, windowMs: number, now: number): number {
  let highest = proposal;
  let oldIndex = -1;
  const cutoff = now - windowMs;
  history.forEach((r, i) => {
    if (r.at < cutoff) oldIndex = i;
    else if (r.replicas > highest) highest = r.replicas;
  });
  if (oldIndex >= 0) history[oldIndex] = { replicas: proposal, at: now };
  else history.push({ replicas: proposal, at: now });
  return highest;
}

export function scaleUpLimit(currentReplicas: number): number {
  return Math.trunc(Math.max(SCALE_UP_LIMIT_FACTOR * currentReplicas, SCALE_UP_LIMIT_MINIMUM));
}

/** kube's convertDesiredReplicasWithRules: the bounded count and the ScalingLimited reason and message */
export function boundReplicas(currentReplicas: number, desired: number, minReplicas: number, maxReplicas: number): { replicas: number; reason: string; message: string } {
  const limit = scaleUpLimit(currentReplicas);
  const [maximum, reason, message] =
    maxReplicas > limit
      ? [limit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate']
      : [maxReplicas, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
  if (desired < minReplicas) return { replicas: minReplicas, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
  if (desired > maximum) return { replicas: maximum, reason, message };
  return { replicas: desired, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
}
