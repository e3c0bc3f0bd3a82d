/**
 * Admission on the node (kubelet 1.20's lifecycle.predicateAdmitHandler with its generalFilter):
 * before a pod runs, the node must have room for it (pod count, cpu, memory, ephemeral storage,
 * extended resources), match its node selector and required node affinity, carry its name, offer
 * its host ports, and have no NoExecute taint it does not tolerate (static pods excepted). The
 * first failure names the rejection: `OutOf<resource>` with kube's InsufficientResourceError text, or
 * the predicate's name with `Predicate <name> failed`.
 */
import type { KubeObject } from '../../client/types';
import type { Taint, Toleration } from '../../controllers/util/taints';
import { podAccountedRequest, podFitRequest, milliValue, wholeValue, CPU, MEMORY, EPHEMERAL_STORAGE } from '../../scheduler/framework/resource';
import { podMatchesNodeSelectorAndAffinityTerms } from '../../scheduler/plugins/node/node-selector';
import { tolerationsTolerate } from '../../scheduler/plugins/node/node-unschedulable';
import type { Pod } from '../types';
import { isStaticPod } from './annotations';

export interface AdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

interface Port {
  hostPort?: number;
  hostIP?: string;
  protocol?: string;
}

function hostPorts(pod: Pod): { ip: string; protocol: string; port: number }[] {
  const spec = (pod.spec ?? {}) as { containers?: { ports?: Port[] }[]; initContainers?: { ports?: Port[] }[] };
  const out: { ip: string; protocol: string; port: number }[] = [];
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort || p.hostPort <= 0) continue;
      out.push({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol || 'TCP', port: p.hostPort });
    }
  }
  return out;
}

function portsConflict(wanted: ReturnType<typeof hostPorts>, used: ReturnType<typeof hostPorts>): boolean {
  return wanted.some((w) => used.some((u) => u.port === w.port && u.protocol === w.protocol && (u.ip === w.ip || u.ip === '0.0.0.0' || w.ip === '0.0.0.0')));
}

/**
 * whether `pod` may run beside `active` (the admitted, unfinished pods) on `node`; `maxPods`
 * stands in for the node's allocatable pods when the Node object says nothing
 */
export function canAdmitPod(pod: Pod, active: readonly Pod[], node: KubeObject | undefined, maxPods: number): AdmitResult {
  const allocatable = ((node?.status as { allocatable?: Record<string, unknown> } | undefined)?.allocatable ?? {}) as Record<string, unknown>;
  const capacityPods = allocatable.pods !== undefined ? Number(allocatable.pods) : maxPods;
  if (active.length + 1 > capacityPods) {
    return insufficient('pods', 1, active.length, capacityPods);
  }
  const request = podFitRequest(pod);
  const hasRequest = request.milliCPU > 0 || request.memory > 0 || request.ephemeralStorage > 0 || request.scalar.size > 0;
  if (hasRequest && node) {
    const used = active.map((p) => podAccountedRequest(p).request);
    const sum = (name: string) => used.reduce((n, r) => n + r.get(name), 0);
    const free = (name: string) => {
      const v = allocatable[name];
      if (v === undefined) return Infinity;
      return name === CPU ? milliValue(v) : wholeValue(v);
    };
    for (const name of [CPU, MEMORY, EPHEMERAL_STORAGE, ...request.scalar.keys()]) {
      const wanted = request.get(name);
      if (wanted === 0) continue;
      const capacity = free(name);
      if (capacity < wanted + sum(name)) return insufficient(name, wanted, sum(name), capacity);
    }
  }
  if (node && !podMatchesNodeSelectorAndAffinityTerms(pod, node)) return predicate('NodeAffinity');
  const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  if (node && nodeName && nodeName !== node.metadata?.name) return predicate('NodeName');
  const wanted = hostPorts(pod);
  if (wanted.length > 0 && portsConflict(wanted, active.flatMap(hostPorts))) return predicate('NodePorts');
  if (node && !isStaticPod(pod)) {
    const taints = ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []).filter((t) => t.effect === 'NoExecute');
    const tolerations = (pod.spec as { tolerations?: Toleration[] } | undefined)?.tolerations;
    if (taints.some((t) => !tolerationsTolerate(tolerations, t))) return predicate('TaintToleration');
  }
  return { admit: true };
}

function insufficient(resource: string, requested: number, used: number, capacity: number): AdmitResult {
  return {
    admit: false,
    reason: `OutOf${resource}`,
    message: `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
  };
}

function predicate(name: string): AdmitResult {
  return { admit: false, reason: name, message: `Predicate ${name} failed` };
}

/** an admission check besides the node's own (kubelet's PodAdmitHandler: the eviction manager is one) */
export interface PodAdmitHandler {
  admit(pod: Pod): AdmitResult;
}
