import type { KeyValue, StoreEvent } from '../store';
import { compareKeys } from './key-range';
import type { LogOp } from './schema';

/** a row of `current` as every dialect reads it */
export interface CurrentRow {
  key: string;
  value: string;
  mod_revision: number;
  create_revision: number;
}

export const kvOfCurrent = (r: CurrentRow): KeyValue => ({
  key: r.key,
  value: r.value,
  modRevision: r.mod_revision,
  createRevision: r.create_revision,
});

/** a row of the history query: a log row and the value of the row it superseded */
export interface HistoryRow {
  id: number;
  key: string;
  value: string;
  op: LogOp;
  create_revision: number;
  prev_value: string | null;
}

/** the watch event a log row records (a tombstone's value is the superseded row's) */
export function eventOfRow(r: HistoryRow): StoreEvent {
  const base = { key: r.key, revision: r.id, createRevision: r.create_revision };
  const prev = r.prev_value ?? '';
  if (r.op === 'create') return { ...base, type: 'ADDED', value: r.value };
  if (r.op === 'update') return { ...base, type: 'MODIFIED', value: r.value, prevValue: prev };
  return { ...base, type: 'DELETED', value: prev, prevValue: prev };
}

/** merge two key-sorted lists, keeping at most max items */
export function mergeByKey(a: KeyValue[], b: KeyValue[], max: number): KeyValue[] {
  const out: KeyValue[] = [];
  let i = 0;
  let j = 0;
  while (out.length < max && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && compareKeys(a[i].key, b[j].key) < 0)) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}
