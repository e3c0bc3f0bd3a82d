/**
 * kube 1.20's scaling with spec.behavior (normalizeDesiredReplicasWithBehaviors): a stabilization
 * window in each direction (the lowest recent recommendation on the way up, the highest on the way
 * down), then rate limits from the direction's policies measured against the scale events of
 * their periods (`Pods` adds or removes a number, `Percent` a share; selectPolicy Max takes the
 * largest change, Min the smallest, Disabled none).
 */
import type { Recommendation } from './normalize';

export interface ScalingPolicy {
  type?: string;
  value?: number;
  periodSeconds?: number;
}

export interface ScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: string;
  policies?: ScalingPolicy[];
}

export interface Behavior {
  scaleUp?: ScalingRules;
  scaleDown?: ScalingRules;
}

export interface ScaleEvent {
  change: number;
  at: number;
  outdated?: boolean;
}

/** what the controller remembers of one HPA between reconciles */
export interface BehaviorMemory {
  recommendations: Recommendation[];
  scaleUpEvents: ScaleEvent[];
  scaleDownEvents: ScaleEvent[];
}

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/** kube's stabilizeRecommendationWithBehaviors */
export function stabilizeWithBehavior(memory: BehaviorMemory, behavior: Behavior, current: number, desired: number, defaultDownWindowS: number, now: number): {
  replicas: number;
  reason: string;
  message: string;
} {
  const upWindow = behavior.scaleUp?.stabilizationWindowSeconds ?? 0;
  const downWindow = behavior.scaleDown?.stabilizationWindowSeconds ?? defaultDownWindowS;
  const up = desired >= current;
  const window = up ? upWindow : downWindow;
  const better = up ? Math.min : Math.max;
  const cutoff = now - window * 1000;
  const obsolete = now - Math.max(upWindow, downWindow) * 1000;
  let recommendation = desired;
  let oldIndex = -1;
  memory.recommendations.forEach((r, i) => {
    if (r.at > cutoff) recommendation = better(r.replicas, recommendation);
    if (r.at < obsolete) oldIndex = i;
  });
  if (oldIndex >= 0) memory.recommendations[oldIndex] = { replicas: desired, at: now };
  else memory.recommendations.push({ replicas: desired, at: now });
  return up
    ? { replicas: recommendation, reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
    : { replicas: recommendation, reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
}

function changeInPeriod(periodSeconds: number, events: readonly ScaleEvent[], now: number): number {
  const cutoff = now - periodSeconds * 1000;
  return events.filter((e) => e.at > cutoff).reduce((sum, e) => sum + e.change, 0);
}

export function scaleUpLimitWithRules(current: number, events: readonly ScaleEvent[], rules: ScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pickMin = rules.selectPolicy === 'Min';
  let result = pickMin ? INT32_MAX : INT32_MIN;
  for (const p of rules.policies ?? []) {
    const start = current - changeInPeriod(p.periodSeconds ?? 0, events, now);
    const proposed = p.type === 'Pods' ? start + (p.value ?? 0) : Math.ceil(start * (1 + (p.value ?? 0) / 100));
    result = pickMin ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

export function scaleDownLimitWithRules(current: number, events: readonly ScaleEvent[], rules: ScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pickMin = rules.selectPolicy === 'Min';
  let result = pickMin ? INT32_MIN : INT32_MAX;
  for (const p of rules.policies ?? []) {
    const start = current + changeInPeriod(p.periodSeconds ?? 0, events, now);
    const proposed = p.type === 'Pods' ? start - (p.value ?? 0) : Math.trunc(start * (1 - (p.value ?? 0) / 100));
    result = pickMin ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}

/** kube's convertDesiredReplicasWithBehaviorRate */
export function boundWithBehavior(memory: BehaviorMemory, behavior: Behavior, current: number, desired: number, min: number, max: number, now: number): {
  replicas: number;
  reason: string;
  message: string;
} {
  if (desired > current) {
    const limit = Math.max(current, scaleUpLimitWithRules(current, memory.scaleUpEvents, behavior.scaleUp ?? {}, now));
    const [maximum, reason, message] =
      max > limit
        ? [limit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate']
        : [max, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
    if (desired > maximum) return { replicas: maximum, reason, message };
  } else if (desired < current) {
    const limit = Math.min(current, scaleDownLimitWithRules(current, memory.scaleDownEvents, behavior.scaleDown ?? {}, now));
    const [minimum, reason, message] =
      min < limit
        ? [limit, 'ScaleDownLimit', 'the desired replica count is decreasing faster than the maximum scale rate']
        : [min, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count'];
    if (desired < minimum) return { replicas: minimum, reason, message };
  }
  return { replicas: desired, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
}

/** kube's storeScaleEvent: a rescale's change, reusing a slot older than the direction's longest policy period */
export function storeScaleEvent(memory: BehaviorMemory, behavior: Behavior, previous: number, next: number, now: number): void {
  const up = next > previous;
  const events = up ? memory.scaleUpEvents : memory.scaleDownEvents;
  const rules = (up ? behavior.scaleUp : behavior.scaleDown) ?? {};
  const longest = Math.max(0, ...(rules.policies ?? []).map((p) => p.periodSeconds ?? 0));
  const cutoff = now - longest * 1000;
  for (const e of events) if (e.at < cutoff) e.outdated = true;
  const event = { change: Math.abs(next - previous), at: now, outdated: false };
  const i = events.findIndex((e) => e.outdated);
  if (i >= 0) events[i] = event;
  else events.push(event);
}
