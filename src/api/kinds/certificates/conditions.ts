/**
 * What kube's CSR status and approval strategies do to conditions before validation:
 * populateConditionTimestamps (lastUpdateTime now when unset; lastTransitionTime kept from an old
 * condition of the same type and status, else now) and, for /status writes,
 * preserveConditionInstances (Approved and Denied conditions stay exactly as stored).
 */
import type { KubeObject } from '../../kind';
import { arrAt, isObj, objAt, str } from '../util';

const nowString = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export function populateConditionTimestamps(obj: KubeObject, old: KubeObject): void {
  const now = nowString();
  const oldConditions = arrAt(objAt(old, 'status'), 'conditions').filter(isObj);
  for (const c of arrAt(objAt(obj, 'status'), 'conditions')) {
    if (!isObj(c)) continue;
    if (!str(c.lastUpdateTime)) c.lastUpdateTime = now;
    if (!str(c.lastTransitionTime)) {
      const same = oldConditions.find((o) => o.type === c.type && o.status === c.status && str(o.lastTransitionTime));
      c.lastTransitionTime = same ? same.lastTransitionTime : now;
    }
  }
}

/** put the stored instances of `type` back in place, when the write has as many of them */
export function preserveConditionInstances(obj: KubeObject, old: KubeObject, type: string): void {
  const conditions = arrAt(objAt(obj, 'status'), 'conditions');
  const oldConditions = arrAt(objAt(old, 'status'), 'conditions');
  const indices = (list: unknown[]) => list.flatMap((c, i) => (isObj(c) && c.type === type ? [i] : []));
  const newAt = indices(conditions);
  const oldAt = indices(oldConditions);
  if (newAt.length !== oldAt.length) return;
  newAt.forEach((n, i) => {
    conditions[n] = structuredClone(oldConditions[oldAt[i]]);
  });
}
