/**
 * What each write operation does to the revision log, written once for every dialect. An operation
 * is a generator that yields the queries it needs (by name, from revlogQueries) and receives their
 * results: SQLite's writer answers them synchronously inside its transaction, PostgreSQL's with
 * awaited round trips inside its own. The checks (Exists, NotFound, Conflict) throw before anything
 * is written, so an operation that fails them leaves the rest of its batch intact.
 */
import { META_COMPACT_CURSOR, META_COMPACT_REVISION } from './schema';
import type { CurrentRow } from './rows';
import type { CompactStep } from './write-op';
import { StorageError, type KeyValue, type Revision, type StoreEvent } from '../store';

/** what one transaction has done so far; its revision is the newest handed out */
export interface Batch {
  revision: Revision;
  /** events of the batch in revision order */
  events: StoreEvent[];
  /** set when a compaction batch raised the compact revision */
  compactRevision?: Revision;
}

export type QueryName =
  | 'currentByKey'
  | 'lastLogId'
  | 'insertLog'
  | 'insertCurrent'
  | 'updateCurrent'
  | 'deleteCurrent'
  | 'getMeta'
  | 'setMeta'
  | 'compactScan'
  | 'deleteLogRow';

/** one query for the driver: `get` answers the first row, `all` every row, `run` the rows changed */
export interface Step {
  query: QueryName;
  mode: 'get' | 'all' | 'run';
  params: Readonly<Record<string, unknown>>;
}

export type OpProgram<T> = Generator<Step, T, unknown>;

const get = (query: QueryName, params: Step['params']): Step => ({ query, mode: 'get', params });
const all = (query: QueryName, params: Step['params']): Step => ({ query, mode: 'all', params });
const run = (query: QueryName, params: Step['params']): Step => ({ query, mode: 'run', params });

export function* createOp(key: string, value: string, batch: Batch): OpProgram<KeyValue> {
  if (yield get('currentByKey', { key })) throw new StorageError('Exists', `key ${key} already exists`, { key });
  const revision = batch.revision + 1;
  // a re-created key links to its tombstone, so compaction can remove that tombstone's history
  const last = (yield get('lastLogId', { key })) as { id: number } | undefined;
  yield run('insertLog', { id: revision, key, value, createRevision: revision, prevRevision: last?.id ?? 0, op: 'create' });
  yield run('insertCurrent', { key, value, modRevision: revision, createRevision: revision });
  batch.revision = revision;
  batch.events.push({ type: 'ADDED', key, revision, value, createRevision: revision });
  return { key, value, modRevision: revision, createRevision: revision };
}

export function* updateOp(key: string, value: string, expected: Revision | undefined, batch: Batch): OpProgram<KeyValue> {
  const row = yield* existing(key, expected);
  const revision = batch.revision + 1;
  const createRevision = row.create_revision;
  yield run('insertLog', { id: revision, key, value, createRevision, prevRevision: row.mod_revision, op: 'update' });
  yield run('updateCurrent', { key, value, modRevision: revision });
  batch.revision = revision;
  batch.events.push({ type: 'MODIFIED', key, revision, value, prevValue: row.value, createRevision });
  return { key, value, modRevision: revision, createRevision };
}

export function* deleteOp(key: string, expected: Revision | undefined, batch: Batch): OpProgram<KeyValue> {
  const row = yield* existing(key, expected);
  const revision = batch.revision + 1;
  const createRevision = row.create_revision;
  // the tombstone keeps no value: the deleted value is the row at prev_revision
  yield run('insertLog', { id: revision, key, value: '', createRevision, prevRevision: row.mod_revision, op: 'delete' });
  yield run('deleteCurrent', { key });
  batch.revision = revision;
  batch.events.push({ type: 'DELETED', key, revision, value: row.value, prevValue: row.value, createRevision });
  return { key, value: row.value, modRevision: revision, createRevision };
}

function* existing(key: string, expected: Revision | undefined): OpProgram<CurrentRow> {
  const row = (yield get('currentByKey', { key })) as CurrentRow | undefined;
  if (!row) throw new StorageError('NotFound', `key ${key} not found`, { key });
  if (expected !== undefined && expected !== row.mod_revision) {
    throw new StorageError('Conflict', `key ${key} is at revision ${row.mod_revision}, not ${expected}`, { key, revision: row.mod_revision });
  }
  return row;
}

/**
 * One compaction batch. A log row at or below the compact revision is removed when a later row at
 * or below it superseded it (that row's prev_revision names it), and tombstones at or below it are
 * removed too. The cursor records how far the log has been processed, so an interrupted
 * compaction resumes where it stopped.
 */
export function* compactOp(revision: Revision, maxRows: number, batch: Batch): OpProgram<CompactStep> {
  const meta = function* (name: string): OpProgram<number> {
    return Number(((yield get('getMeta', { name })) as { value: number } | undefined)?.value ?? 0);
  };
  const compactRevision = yield* meta(META_COMPACT_REVISION);
  const target = Math.min(Math.max(compactRevision, revision), batch.revision);
  if (target > compactRevision) {
    yield run('setMeta', { name: META_COMPACT_REVISION, value: target });
    batch.compactRevision = target;
  }
  const cursor = yield* meta(META_COMPACT_CURSOR);
  if (cursor >= target) return { removed: 0, done: true };
  const upTo = Math.min(cursor + maxRows, target);
  const doomed = new Set<number>();
  const rows = (yield all('compactScan', { after: cursor, upTo })) as { id: number; prev_revision: number; op: string }[];
  for (const row of rows) {
    if (row.prev_revision > 0) doomed.add(row.prev_revision);
    if (row.op === 'delete') doomed.add(row.id);
  }
  let removed = 0;
  for (const id of doomed) removed += (yield run('deleteLogRow', { id })) as number;
  yield run('setMeta', { name: META_COMPACT_CURSOR, value: upTo });
  return { removed, done: upTo >= target };
}
