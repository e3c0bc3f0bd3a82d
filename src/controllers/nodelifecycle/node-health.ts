/**
 * What the node lifecycle controller remembers of each node's health (kube's nodeHealthMap and
 * tryUpdateNodeHealth): when it last saw the node agent alive, by the controller's own clock. A
 * node is alive when its Ready condition's lastHeartbeatTime changes or its Lease in
 * kube-node-lease is renewed; one silent for longer than the grace period (the startup grace when
 * it never posted a Ready condition) gets its conditions set to Unknown.
 */
import type { KubeObject } from '../../client/types';
import { timestamp, type NodeCondition } from './taints';

export interface NodeHealth {
  /** the node's status as last seen */
  conditions: NodeCondition[];
  probeTimestamp: number;
  readyTransitionTimestamp: number;
  leaseRenewTime?: number;
}

/** the conditions the controller sets to Unknown (Ready first), kube's nodeConditionTypes */
export const MONITORED_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

export interface HealthCheck {
  gracePeriodMs: number;
  /** the Ready condition before this check (a made-up Unknown one when the node never posted) */
  observed: NodeCondition;
  /** the Ready condition after it (undefined when the node never posted and is still in its grace) */
  current: NodeCondition | undefined;
  /** a copy of the node with the conditions made Unknown, when its status must be written */
  statusUpdate?: KubeObject;
}

const ms = (t: string | undefined): number => (t ? Date.parse(t) : NaN);

export class NodeHealthMap {
  readonly #health = new Map<string, NodeHealth>();

  get(name: string): NodeHealth | undefined {
    return this.#health.get(name);
  }

  delete(name: string): void {
    this.#health.delete(name);
  }

  /** restart every node's clock (leaving the all-nodes-down disruption mode) */
  resetAll(now: number): void {
    for (const h of this.#health.values()) {
      h.probeTimestamp = now;
      h.readyTransitionTimestamp = now;
    }
  }

  /** tryUpdateNodeHealth, up to the write: what to write is returned, and `written` records it */
  check(node: KubeObject, leaseRenewTime: string | undefined, opts: { monitorGracePeriodMs: number; startupGracePeriodMs: number; now: number }): HealthCheck {
    const name = node.metadata?.name ?? '';
    const now = opts.now;
    const createdStamp = node.metadata?.creationTimestamp ?? undefined;
    const created = ms(createdStamp);
    const conditions = (((node.status ?? {}) as { conditions?: NodeCondition[] }).conditions ?? []).map((c) => ({ ...c }));
    let health = this.#health.get(name);
    const currentReady = conditions.find((c) => c.type === 'Ready');
    let observed: NodeCondition;
    let gracePeriodMs: number;
    if (!currentReady) {
      // never posted: count from the node's creation, with the startup grace
      const stamp = createdStamp;
      observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: stamp, lastTransitionTime: stamp };
      gracePeriodMs = opts.startupGracePeriodMs;
      if (health) health.conditions = conditions;
      else {
        const at = Number.isNaN(created) ? now : created;
        health = { conditions, probeTimestamp: at, readyTransitionTimestamp: at };
        this.#health.set(name, health);
      }
    } else {
      observed = { ...currentReady };
      gracePeriodMs = opts.monitorGracePeriodMs;
    }
    const saved = health?.conditions.find((c) => c.type === 'Ready');
    if (!health) {
      health = { conditions, probeTimestamp: now, readyTransitionTimestamp: now };
    } else if ((!saved && currentReady) || (saved && !currentReady)) {
      health = { conditions, probeTimestamp: now, readyTransitionTimestamp: now, leaseRenewTime: health.leaseRenewTime };
    } else if (saved && currentReady && saved.lastHeartbeatTime !== currentReady.lastHeartbeatTime) {
      const transition = saved.lastTransitionTime !== currentReady.lastTransitionTime ? now : health.readyTransitionTimestamp;
      health = { conditions, probeTimestamp: now, readyTransitionTimestamp: transition, leaseRenewTime: health.leaseRenewTime };
    }
    const renew = ms(leaseRenewTime);
    if (!Number.isNaN(renew) && (health.leaseRenewTime === undefined || health.leaseRenewTime < renew)) {
      health.leaseRenewTime = renew;
      health.probeTimestamp = now;
    }
    this.#health.set(name, health);

    if (now <= health.probeTimestamp + gracePeriodMs) return { gracePeriodMs, observed, current: currentReady };
    const stamp = timestamp(now);
    for (const type of MONITORED_CONDITIONS) {
      const c = conditions.find((x) => x.type === type);
      if (!c) {
        conditions.push({
          type,
          status: 'Unknown',
          reason: 'NodeStatusNeverUpdated',
          message: 'Kubelet never posted node status.',
          lastHeartbeatTime: createdStamp,
          lastTransitionTime: stamp,
        });
      } else if (c.status !== 'Unknown') {
        c.status = 'Unknown';
        c.reason = 'NodeStatusUnknown';
        c.message = 'Kubelet stopped posting node status.';
        c.lastTransitionTime = stamp;
      }
    }
    const current = conditions.find((c) => c.type === 'Ready');
    if (JSON.stringify(current) === JSON.stringify(observed)) return { gracePeriodMs, observed, current };
    const statusUpdate = structuredClone(node);
    (statusUpdate.status as { conditions?: NodeCondition[] }) = { ...((node.status ?? {}) as object), conditions };
    return { gracePeriodMs, observed, current, statusUpdate };
  }

  /** the status write succeeded: remember the node as written, its transition now */
  written(node: KubeObject, now: number): void {
    const name = node.metadata?.name ?? '';
    const health = this.#health.get(name);
    const conditions = (((node.status ?? {}) as { conditions?: NodeCondition[] }).conditions ?? []).map((c) => ({ ...c }));
    this.#health.set(name, { conditions, probeTimestamp: health?.probeTimestamp ?? now, readyTransitionTimestamp: now, leaseRenewTime: health?.leaseRenewTime });
  }
}

