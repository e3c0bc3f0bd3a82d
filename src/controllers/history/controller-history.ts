/**
 * ControllerRevisions, as kube's pkg/controller/history keeps them for StatefulSets and
 * DaemonSets: a revision is a snapshot of the owner's pod template (a strategic-merge patch that
 * replaces `spec.template`, which is also what `kubectl rollout undo` applies), named
 * `<owner>-<hash>`, numbered in order of use. A name taken by a different snapshot is a hash
 * collision: the owner's status.collisionCount goes up and the name is hashed again.
 */
import { isAlreadyExists } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject } from '../../client/types';
import { newControllerRef } from '../util/controller-ref';
import { canonicalJson, computeHash } from '../util/hash';

/** the label holding a revision's hash (history.ControllerRevisionHashLabel) */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

export interface ControllerRevision extends KubeObject {
  data?: unknown;
  revision?: number;
}

/** the snapshot both controllers store: `{"spec":{"template":{...,"$patch":"replace"}}}` (their getPatch) */
export function templatePatch(owner: KubeObject): Record<string, unknown> {
  const template = structuredClone(((owner.spec ?? {}) as { template?: Record<string, unknown> }).template ?? {});
  return { spec: { template: { ...template, $patch: 'replace' } } };
}

/** the template a snapshot restores */
export function templateOfRevision(rev: ControllerRevision): Record<string, unknown> | undefined {
  const template = ((rev.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec?.template);
  if (!template) return undefined;
  const { $patch: _, ...rest } = template;
  return rest;
}

/** history.ControllerRevisionName: the prefix cut to 223 characters, then `-<hash>` */
export function revisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/** history.HashControllerRevision: the data's hash, salted with the collision count */
export function hashRevision(data: unknown, collisionCount?: number): string {
  return computeHash(data, collisionCount);
}

/** history.NewControllerRevision: labels of the template plus the hash, owned by `owner` */
export function newRevision(owner: KubeObject, templateLabels: Record<string, string> | undefined, data: unknown, revision: number, collisionCount?: number): ControllerRevision {
  const hash = hashRevision(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(owner.metadata?.name ?? '', hash),
      namespace: owner.metadata?.namespace,
      labels: { ...(templateLabels ?? {}), [REVISION_HASH_LABEL]: hash },
      ownerReferences: [newControllerRef(owner)],
    },
    data,
    revision,
  };
}

/**
 * history.EqualRevision: the same data. (kube also compares numeric hash labels, but its labels
 * are encoded strings that never parse as numbers, so the data decides; ours too.)
 */
export function equalRevision(a: ControllerRevision, b: ControllerRevision): boolean {
  return canonicalJson(a.data ?? null) === canonicalJson(b.data ?? null);
}

export function findEqualRevisions(revisions: readonly ControllerRevision[], needle: ControllerRevision): ControllerRevision[] {
  return revisions.filter((r) => equalRevision(r, needle));
}

/** history.SortControllerRevisions: by revision, then creation time, then name */
export function sortRevisions<T extends ControllerRevision>(revisions: readonly T[]): T[] {
  return [...revisions].sort((a, b) => {
    const d = (a.revision ?? 0) - (b.revision ?? 0);
    if (d !== 0) return d;
    const ta = a.metadata?.creationTimestamp ?? '';
    const tb = b.metadata?.creationTimestamp ?? '';
    if (ta !== tb) return ta < tb ? -1 : 1;
    const na = a.metadata?.name ?? '';
    const nb = b.metadata?.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
}

/** the number after the newest revision (1 with none) */
export function nextRevision(sorted: readonly ControllerRevision[]): number {
  return sorted.length === 0 ? 1 : (sorted[sorted.length - 1]!.revision ?? 0) + 1;
}

/**
 * history.CreateControllerRevision: create `rev` under the name its hash and `collisionCount`
 * give; when that name exists with the same data it is the answer, with other data the count
 * goes up and the name is hashed again. Returns the revision and the count used.
 */
export async function createRevision(
  client: RestClient,
  rev: ControllerRevision,
  collisionCount: number,
  nameOf: (hash: string) => string,
  /** more labels that carry the hash (the DaemonSet's controller-revision-hash) */
  hashLabels: readonly string[] = [],
): Promise<{ revision: ControllerRevision; collisionCount: number }> {
  for (let count = collisionCount; ; count++) {
    const hash = hashRevision(rev.data, count);
    const labels: Record<string, string> = { ...(rev.metadata?.labels ?? {}), [REVISION_HASH_LABEL]: hash };
    for (const l of hashLabels) labels[l] = hash;
    const candidate: ControllerRevision = { ...rev, metadata: { ...rev.metadata, name: nameOf(hash), labels } };
    try {
      const created = (await client.create(RESOURCES.controllerRevisions, rev.metadata?.namespace, candidate)) as ControllerRevision;
      return { revision: created, collisionCount: count };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const existing = (await client.get(RESOURCES.controllerRevisions, rev.metadata?.namespace, candidate.metadata!.name!)) as ControllerRevision;
      if (equalRevision(existing, candidate)) return { revision: existing, collisionCount: count };
      // a collision: someone else's data under our name
    }
  }
}

/** give an existing revision a new number (history.UpdateControllerRevision) */
export async function renumberRevision(client: RestClient, rev: ControllerRevision, revision: number): Promise<ControllerRevision> {
  if (rev.revision === revision) return rev;
  return (await client.patch(RESOURCES.controllerRevisions, rev.metadata?.namespace, rev.metadata?.name ?? '', 'merge', { revision })) as ControllerRevision;
}

/**
 * The revisions to delete to keep `limit` of those not in use (truncateHistory /
 * cleanupHistory): revisions named in `live` always stay; the oldest others go first.
 */
export function revisionsToTruncate(revisions: readonly ControllerRevision[], live: ReadonlySet<string>, limit: number): ControllerRevision[] {
  const unused = sortRevisions(revisions).filter((r) => !live.has(r.metadata?.name ?? ''));
  const excess = unused.length - Math.max(0, limit);
  return excess > 0 ? unused.slice(0, excess) : [];
}
