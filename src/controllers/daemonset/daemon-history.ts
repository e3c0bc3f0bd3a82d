/**
 * A DaemonSet's ControllerRevisions (kube's constructHistory and cleanupHistory): the revision
 * whose snapshot equals the template is current and must carry the highest number; duplicates of
 * it are merged into one; old revisions beyond revisionHistoryLimit that no pod uses are deleted.
 */
import { isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject } from '../../client/types';
import {
  createRevision,
  equalRevision,
  newRevision,
  renumberRevision,
  revisionName,
  sortRevisions,
  templatePatch,
  type ControllerRevision,
} from '../history/controller-history';
import { REVISION_LABEL, daemonSpec } from './daemon-plan';

export interface DaemonHistory {
  current: ControllerRevision;
  old: ControllerRevision[];
  /** the hash pods of the current revision carry */
  hash: string;
  /** set when creating the revision met a collision */
  collisionCount?: number;
}

export async function constructHistory(client: RestClient, ds: KubeObject, owned: readonly ControllerRevision[], pods: readonly KubeObject[]): Promise<DaemonHistory> {
  const templateLabels = ((ds.spec ?? {}) as { template?: KubeObject }).template?.metadata?.labels;
  const collisionCount = (ds.status as { collisionCount?: number } | undefined)?.collisionCount ?? 0;
  const wanted = newRevision(ds, templateLabels, templatePatch(ds), 0, collisionCount);
  const matching: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (const rev of owned) (equalRevision(rev, wanted) ? matching : old).push(rev);
  const next = Math.max(0, ...old.map((r) => r.revision ?? 0)) + 1;
  let current: ControllerRevision;
  let newCount: number | undefined;
  if (matching.length === 0) {
    const created = await createRevision(client, { ...wanted, revision: next }, collisionCount, (hash) => revisionName(ds.metadata?.name ?? '', hash), [REVISION_LABEL]);
    current = created.revision;
    if (created.collisionCount !== collisionCount) newCount = created.collisionCount;
  } else {
    current = await dedupCurrent(client, matching, pods);
    // a rollback to an older template makes that revision the newest
    if ((current.revision ?? 0) < next) current = await renumberRevision(client, current, next);
  }
  const hash = current.metadata?.labels?.[REVISION_LABEL] ?? current.metadata?.name ?? '';
  return { current, old, hash, collisionCount: newCount };
}

/** dedupCurHistories: keep the highest-numbered copy; pods of the others take its hash */
async function dedupCurrent(client: RestClient, matching: readonly ControllerRevision[], pods: readonly KubeObject[]): Promise<ControllerRevision> {
  const sorted = sortRevisions(matching);
  const keep = sorted[sorted.length - 1]!;
  if (sorted.length === 1) return keep;
  const keepHash = keep.metadata?.labels?.[REVISION_LABEL] ?? '';
  for (const dup of sorted.slice(0, -1)) {
    const dupHash = dup.metadata?.labels?.[REVISION_LABEL];
    for (const pod of pods) {
      if (!dupHash || pod.metadata?.labels?.[REVISION_LABEL] !== dupHash) continue;
      await client.patch(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', 'merge', { metadata: { labels: { [REVISION_LABEL]: keepHash } } }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    await client.delete(RESOURCES.controllerRevisions, dup.metadata?.namespace, dup.metadata?.name ?? '').catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  return keep;
}

/** cleanupHistory: delete the oldest unused old revisions past revisionHistoryLimit */
export async function cleanupHistory(client: RestClient, ds: KubeObject, old: readonly ControllerRevision[], pods: readonly KubeObject[]): Promise<void> {
  let toKill = old.length - (daemonSpec(ds).revisionHistoryLimit ?? 10);
  if (toKill <= 0) return;
  const live = new Set(pods.map((p) => p.metadata?.labels?.[REVISION_LABEL]).filter((h): h is string => !!h));
  for (const rev of sortRevisions(old)) {
    if (toKill <= 0) break;
    if (live.has(rev.metadata?.labels?.[REVISION_LABEL] ?? '')) continue;
    try {
      await client.delete(RESOURCES.controllerRevisions, rev.metadata?.namespace, rev.metadata?.name ?? '');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    toKill -= 1;
  }
}
