/**
 * The pure arithmetic of kube's deployment controller (pkg/controller/deployment/util): revision
 * and replica annotations, maxSurge/maxUnavailable fenceposts, how far a new ReplicaSet may grow,
 * proportional shares while scaling mid-rollout, conditions, and the rollout predicates.
 */
import type { KubeObject } from '../../client/types';
import { canonicalJson } from '../util/hash';

export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
export const POD_TEMPLATE_HASH = 'pod-template-hash';
/** kube's limit on the revision-history annotation */
export const MAX_REV_HISTORY_CHARS = 2000;

/** annotations a Deployment does not pass on to its ReplicaSets */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);

export type IntOrPercent = number | string | undefined;

export interface DeploymentSpec {
  replicas?: number;
  selector?: unknown;
  template?: KubeObject;
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: IntOrPercent; maxUnavailable?: IntOrPercent } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

export interface Condition {
  type: string;
  status: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: Condition[];
  collisionCount?: number;
}

export interface RsSpec {
  replicas?: number;
  minReadySeconds?: number;
  template?: KubeObject;
}

export interface RsStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

export const specOf = (d: KubeObject) => (d.spec ?? {}) as DeploymentSpec;
export const statusOf = (d: KubeObject) => (d.status ?? {}) as DeploymentStatus;
export const rsSpec = (rs: KubeObject) => (rs.spec ?? {}) as RsSpec;
export const rsStatus = (rs: KubeObject) => (rs.status ?? {}) as RsStatus;
export const replicasOf = (d: KubeObject) => specOf(d).replicas ?? 1;
export const rsReplicas = (rs: KubeObject) => rsSpec(rs).replicas ?? 0;

export function isRollingUpdate(d: KubeObject): boolean {
  return (specOf(d).strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

// ---- fenceposts -------------------------------------------------------------------------------

/** intstr.GetScaledValueFromIntOrPercent: an int as is, `N%` of total rounded up or down */
export function scaledValue(v: IntOrPercent, total: number, roundUp: boolean): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) {
    const n = Number(v);
    if (Number.isInteger(n)) return n;
    throw new Error(`invalid value for IntOrString: invalid value ${JSON.stringify(v)}`);
  }
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** ResolveFenceposts: surge rounds up, unavailability down; both zero would stall, so unavailable becomes 1 */
export function resolveFenceposts(maxSurge: IntOrPercent, maxUnavailable: IntOrPercent, desired: number): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge, desired, true);
  let unavailable = scaledValue(maxUnavailable, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: KubeObject): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = specOf(d).strategy?.rollingUpdate ?? {};
  return resolveFenceposts(ru.maxSurge ?? '25%', ru.maxUnavailable ?? '25%', replicasOf(d)).surge;
}

export function maxUnavailable(d: KubeObject): number {
  const replicas = replicasOf(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const ru = specOf(d).strategy?.rollingUpdate ?? {};
  const { unavailable } = resolveFenceposts(ru.maxSurge ?? '25%', ru.maxUnavailable ?? '25%', replicas);
  return Math.min(unavailable, replicas);
}

// ---- replica set sets -------------------------------------------------------------------------

export const sumSpecReplicas = (rss: readonly KubeObject[]) => rss.reduce((n, rs) => n + rsReplicas(rs), 0);
export const sumStatus = (rss: readonly KubeObject[], field: 'replicas' | 'readyReplicas' | 'availableReplicas') =>
  rss.reduce((n, rs) => n + (rsStatus(rs)[field] ?? 0), 0);
export const activeReplicaSets = (rss: readonly KubeObject[]) => rss.filter((rs) => rsReplicas(rs) > 0);

const created = (o: KubeObject) => Date.parse(o.metadata?.creationTimestamp ?? '') || 0;

/** ReplicaSetsByCreationTimestamp: oldest first, then by name */
export function byCreation(a: KubeObject, b: KubeObject): number {
  return created(a) - created(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

/** ReplicaSetsBySizeNewer (scaling up) and ReplicaSetsBySizeOlder (scaling down): biggest first */
export function bySize(newerFirst: boolean) {
  return (a: KubeObject, b: KubeObject): number => {
    const d = rsReplicas(b) - rsReplicas(a);
    if (d !== 0) return d;
    return newerFirst ? byCreation(b, a) : byCreation(a, b);
  };
}

export function revisionOf(o: KubeObject): number {
  const v = Number.parseInt(o.metadata?.annotations?.[REVISION] ?? '', 10);
  return Number.isNaN(v) ? 0 : v;
}

/** ReplicaSetsByRevision: lowest revision first, then by creation */
export function byRevision(a: KubeObject, b: KubeObject): number {
  return revisionOf(a) - revisionOf(b) || byCreation(a, b);
}

export const maxRevision = (rss: readonly KubeObject[]) => rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);

function withoutHash(template: KubeObject | undefined): string {
  const copy = structuredClone(template ?? {}) as KubeObject;
  const labels = copy.metadata?.labels;
  if (labels) {
    delete labels[POD_TEMPLATE_HASH];
    if (Object.keys(labels).length === 0) delete copy.metadata!.labels;
  }
  return canonicalJson(copy);
}

/** EqualIgnoreHash: the templates are the same but for the pod-template-hash label */
export function equalIgnoreHash(a: KubeObject | undefined, b: KubeObject | undefined): boolean {
  return withoutHash(a) === withoutHash(b);
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the deployment's */
export function findNewReplicaSet(d: KubeObject, rss: readonly KubeObject[]): KubeObject | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rsSpec(rs).template, specOf(d).template));
}

/** FindActiveOrLatest: the only active ReplicaSet, or the newest when none is active */
export function findActiveOrLatest(newRS: KubeObject | undefined, oldRSs: readonly KubeObject[]): KubeObject | undefined {
  const olds = [...oldRSs].sort((a, b) => byCreation(b, a));
  const all = activeReplicaSets(newRS ? [...olds, newRS] : olds);
  if (all.length === 0) return newRS ?? olds[0];
  if (all.length === 1) return all[0];
  return undefined;
}

// ---- annotations ------------------------------------------------------------------------------

/** SetReplicasAnnotations: desired-replicas and max-replicas; true when they changed */
export function setReplicasAnnotations(rs: KubeObject, desired: number, max: number): boolean {
  const a = (rs.metadata!.annotations ??= {});
  let changed = false;
  if (a[DESIRED_REPLICAS] !== String(desired)) {
    a[DESIRED_REPLICAS] = String(desired);
    changed = true;
  }
  if (a[MAX_REPLICAS] !== String(max)) {
    a[MAX_REPLICAS] = String(max);
    changed = true;
  }
  return changed;
}

/** SetNewReplicaSetAnnotations: copy the deployment's annotations, raise the revision, keep its history */
export function setNewReplicaSetAnnotations(d: KubeObject, rs: KubeObject, newRevision: string, exists: boolean): boolean {
  rs.metadata ??= {};
  const a = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (NOT_COPIED.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const oldRevision = a[REVISION] ?? '';
  const oldInt = oldRevision === '' ? 0 : Number.parseInt(oldRevision, 10);
  if (Number.isNaN(oldInt)) return false;
  const newInt = Number.parseInt(newRevision, 10);
  if (oldInt < newInt) {
    a[REVISION] = newRevision;
    changed = true;
    if (oldRevision !== '') {
      const history = a[REVISION_HISTORY] ?? '';
      let olds = history.split(',');
      if (olds[0] === '') {
        a[REVISION_HISTORY] = oldRevision;
      } else {
        let total = history.length + oldRevision.length + 1;
        let start = 0;
        while (total > MAX_REV_HISTORY_CHARS && start < olds.length) {
          total -= olds[start]!.length + 1;
          start += 1;
        }
        if (total <= MAX_REV_HISTORY_CHARS) {
          olds = [...olds.slice(start), oldRevision];
          a[REVISION_HISTORY] = olds.join(',');
        }
      }
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

// ---- how many replicas ------------------------------------------------------------------------

/** NewRSNewReplicas: the size the new ReplicaSet may have now */
export function newRSNewReplicas(d: KubeObject, allRSs: readonly KubeObject[], newRS: KubeObject): number {
  if (!isRollingUpdate(d)) return replicasOf(d);
  const current = sumSpecReplicas(allRSs);
  const maxTotal = replicasOf(d) + maxSurge(d);
  if (current >= maxTotal) return rsReplicas(newRS);
  const up = Math.min(maxTotal - current, replicasOf(d) - rsReplicas(newRS));
  return rsReplicas(newRS) + up;
}

function annotatedInt(rs: KubeObject, key: string): number | undefined {
  const v = rs.metadata?.annotations?.[key];
  if (v === undefined) return undefined;
  const n = Number.parseInt(v, 10);
  return Number.isNaN(n) ? undefined : n;
}

/** IsSaturated: the new ReplicaSet has all the deployment's replicas, and they are available */
export function isSaturated(d: KubeObject, rs: KubeObject | undefined): boolean {
  if (!rs) return false;
  const desired = annotatedInt(rs, DESIRED_REPLICAS);
  if (desired === undefined) return false;
  return rsReplicas(rs) === replicasOf(d) && desired === replicasOf(d) && (rsStatus(rs).availableReplicas ?? 0) === replicasOf(d);
}

/** getReplicaSetFraction: the change that keeps this ReplicaSet's share of the deployment */
function replicaSetFraction(rs: KubeObject, d: KubeObject): number {
  if (replicasOf(d) === 0) return -rsReplicas(rs);
  const deploymentReplicas = replicasOf(d) + maxSurge(d);
  const annotated = annotatedInt(rs, MAX_REPLICAS) ?? statusOf(d).replicas ?? 0;
  if (annotated <= 0) return 0;
  // Go's math.Round: halves away from zero
  const size = (rsReplicas(rs) * deploymentReplicas) / annotated;
  return Math.sign(size) * Math.round(Math.abs(size)) - rsReplicas(rs);
}

/** GetProportion: this ReplicaSet's part of `toAdd`, bounded by what is left to add */
export function proportion(rs: KubeObject, d: KubeObject, toAdd: number, added: number): number {
  if (rsReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}
