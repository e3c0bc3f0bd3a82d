/**
 * The status PATCH kubelet sends (nodeutil.PatchNodeStatus): a two-way strategic merge patch from
 * the node as read to the node as the setters left it, spec excluded, with conditions merged by
 * type (and their order in `$setElementOrder/conditions`), maps merged key by key, other lists
 * replaced, and addresses sent whole with a `$patch: replace` marker, because their declared
 * merge key (type) cannot tell two addresses of one type apart.
 */
import { isDeepStrictEqual } from 'node:util';
import type { NodeObject, NodeStatus } from './setters';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonMap = { [key: string]: Json };

/** lists merged by a key, by field path */
const MERGE_KEYS: Readonly<Record<string, string>> = Object.freeze({ 'status.conditions': 'type' });

function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function diffMergeList(oldList: Json[], newList: Json[], key: string, path: string): Json[] | undefined {
  const keyOf = (e: Json) => (isMap(e) ? e[key] : undefined);
  const out: Json[] = [];
  for (const item of newList) {
    const before = oldList.find((o) => keyOf(o) === keyOf(item));
    if (before === undefined) out.push(item);
    else if (isMap(before) && isMap(item)) {
      const d = diffMap(before, item, path);
      if (d) out.push({ [key]: keyOf(item) ?? null, ...d });
    } else if (!isDeepStrictEqual(before, item)) out.push(item);
  }
  for (const item of oldList) {
    if (!newList.some((n) => keyOf(n) === keyOf(item))) out.push({ [key]: keyOf(item) ?? null, $patch: 'delete' });
  }
  return out.length ? out : undefined;
}

/** the patch that turns `before` into `after` (undefined: no change) */
function diffMap(before: JsonMap, after: JsonMap, path: string): JsonMap | undefined {
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(after)) {
    const old = before[k];
    const sub = path ? `${path}.${k}` : k;
    if (isDeepStrictEqual(old, v)) continue;
    if (isMap(old) && isMap(v)) {
      const d = diffMap(old, v, sub);
      if (d) out[k] = d;
    } else if (Array.isArray(old) && Array.isArray(v) && MERGE_KEYS[sub]) {
      const d = diffMergeList(old, v, MERGE_KEYS[sub], sub);
      if (d) {
        out[`$setElementOrder/${k}`] = v.map((e) => ({ [MERGE_KEYS[sub]]: isMap(e) ? e[MERGE_KEYS[sub]] : null }));
        out[k] = d;
      }
    } else {
      out[k] = v;
    }
  }
  for (const k of Object.keys(before)) if (!(k in after)) out[k] = null;
  return Object.keys(out).length ? out : undefined;
}

/** the strategic merge patch of nodes/<name>/status from `original` to `updated` (spec kept as it was); undefined when nothing changed */
export function nodeStatusPatch(original: NodeObject, updated: NodeObject): JsonMap | undefined {
  const oldAddresses = original.status?.addresses ?? [];
  const newAddresses = updated.status?.addresses ?? [];
  const replaceAddresses = oldAddresses.length > 0 && !isDeepStrictEqual(oldAddresses, newAddresses);
  const diffNode = structuredClone(updated) as unknown as JsonMap;
  diffNode.spec = (structuredClone(original.spec) ?? null) as Json;
  if (original.spec === undefined) delete diffNode.spec;
  if (replaceAddresses) (diffNode.status as JsonMap).addresses = oldAddresses as unknown as Json;
  const patch = diffMap(original as unknown as JsonMap, diffNode, '') ?? {};
  if (replaceAddresses) {
    const status = (patch.status ??= {}) as JsonMap;
    status.addresses = [...(newAddresses as unknown as Json[]), { $patch: 'replace' }];
  }
  return Object.keys(patch).length ? patch : undefined;
}

function withoutHeartbeats(status: NodeStatus | undefined): unknown {
  const copy = structuredClone(status ?? {});
  copy.conditions = (copy.conditions ?? []).map(({ lastHeartbeatTime: _, ...rest }) => rest).sort((a, b) => a.type.localeCompare(b.type));
  return copy;
}

/** whether the status changed beyond the conditions' heartbeat times (kubelet's nodeStatusHasChanged) */
export function nodeStatusHasChanged(before: NodeStatus | undefined, after: NodeStatus | undefined): boolean {
  return !isDeepStrictEqual(withoutHeartbeats(before), withoutHeartbeats(after));
}
