import type BetterSqlite3 from 'better-sqlite3';
import { compareKeys, prefixRange } from '../revlog/key-range';
import { META_COMPACT_CURSOR, META_COMPACT_REVISION } from '../revlog/schema';
import type { KeyValue, ListResult, Revision, StoreEvent } from '../store';
import { prepareStatements, type SqliteStatements } from './sqlite-statements';
import { eventOfRow, kvOfCurrent, mergeByKey } from '../revlog/rows';

/**
 * Reads on a connection of their own. Each read runs in one short read transaction, so the rows
 * and the revision it reports come from one snapshot. Revision bounds (Compacted, FutureRevision)
 * are checked by the caller.
 */
export class SqliteReader {
  readonly #s: SqliteStatements;
  readonly #db: BetterSqlite3.Database;

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
    this.#s = prepareStatements(db);
  }

  #snapshot<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  lastRevision(): Revision {
    return this.#s.lastRevision.get()?.seq ?? 0;
  }

  /** the recorded compact revision and how far compaction has processed the log */
  compaction(): { revision: Revision; cursor: Revision } {
    return this.#snapshot(() => ({
      revision: this.#s.getMeta.get({ name: META_COMPACT_REVISION })?.value ?? 0,
      cursor: this.#s.getMeta.get({ name: META_COMPACT_CURSOR })?.value ?? 0,
    }));
  }

  ping(): void {
    this.#s.ping.get();
  }

  get(key: string, revision?: Revision): KeyValue | undefined {
    if (revision === undefined) {
      const row = this.#s.currentByKey.get({ key });
      return row && kvOfCurrent(row);
    }
    // the key's newest log row at or below the revision; a tombstone means absent
    const row = this.#s.logAtRevision.get({ key, revision });
    if (!row || row.op === 'delete') return undefined;
    return { key: row.key, value: row.value, modRevision: row.id, createRevision: row.create_revision };
  }

  count(prefix: string): number {
    return this.#s.countCurrent.get(prefixRange(prefix))?.n ?? 0;
  }

  /**
   * a page of the newest state: a range scan of `current`, one row more than the page to learn
   * `more`; the keys after the page are counted unless countRemaining is false
   */
  listNewest(prefix: string, startKey: string | undefined, limit: number, countRemaining = true): ListResult {
    const range = prefixRange(prefix, startKey);
    return this.#snapshot(() => {
      const revision = this.lastRevision();
      const rows = this.#s.listCurrent.all({ ...range, limit: limit > 0 ? limit + 1 : -1 });
      if (limit <= 0 || rows.length <= limit) return { items: rows.map(kvOfCurrent), revision, more: false, remaining: 0 };
      const items = rows.slice(0, limit).map(kvOfCurrent);
      if (!countRemaining) return { items, revision, more: true };
      const total = this.#s.countCurrent.get(range)?.n ?? 0;
      return { items, revision, more: true, remaining: total - limit };
    });
  }

  /**
   * A page of the state at an older revision. Keys untouched since the revision read as they are in
   * `current`; the keys changed after it (found in the log rows newer than the revision) read as
   * their newest log row at or below it, which drops keys created later and brings back keys deleted
   * later. The two sorted sequences are merged.
   */
  listAt(prefix: string, revision: Revision, startKey: string | undefined, limit: number): ListResult {
    const range = prefixRange(prefix, startKey);
    return this.#snapshot(() => {
      const changed = [...new Set(this.#s.changedKeysSince.all({ after: revision, ...range }).map((r) => r.key))].sort(compareKeys);
      const past: KeyValue[] = [];
      for (const key of changed) {
        const kv = this.get(key, revision);
        if (kv) past.push(kv);
      }
      const skip = new Set(changed);
      // at most changed.length rows of the scan are skipped, so this many rows always fill the page
      const scanLimit = limit > 0 ? limit + 1 + changed.length : -1;
      const untouched = this.#s.listCurrent
        .all({ ...range, limit: scanLimit })
        .filter((r) => !skip.has(r.key))
        .map(kvOfCurrent);
      const items = mergeByKey(untouched, past, limit > 0 ? limit + 1 : Infinity);
      const more = limit > 0 && items.length > limit;
      return { items: more ? items.slice(0, limit) : items, revision, more };
    });
  }

  /** committed events of keys under prefix with revision in (after, upTo] */
  history(prefix: string, after: Revision, upTo: Revision): StoreEvent[] {
    const rows = this.#s.history.all({ after, upTo, ...prefixRange(prefix) });
    return rows.map(eventOfRow);
  }
}
