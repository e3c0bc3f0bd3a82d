import { sql, type Kysely } from 'kysely';
import { param } from './param';
import type { RevlogDatabase } from './schema';

/**
 * The revision log's queries, written once with kysely and compiled by each dialect. Parameters are
 * named with `param()`; every dialect binds them the same way.
 */
export function revlogQueries(db: Kysely<RevlogDatabase>) {
  const from = param<string>('from');
  const to = param<string>('to');
  return {
    currentByKey: db.selectFrom('current').selectAll().where('key', '=', param<string>('key')),
    /** the newest log row of a key (a tombstone before a re-create included) */
    lastLogId: db
      .selectFrom('log')
      .select('id')
      .where('key', '=', param<string>('key'))
      .orderBy('id', 'desc')
      .limit(1),
    /** the key's newest log row at or below a revision: its state at that revision */
    logAtRevision: db
      .selectFrom('log')
      .select(['id', 'key', 'value', 'create_revision', 'op'])
      .where('key', '=', param<string>('key'))
      .where('id', '<=', param<number>('revision'))
      .orderBy('id', 'desc')
      .limit(1),
    insertLog: db.insertInto('log').values({
      id: param<number>('id'),
      key: param<string>('key'),
      value: param<string>('value'),
      create_revision: param<number>('createRevision'),
      prev_revision: param<number>('prevRevision'),
      op: param<'create' | 'update' | 'delete'>('op'),
    }),
    insertCurrent: db.insertInto('current').values({
      key: param<string>('key'),
      value: param<string>('value'),
      mod_revision: param<number>('modRevision'),
      create_revision: param<number>('createRevision'),
    }),
    updateCurrent: db
      .updateTable('current')
      .set({ value: param<string>('value'), mod_revision: param<number>('modRevision') })
      .where('key', '=', param<string>('key')),
    deleteCurrent: db.deleteFrom('current').where('key', '=', param<string>('key')),

    /** a page of the newest state; limit -1 means no limit */
    listCurrent: db
      .selectFrom('current')
      .selectAll()
      .where('key', '>=', from)
      .where('key', '<', to)
      .orderBy('key')
      .limit(param<number>('limit')),
    countCurrent: db
      .selectFrom('current')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key', '>=', from)
      .where('key', '<', to),
    /**
     * keys of the range changed after a revision (repeats included; the caller dedups and sorts):
     * their state at that revision comes from the log. The key bounds are expressions (`key || ''`)
     * and there is no ORDER BY, so the planner walks the primary key from the revision on (the
     * changes since it: few for a continue token) rather than every log row of the range.
     */
    changedKeysSince: db
      .selectFrom('log')
      .select('key')
      .where('id', '>', param<number>('after'))
      .where(sql<string>`${sql.ref('key')} || ''`, '>=', from)
      .where(sql<string>`${sql.ref('key')} || ''`, '<', to),
    /** committed events of a key range in (after, upTo], with the superseded row's value */
    history: db
      .selectFrom('log as l')
      .leftJoin('log as p', 'p.id', 'l.prev_revision')
      .select(['l.id', 'l.key', 'l.value', 'l.op', 'l.create_revision', 'p.value as prev_value'])
      .where('l.id', '>', param<number>('after'))
      .where('l.id', '<=', param<number>('upTo'))
      .where('l.key', '>=', from)
      .where('l.key', '<', to)
      .orderBy('l.id'),

    getMeta: db.selectFrom('meta').select('value').where('name', '=', param<string>('name')),
    setMeta: db.updateTable('meta').set({ value: param<number>('value') }).where('name', '=', param<string>('name')),
    /** the log rows compaction inspects in one batch */
    compactScan: db
      .selectFrom('log')
      .select(['id', 'prev_revision', 'op'])
      .where('id', '>', param<number>('after'))
      .where('id', '<=', param<number>('upTo'))
      .orderBy('id'),
    deleteLogRow: db.deleteFrom('log').where('id', '=', param<number>('id')),
  };
}

export type RevlogQueries = ReturnType<typeof revlogQueries>;
