/**
 * The status manager (kubelet's status.Manager): the latest generated status of every pod, each
 * with a version, written to pods/<name>/status when it changed (a merge patch with the pod's UID
 * as precondition; a static pod's status goes to its mirror pod). A batch every syncPeriod re-sends
 * what the API lacks. A terminal phase never goes back. A pod being deleted whose resources are
 * reclaimed gets its final status, then is deleted with grace period 0 and a UID precondition.
 */
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import type { Pod } from '../types';
import { isMirrorPod, isStaticPod, podUid } from './annotations';
import { type ApiPodStatus, KUBELET_CONDITIONS, type PodCondition, rfc3339 } from './api-status';

interface Entry {
  status: ApiPodStatus;
  version: number;
  name: string;
  namespace: string;
}

export interface StatusManagerOptions {
  /** absent in the standalone mode: statuses are kept here only (kubelet's nil kubeClient) */
  client?: RestClient;
  logger: Logger;
  now: () => number;
  /** the batch period (kubelet: 10 s) */
  syncPeriodMs: number;
  /** the API's copy of a pod this node runs: a static pod's mirror pod */
  apiPodOf(uid: string): Pod | undefined;
  /** whether a pod's resources are released so that its API object may go (kubelet's canBeDeleted) */
  canBeDeleted(pod: Pod, status: ApiPodStatus): boolean;
  /** told after a pod's object is deleted */
  onDeleted?(uid: string): void;
}

export class StatusManager {
  readonly #opts: StatusManagerOptions;
  readonly #statuses = new Map<string, Entry>();
  readonly #apiVersions = new Map<string, number>();
  readonly #syncing = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(opts: StatusManagerOptions) {
    this.#opts = opts;
  }

  start(): void {
    if (!this.#opts.client) return;
    this.#timer = setInterval(() => this.#syncBatch(), this.#opts.syncPeriodMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all([...this.#syncing.values()]);
  }

  /** the status last set for a pod */
  get(uid: string): ApiPodStatus | undefined {
    return this.#statuses.get(uid)?.status;
  }

  /** record a pod's new status and write it when it differs (kubelet's SetPodStatus) */
  set(pod: Pod, generated: ApiPodStatus): void {
    const uid = podUid(pod);
    const cached = this.#statuses.get(uid);
    const old = (cached?.status ?? (pod.status as Partial<ApiPodStatus> | undefined) ?? {}) as Partial<ApiPodStatus>;
    const status = structuredClone(generated);
    const now = rfc3339(this.#opts.now()) ?? new Date().toISOString();
    if ((old.phase === 'Succeeded' || old.phase === 'Failed') && status.phase !== old.phase) {
      this.#opts.logger.warn({ pod: pod.metadata?.name, from: old.phase, to: status.phase }, 'refusing a phase transition out of a terminal phase');
      status.phase = old.phase;
    }
    for (const c of status.conditions) {
      const previous = old.conditions?.find((o) => o.type === c.type);
      c.lastProbeTime ??= null;
      c.lastTransitionTime = previous && previous.status === c.status && previous.lastTransitionTime ? previous.lastTransitionTime : now;
    }
    status.startTime = old.startTime ?? status.startTime ?? now;
    const force = pod.metadata?.deletionTimestamp !== undefined;
    if (cached && !force && sameStatus(cached.status, status)) return;
    const entry: Entry = { status, version: (cached?.version ?? 0) + 1, name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '' };
    this.#statuses.set(uid, entry);
    this.#syncSoon(uid);
  }

  /** write a pod's status again (its mirror pod appeared) */
  resync(uid: string): void {
    if (this.#statuses.has(uid)) this.#syncSoon(uid);
  }

  /** forget pods no longer on the node */
  removeOrphans(keep: ReadonlySet<string>): void {
    for (const uid of this.#statuses.keys()) {
      if (!keep.has(uid)) {
        this.#statuses.delete(uid);
        this.#apiVersions.delete(uid);
      }
    }
  }

  /** write a pod's status now (and again after, when a write is under way) */
  #syncSoon(uid: string): void {
    if (!this.#opts.client) return;
    if (this.#syncing.has(uid)) {
      this.#again.add(uid);
      return;
    }
    const run = this.#sync(uid)
      .catch((err: Error) => this.#opts.logger.info({ uid, err: err.message }, 'pod status update failed; retrying at the next batch'))
      .finally(() => {
        this.#syncing.delete(uid);
        if (this.#again.delete(uid)) this.#syncSoon(uid);
      });
    this.#syncing.set(uid, run);
  }

  #syncBatch(): void {
    for (const [uid, entry] of this.#statuses) {
      // a write under way writes the latest status (set() asks again for what changes meanwhile); asking
      // again here would GET the pod once more for nothing, batch after batch while the client is throttled
      if (this.#syncing.has(uid)) continue;
      const apiVersion = this.#apiVersions.get(uid) ?? 0;
      const apiPod = this.#opts.apiPodOf(uid);
      // by the test #sync writes by: a batch that found a difference #sync would not write would GET every pod every period
      const stale = apiPod !== undefined && needsWrite((apiPod.status ?? {}) as Partial<ApiPodStatus>, entry.status);
      const deletable = apiPod?.metadata?.deletionTimestamp !== undefined;
      if (entry.version > apiVersion || stale || deletable) this.#syncSoon(uid);
    }
  }

  async #sync(uid: string): Promise<void> {
    const entry = this.#statuses.get(uid);
    if (!entry) return;
    const { logger } = this.#opts;
    const client = this.#opts.client!;
    let pod: Pod;
    try {
      pod = await client.get<Pod>(RESOURCES.pods, entry.namespace, entry.name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    // the API object must be this pod (or, for a static pod, its mirror): not a namesake made since
    const expected = this.#opts.apiPodOf(uid);
    const apiUid = podUid(pod);
    if (isMirrorPod(pod) ? expected === undefined || podUid(expected) !== apiUid : apiUid !== uid) {
      logger.debug({ pod: entry.name, uid, apiUid }, 'the pod was deleted and created again; skipping its status');
      return;
    }
    const oldStatus = (pod.status ?? {}) as Record<string, unknown>;
    const merged = mergeStatus(oldStatus as Partial<ApiPodStatus>, entry.status);
    const patch: Record<string, unknown> = { ...merged };
    for (const key of Object.keys(oldStatus)) if (!(key in patch)) patch[key] = null;
    if (needsWrite(oldStatus as Partial<ApiPodStatus>, entry.status)) {
      pod = await client.patch<Pod>(RESOURCES.pods, entry.namespace, entry.name, 'merge', { metadata: { uid: apiUid }, status: patch }, { subresource: 'status' });
    }
    this.#apiVersions.set(uid, entry.version);
    if (!isMirrorPod(pod) && !isStaticPod(pod) && pod.metadata?.deletionTimestamp && this.#opts.canBeDeleted(pod, entry.status)) {
      try {
        await client.delete(RESOURCES.pods, entry.namespace, entry.name, { gracePeriodSeconds: 0, preconditions: { uid: apiUid } });
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
      logger.info({ pod: entry.name, namespace: entry.namespace }, 'pod deleted from the API after its resources were released');
      this.#statuses.delete(uid);
      this.#apiVersions.delete(uid);
      this.#opts.onDeleted?.(uid);
    }
  }
}

/** kubelet's mergePodStatus: the API's conditions of other owners, with ours */
function mergeStatus(old: Partial<ApiPodStatus>, ours: ApiPodStatus): ApiPodStatus {
  const others = (old.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type));
  const mine = ours.conditions.filter((c) => KUBELET_CONDITIONS.has(c.type));
  return { ...ours, conditions: [...others, ...mine] };
}

/** whether the API's status differs from ours merged into it (kubelet's needsReconcile and the write's own test) */
export function needsWrite(api: Partial<ApiPodStatus>, ours: ApiPodStatus): boolean {
  return !sameStatus(api, mergeStatus(api, ours));
}

/**
 * drop undefined and null values and sort keys, so equal statuses print alike: a merge patch's null
 * is an absent field, and the API does not keep a condition's `lastProbeTime: null`
 */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined && v !== null) out[key] = normalize(v);
    }
    return out;
  }
  return value;
}

function sameStatus(a: Partial<ApiPodStatus>, b: Partial<ApiPodStatus>): boolean {
  return JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));
}
