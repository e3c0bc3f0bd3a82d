/**
 * kube's TriggerTimeTracker (pkg/controller/util/endpoint): the value of the
 * `endpoints.kubernetes.io/last-change-trigger-time` annotation the endpoint and endpointslice
 * controllers write. For a service seen for the first time it is the service's creation time;
 * afterwards it is the earliest of the trigger times (a pod's Ready transition, the service's
 * creation) that changed since the previous sync, or none when nothing did.
 */
import type { KubeObject } from '../../client/types';

export const LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';

interface ServiceState {
  podTimes: Map<string, number>;
  serviceTime: number;
}

function readyTransition(pod: KubeObject): number {
  const conditions = ((pod.status ?? {}) as { conditions?: { type: string; lastTransitionTime?: string }[] }).conditions ?? [];
  const t = conditions.find((c) => c.type === 'Ready')?.lastTransitionTime;
  return t ? Date.parse(t) || 0 : 0;
}

function creation(obj: KubeObject): number {
  const t = obj.metadata?.creationTimestamp;
  return t ? Date.parse(t) || 0 : 0;
}

/** the earlier of two times, where 0 means none */
function earliest(current: number, next: number): number {
  return current === 0 || next < current ? next : current;
}

export class TriggerTimeTracker {
  readonly #states = new Map<string, ServiceState>();

  /** the trigger time for this sync of `service` (ms since the epoch; 0 for none), remembering what was seen */
  compute(service: KubeObject, pods: readonly KubeObject[]): number {
    const key = `${service.metadata?.namespace}/${service.metadata?.name}`;
    const previous = this.#states.get(key);
    let changed = 0;
    const podTimes = new Map<string, number>();
    for (const pod of pods) {
      const t = readyTransition(pod);
      if (t === 0) continue;
      const name = pod.metadata?.name ?? '';
      podTimes.set(name, t);
      if (t > (previous?.podTimes.get(name) ?? 0)) changed = earliest(changed, t);
    }
    const serviceTime = creation(service);
    if (serviceTime > (previous?.serviceTime ?? 0)) changed = earliest(changed, serviceTime);
    this.#states.set(key, { podTimes, serviceTime });
    return previous ? changed : serviceTime;
  }

  forget(namespace: string | undefined, name: string): void {
    this.#states.delete(`${namespace}/${name}`);
  }
}

/** the annotation's text: RFC 3339 with the fraction kube's RFC3339Nano keeps (none when whole seconds) */
export function formatTriggerTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.replace(/\.000Z$/, 'Z').replace(/(\.\d*?)0+Z$/, '$1Z');
}
