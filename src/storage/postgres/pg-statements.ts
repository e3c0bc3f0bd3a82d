import type pg from 'pg';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type Compilable,
} from 'kysely';
import { bindSlots, param, slotsOf, type Slots } from '../revlog/param';
import { revlogQueries } from '../revlog/queries';
import { META_COMPACT_CURSOR, META_COMPACT_REVISION, META_REVISION, type RevlogDatabase } from '../revlog/schema';

type Params = Readonly<Record<string, unknown>>;

/** a connection or the pool: anything that runs a query */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * A kysely query compiled once to PostgreSQL SQL and run as a named prepared statement: each
 * connection parses and plans it the first time it runs there and reuses the plan afterwards.
 */
export class PgStatement<Row> {
  readonly name: string;
  readonly text: string;
  readonly #slots: Slots;

  constructor(name: string, query: Compilable<Row>) {
    const compiled = query.compile();
    this.name = `ballast_${name}`;
    this.text = compiled.sql;
    this.#slots = slotsOf(compiled.parameters);
  }

  async all(db: Queryable, params: Params = {}): Promise<Row[]> {
    const res = await db.query<Row & pg.QueryResultRow>({ name: this.name, text: this.text, values: bindSlots(this.#slots, params) });
    return res.rows;
  }

  async get(db: Queryable, params: Params = {}): Promise<Row | undefined> {
    return (await this.all(db, params))[0];
  }

  /** rows changed */
  async run(db: Queryable, params: Params = {}): Promise<number> {
    const res = await db.query({ name: this.name, text: this.text, values: bindSlots(this.#slots, params) });
    return res.rowCount ?? 0;
  }
}

/** a Kysely that only builds and compiles PostgreSQL SQL; it never connects */
const compiler = new Kysely<RevlogDatabase>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

type Compiled<Q> = { [K in keyof Q]: Q[K] extends Compilable<infer R> ? PgStatement<R> : never };

function compileAll<Q extends Record<string, Compilable<unknown>>>(queries: Q): Compiled<Q> {
  const out: Record<string, PgStatement<unknown>> = {};
  for (const [name, q] of Object.entries(queries)) out[name] = new PgStatement(name, q);
  return out as Compiled<Q>;
}

/** every revision-log statement in PostgreSQL's SQL (the same queries as SQLite's, and a few of its own) */
export const pgStatements = compileAll({
  ...revlogQueries(compiler),
  /** the newest revision, the compact revision and the compaction cursor, from one snapshot */
  state: compiler
    .selectFrom('meta')
    .select(['name', 'value'])
    .where('name', 'in', [META_REVISION, META_COMPACT_REVISION, META_COMPACT_CURSOR]),
  tryCompactLock: compiler.selectNoFrom((eb) => eb.fn<boolean>('pg_try_advisory_lock', [param<number>('lock')]).as('locked')),
  compactUnlock: compiler.selectNoFrom((eb) => eb.fn<boolean>('pg_advisory_unlock', [param<number>('lock')]).as('unlocked')),
  ping: compiler.selectNoFrom((eb) => eb.lit(1).as('one')),
});

export type PgStatements = typeof pgStatements;

/** the meta rows of the state statement, by name */
export function stateOf(rows: readonly { name: string; value: number }[]): { revision: number; compactRevision: number; cursor: number } {
  const get = (name: string) => Number(rows.find((r) => r.name === name)?.value ?? 0);
  return { revision: get(META_REVISION), compactRevision: get(META_COMPACT_REVISION), cursor: get(META_COMPACT_CURSOR) };
}
