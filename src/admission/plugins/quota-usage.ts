/**
 * What objects use of a ResourceQuota's resources (kube's quota evaluators, pkg/quota/v1/evaluator/core):
 * object counts (`pods`, `services`, `count/<resource>[.<group>]`, ...), the compute resources of
 * non-terminal pods (`requests.cpu` or `cpu`, `limits.memory`, ...) and the storage requests of
 * claims. Scopes: Terminating, NotTerminating, BestEffort, NotBestEffort and PriorityClass
 * (scopeSelector), as kube's pod evaluator matches them.
 */
import type { KindDefinition, KubeObject } from '../../api/kind';
import { parseQuantity } from '../quantity';
import type { Container, PodSpec } from './pod';

/** what the evaluators need to know of an object's kind: its group and resource */
export type QuotaKind = Pick<KindDefinition, 'group' | 'resource'>;

/** the resources kube's generic evaluator counts under their short names */
const SHORT_COUNTS: Record<string, string> = {
  pods: 'pods',
  services: 'services',
  configmaps: 'configmaps',
  secrets: 'secrets',
  persistentvolumeclaims: 'persistentvolumeclaims',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
};

const COMPUTE = new Set(['cpu', 'memory', 'ephemeral-storage']);

export function isTerminalPod(pod: KubeObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

function containersOf(pod: KubeObject): { main: Container[]; init: Container[] } {
  const spec = (pod.spec ?? {}) as PodSpec;
  return { main: Array.isArray(spec.containers) ? spec.containers : [], init: Array.isArray(spec.initContainers) ? spec.initContainers : [] };
}

/** kube's resource helpers: sum of containers, at least the largest init container, plus overhead */
export function podResource(pod: KubeObject, which: 'requests' | 'limits', name: string): number {
  const { main, init } = containersOf(pod);
  let sum = 0;
  for (const c of main) sum += parseQuantity(c.resources?.[which]?.[name]) ?? 0;
  for (const c of init) sum = Math.max(sum, parseQuantity(c.resources?.[which]?.[name]) ?? 0);
  const overhead = ((pod.spec ?? {}) as PodSpec).overhead;
  if (sum > 0 || which === 'requests') sum += parseQuantity(overhead?.[name]) ?? 0;
  return sum;
}

/** a compute resource name split into requests/limits and the resource (`cpu` means requests.cpu) */
export function computeResource(name: string): { which: 'requests' | 'limits'; resource: string } | undefined {
  if (COMPUTE.has(name)) return { which: 'requests', resource: name };
  const m = /^(requests|limits)\.(cpu|memory|ephemeral-storage)$/.exec(name);
  return m ? { which: m[1] as 'requests' | 'limits', resource: m[2] } : undefined;
}

function isBestEffort(pod: KubeObject): boolean {
  const { main, init } = containersOf(pod);
  return [...main, ...init].every((c) => Object.keys(c.resources?.requests ?? {}).length === 0 && Object.keys(c.resources?.limits ?? {}).length === 0);
}

interface ScopeRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[];
}

/** whether a pod falls under every scope of the quota (non-pod objects: only unscoped quotas) */
export function matchesScopes(quota: KubeObject, kind: QuotaKind, obj: KubeObject): boolean {
  const spec = (quota.spec ?? {}) as { scopes?: string[]; scopeSelector?: { matchExpressions?: ScopeRequirement[] } };
  const requirements: ScopeRequirement[] = [
    ...(spec.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' })),
    ...(spec.scopeSelector?.matchExpressions ?? []),
  ];
  if (requirements.length === 0) return true;
  if (!(kind.group === '' && kind.resource === 'pods')) return false;
  const podSpecOf = (obj.spec ?? {}) as PodSpec & { activeDeadlineSeconds?: number };
  return requirements.every((r) => {
    switch (r.scopeName) {
      case 'Terminating':
        return podSpecOf.activeDeadlineSeconds !== undefined && podSpecOf.activeDeadlineSeconds !== null;
      case 'NotTerminating':
        return podSpecOf.activeDeadlineSeconds === undefined || podSpecOf.activeDeadlineSeconds === null;
      case 'BestEffort':
        return isBestEffort(obj);
      case 'NotBestEffort':
        return !isBestEffort(obj);
      case 'PriorityClass': {
        const pc = podSpecOf.priorityClassName ?? '';
        if (r.operator === 'Exists') return pc !== '';
        if (r.operator === 'DoesNotExist') return pc === '';
        if (r.operator === 'In') return (r.values ?? []).includes(pc);
        if (r.operator === 'NotIn') return !(r.values ?? []).includes(pc);
        return false;
      }
      default:
        return false;
    }
  });
}

/** how much of quota resource `name` one object of `kind` uses (0 when the resource is not about it) */
export function usageOf(kind: QuotaKind, obj: KubeObject, name: string): number {
  const qualified = kind.group ? `${kind.resource}.${kind.group}` : kind.resource;
  const isPod = kind.group === '' && kind.resource === 'pods';
  if (isPod && isTerminalPod(obj)) return 0;
  if (name === `count/${qualified}` || (!kind.group && SHORT_COUNTS[kind.resource] === name)) return 1;
  if (isPod) {
    const compute = computeResource(name);
    return compute ? podResource(obj, compute.which, compute.resource) : 0;
  }
  if (kind.group === '' && kind.resource === 'services') {
    const type = (obj.spec as { type?: string; ports?: unknown[] } | undefined)?.type;
    const ports = (obj.spec as { ports?: unknown[] } | undefined)?.ports ?? [];
    if (name === 'services.loadbalancers') return type === 'LoadBalancer' ? 1 : 0;
    if (name === 'services.nodeports') return type === 'NodePort' || type === 'LoadBalancer' ? ports.length : 0;
    return 0;
  }
  if (kind.group === '' && kind.resource === 'persistentvolumeclaims') {
    const spec = (obj.spec ?? {}) as { storageClassName?: string; resources?: { requests?: Record<string, unknown> } };
    const storage = parseQuantity(spec.resources?.requests?.storage) ?? 0;
    if (name === 'requests.storage') return storage;
    const cls = spec.storageClassName ?? '';
    if (cls && name === `${cls}.storageclass.storage.k8s.io/requests.storage`) return storage;
    if (cls && name === `${cls}.storageclass.storage.k8s.io/persistentvolumeclaims`) return 1;
  }
  return 0;
}

/** the compute resources a pod must set for the quota to count it (kube's "must specify") */
export function missingCompute(kind: QuotaKind, obj: KubeObject, hard: string[]): string[] {
  if (!(kind.group === '' && kind.resource === 'pods')) return [];
  const { main, init } = containersOf(obj);
  const missing: string[] = [];
  for (const name of hard) {
    const compute = computeResource(name);
    if (!compute) continue;
    if ([...main, ...init].some((c) => c.resources?.[compute.which]?.[compute.resource] === undefined)) missing.push(name);
  }
  return missing.sort();
}

/**
 * The quota resources an object kind's evaluator is about (kube's MatchingResources): its counts,
 * and for pods their compute resources, services their load balancers and node ports, claims
 * their storage (also per storage class).
 */
export function isResourceOf(kind: QuotaKind, name: string): boolean {
  const qualified = kind.group ? `${kind.resource}.${kind.group}` : kind.resource;
  if (name === `count/${qualified}` || (!kind.group && SHORT_COUNTS[kind.resource] === name)) return true;
  if (kind.group !== '') return false;
  if (kind.resource === 'pods') return computeResource(name) !== undefined;
  if (kind.resource === 'services') return name === 'services.loadbalancers' || name === 'services.nodeports';
  if (kind.resource === 'persistentvolumeclaims') return name === 'requests.storage' || /\.storageclass\.storage\.k8s\.io\/(requests\.storage|persistentvolumeclaims)$/.test(name);
  return false;
}

/** the group and resource whose objects a quota resource name counts (undefined for names kube does not know) */
export function kindOfResourceName(name: string): QuotaKind | undefined {
  const count = /^count\/([^.]+)(?:\.(.+))?$/.exec(name);
  if (count) return { resource: count[1], group: count[2] ?? '' };
  const short = Object.values(SHORT_COUNTS).find((r) => r === name);
  if (short) return { group: '', resource: short };
  if (computeResource(name)) return { group: '', resource: 'pods' };
  if (name === 'services.loadbalancers' || name === 'services.nodeports') return { group: '', resource: 'services' };
  if (isResourceOf({ group: '', resource: 'persistentvolumeclaims' }, name)) return { group: '', resource: 'persistentvolumeclaims' };
  return undefined;
}
