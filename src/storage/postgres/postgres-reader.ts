import type pg from 'pg';
import { compareKeys, prefixRange, type KeyRange } from '../revlog/key-range';
import { StorageError, type KeyValue, type ListResult, type Revision, type StoreEvent } from '../store';
import { pgStatements as s, stateOf, type Queryable } from './pg-statements';
import { eventOfRow, kvOfCurrent, mergeByKey } from '../revlog/rows';

export interface LogState {
  /** the newest committed revision */
  revision: Revision;
  compactRevision: Revision;
  /** how far compaction has processed the log */
  cursor: Revision;
}

/**
 * PostgreSQL text holds no NUL character, and keys never contain one; a continue token's start key
 * does (the page's last key + U+0000, "just after it"): among keys without NUL, U+0001 starts at the
 * same place.
 */
function pgRange(range: KeyRange): KeyRange {
  return range.from.includes('\u0000') ? { ...range, from: range.from.replace(/\u0000/g, '\u0001') } : range;
}

/**
 * Reads from the pool. A read that needs several statements runs them in one REPEATABLE READ
 * transaction, so its rows and the revision it reports come from one snapshot; reads at a revision
 * check it against the compaction and the newest revision of that same snapshot.
 */
export class PostgresReader {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async #snapshot<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw err;
    } finally {
      c.release(broken);
    }
  }

  async state(db: Queryable = this.#pool): Promise<LogState> {
    return stateOf(await s.state.all(db));
  }

  async ping(): Promise<void> {
    await s.ping.get(this.#pool);
  }

  async get(key: string, revision?: Revision): Promise<KeyValue | undefined> {
    if (key.includes('\u0000')) return undefined;
    if (revision === undefined) {
      const row = await s.currentByKey.get(this.#pool, { key });
      return row && kvOfCurrent(row);
    }
    return this.#snapshot(async (c) => {
      checkRevision(revision, await this.state(c));
      return this.#getAt(c, key, revision);
    });
  }

  async #getAt(db: Queryable, key: string, revision: Revision): Promise<KeyValue | undefined> {
    const row = await s.logAtRevision.get(db, { key, revision });
    if (!row || row.op === 'delete') return undefined;
    return { key: row.key, value: row.value, modRevision: row.id, createRevision: row.create_revision };
  }

  async count(prefix: string): Promise<number> {
    return (await s.countCurrent.get(this.#pool, pgRange(prefixRange(prefix))))?.n ?? 0;
  }

  /** a page of the newest state, with the revision of the snapshot it was read in */
  async listNewest(prefix: string, startKey: string | undefined, limit: number, countRemaining = true): Promise<ListResult> {
    const range = pgRange(prefixRange(prefix, startKey));
    return this.#snapshot(async (c) => {
      const { revision } = await this.state(c);
      const rows = await s.listCurrent.all(c, { ...range, limit: limit > 0 ? limit + 1 : null });
      if (limit <= 0 || rows.length <= limit) return { items: rows.map(kvOfCurrent), revision, more: false, remaining: 0 };
      const items = rows.slice(0, limit).map(kvOfCurrent);
      if (!countRemaining) return { items, revision, more: true };
      const total = (await s.countCurrent.get(c, range))?.n ?? 0;
      return { items, revision, more: true, remaining: total - limit };
    });
  }

  /** a page of the state at an older revision (see SqliteReader.listAt: the same merge) */
  async listAt(prefix: string, revision: Revision, startKey: string | undefined, limit: number): Promise<ListResult> {
    const range = pgRange(prefixRange(prefix, startKey));
    return this.#snapshot(async (c) => {
      checkRevision(revision, await this.state(c));
      const changedRows = await s.changedKeysSince.all(c, { after: revision, ...range });
      const changed = [...new Set(changedRows.map((r) => r.key))].sort(compareKeys);
      const past: KeyValue[] = [];
      for (const key of changed) {
        const kv = await this.#getAt(c, key, revision);
        if (kv) past.push(kv);
      }
      const skip = new Set(changed);
      const scanLimit = limit > 0 ? limit + 1 + changed.length : null;
      const untouched = (await s.listCurrent.all(c, { ...range, limit: scanLimit })).filter((r) => !skip.has(r.key)).map(kvOfCurrent);
      const items = mergeByKey(untouched, past, limit > 0 ? limit + 1 : Infinity);
      const more = limit > 0 && items.length > limit;
      return { items: more ? items.slice(0, limit) : items, revision, more };
    });
  }

  /**
   * committed events of keys under prefix with revision in (after, upTo]; Compacted when the
   * compaction has passed `after` (rows of the range may be gone)
   */
  async history(prefix: string, after: Revision, upTo: Revision): Promise<StoreEvent[]> {
    return this.#snapshot(async (c) => {
      const state = await this.state(c);
      if (after < state.compactRevision) throw compacted(after, state.compactRevision);
      return this.#events(c, prefix, after, upTo);
    });
  }

  /** every event in (after, upTo], without a snapshot of its own (the log tailer's read) */
  async events(after: Revision, upTo: Revision): Promise<StoreEvent[]> {
    return this.#events(this.#pool, '', after, upTo);
  }

  async #events(db: Queryable, prefix: string, after: Revision, upTo: Revision): Promise<StoreEvent[]> {
    const rows = await s.history.all(db, { after, upTo, ...prefixRange(prefix) });
    return rows.map(eventOfRow);
  }
}

export function compacted(revision: Revision, compactRevision: Revision): StorageError {
  return new StorageError('Compacted', `revision ${revision} has been compacted (compacted up to ${compactRevision})`, { revision: compactRevision });
}

/** Compacted or FutureRevision for a read at revision, against the database's own state */
export function checkRevision(revision: Revision, state: LogState): void {
  if (revision < state.compactRevision) throw compacted(revision, state.compactRevision);
  if (revision > state.revision) {
    throw new StorageError('FutureRevision', `revision ${revision} is newer than the newest revision ${state.revision}`, { revision: state.revision });
  }
}
