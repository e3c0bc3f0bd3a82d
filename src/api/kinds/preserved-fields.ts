/**
 * Fields an older served version has no place for, kept in an annotation while the object is read
 * and written in that version, so a read-modify-write through it loses nothing (kube never served
 * these versions beside the fields, so it has no annotation of its own for them: batch/v2alpha1
 * CronJob and spec.timeZone, flowcontrol v1alpha1 and the borrowing settings).
 *
 * The annotation holds a JSON object from dotted paths (`spec.timeZone`) to values. `stash` moves
 * the fields from the stored form into it; `restore` puts them back where the written object does
 * not set them, and removes the annotation.
 */
import type { KubeObject } from '../kind';
import { isObj } from './util';
import type { Obj } from './util';

export const PRESERVED_FIELDS_ANNOTATION = 'ballast.io/preserved-fields';

function parent(obj: Obj, keys: string[], create: boolean): Obj | undefined {
  let cur: Obj = obj;
  for (const k of keys) {
    const next = cur[k];
    if (isObj(next)) cur = next;
    else if (create) cur = cur[k] = {};
    else return undefined;
  }
  return cur;
}

/** move the fields at `paths` (when set) into the annotation; mutates obj */
export function stashFields(obj: KubeObject, paths: readonly string[]): void {
  const kept: Obj = {};
  for (const path of paths) {
    const keys = path.split('.');
    const last = keys.pop() as string;
    const holder = parent(obj, keys, false);
    if (!holder || holder[last] === undefined || holder[last] === null) continue;
    kept[path] = holder[last];
    delete holder[last];
  }
  if (Object.keys(kept).length === 0) return;
  const meta = (obj.metadata ??= {});
  meta.annotations = { ...(isObj(meta.annotations) ? meta.annotations : {}), [PRESERVED_FIELDS_ANNOTATION]: JSON.stringify(kept) };
}

/** put the annotation's fields back where obj leaves them unset, and drop the annotation; mutates obj */
export function restoreFields(obj: KubeObject, paths: readonly string[]): void {
  const meta = obj.metadata;
  if (!meta || !isObj(meta.annotations)) return;
  const text = meta.annotations[PRESERVED_FIELDS_ANNOTATION];
  delete meta.annotations[PRESERVED_FIELDS_ANNOTATION];
  if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
  if (typeof text !== 'string') return;
  let kept: unknown;
  try {
    kept = JSON.parse(text);
  } catch {
    return;
  }
  if (!isObj(kept)) return;
  // only the fields this version is known to lack: the annotation cannot write anything else
  for (const path of paths) {
    if (!(path in kept)) continue;
    const keys = path.split('.');
    const last = keys.pop() as string;
    const holder = parent(obj, keys, true) as Obj;
    if (holder[last] === undefined || holder[last] === null) holder[last] = kept[path];
  }
}
