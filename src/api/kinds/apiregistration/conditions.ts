/** The Available condition of APIServices as kube writes it (kube-aggregator's apiregistration helpers). */

export interface APIServiceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** RFC 3339 with whole seconds, as metav1.Time is written */
export function nowTimestamp(now: Date = new Date()): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}

/** kube's NewLocalAvailableAPIServiceCondition */
export function localAvailableCondition(now: Date = new Date()): APIServiceCondition {
  return { type: 'Available', status: 'True', lastTransitionTime: nowTimestamp(now), reason: 'Local', message: 'Local APIServices are always available' };
}
