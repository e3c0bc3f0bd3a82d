/**
 * The merge of the pod sources (kubelet's config.PodConfig in incremental mode): every source
 * reports its whole set of pods, and the merge turns the difference with what that source said
 * before into kubelet's operations: ADD (new pod), UPDATE (spec, labels, annotations changed),
 * DELETE (a deletionTimestamp appeared: graceful deletion), REMOVE (gone from the source),
 * RECONCILE (only the status changed).
 */
import type { Pod } from '../types';
import { CONFIG_SEEN, CONFIG_SOURCE, type PodSource, podUid } from './annotations';

export type PodOperation = 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';

export interface PodUpdate {
  op: PodOperation;
  source: PodSource;
  pods: Pod[];
}

export interface PodConfigOptions {
  /** the sources that must each report once before the agent trusts its view (kubelet's seenSources) */
  sources: readonly PodSource[];
  onUpdate(update: PodUpdate): void;
  now?: () => number;
}

export class PodConfig {
  readonly #opts: PodConfigOptions;
  readonly #pods = new Map<PodSource, Map<string, Pod>>();

  constructor(opts: PodConfigOptions) {
    this.#opts = opts;
  }

  /** whether every configured source has reported at least once */
  allSourcesReady(): boolean {
    return this.#opts.sources.every((s) => this.#pods.has(s));
  }

  /** the pods a source last reported */
  podsOf(source: PodSource): Pod[] {
    return [...(this.#pods.get(source)?.values() ?? [])];
  }

  /** a source's complete set of pods (kubelet's SET) */
  set(source: PodSource, pods: readonly Pod[]): void {
    const old = this.#pods.get(source) ?? new Map<string, Pod>();
    const next = new Map<string, Pod>();
    const added: Pod[] = [];
    const updated: Pod[] = [];
    const deleted: Pod[] = [];
    const reconciled: Pod[] = [];
    for (const incoming of pods) {
      const uid = podUid(incoming);
      if (!uid || next.has(uid)) continue;
      const pod = structuredClone(incoming);
      const meta = (pod.metadata ??= {});
      meta.annotations = { ...(meta.annotations ?? {}), [CONFIG_SOURCE]: source };
      const existing = old.get(uid);
      if (!existing) {
        meta.annotations[CONFIG_SEEN] = new Date((this.#opts.now ?? Date.now)()).toISOString();
        next.set(uid, pod);
        added.push(pod);
        continue;
      }
      meta.annotations[CONFIG_SEEN] = existing.metadata?.annotations?.[CONFIG_SEEN] ?? '';
      next.set(uid, pod);
      if (differSemantically(existing, pod)) {
        (pod.metadata?.deletionTimestamp ? deleted : updated).push(pod);
      } else if (JSON.stringify(existing.status ?? {}) !== JSON.stringify(pod.status ?? {})) {
        reconciled.push(pod);
      }
    }
    const removed = [...old.entries()].filter(([uid]) => !next.has(uid)).map(([, pod]) => pod);
    this.#pods.set(source, next);
    const emit = (op: PodOperation, list: Pod[]) => {
      if (list.length > 0) this.#opts.onUpdate({ op, source, pods: list });
    };
    emit('REMOVE', removed);
    emit('ADD', added);
    emit('UPDATE', updated);
    emit('DELETE', deleted);
    emit('RECONCILE', reconciled);
  }
}

/** kubelet's podsDifferSemantically: spec, labels, annotations, deletion timestamp and grace period */
function differSemantically(a: Pod, b: Pod): boolean {
  const pick = (p: Pod) =>
    JSON.stringify([
      p.spec ?? {},
      p.metadata?.labels ?? {},
      withoutSeen(p.metadata?.annotations ?? {}),
      p.metadata?.deletionTimestamp ?? null,
      p.metadata?.deletionGracePeriodSeconds ?? null,
    ]);
  return pick(a) !== pick(b);
}

function withoutSeen(annotations: Record<string, string>): Record<string, string> {
  const { [CONFIG_SEEN]: _seen, ...rest } = annotations;
  return Object.fromEntries(Object.entries(rest).sort(([x], [y]) => x.localeCompare(y)));
}
