import type BetterSqlite3 from 'better-sqlite3';
import {
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Compilable,
} from 'kysely';
import { bindSlots, slotsOf, type Slots } from '../revlog/param';
import { revlogQueries } from '../revlog/queries';
import type { RevlogDatabase } from '../revlog/schema';

type Params = Readonly<Record<string, unknown>>;

/** A kysely query compiled once and run as a better-sqlite3 prepared statement (synchronously). */
export class SqliteStatement<Row> {
  readonly #stmt: BetterSqlite3.Statement<unknown[], Row>;
  readonly #slots: Slots;

  constructor(db: BetterSqlite3.Database, query: Compilable<Row>) {
    const compiled = query.compile();
    this.#stmt = db.prepare<unknown[], Row>(compiled.sql);
    this.#slots = slotsOf(compiled.parameters);
  }

  get(params: Params = {}): Row | undefined {
    return this.#stmt.get(...bindSlots(this.#slots, params));
  }

  all(params: Params = {}): Row[] {
    return this.#stmt.all(...bindSlots(this.#slots, params));
  }

  run(params: Params = {}): BetterSqlite3.RunResult {
    return this.#stmt.run(...bindSlots(this.#slots, params));
  }
}

/** a Kysely that only builds and compiles SQLite SQL; it never connects */
const compiler = new Kysely<RevlogDatabase>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

type Prepared<Q> = { [K in keyof Q]: Q[K] extends Compilable<infer R> ? SqliteStatement<R> : never };

/** every revision-log statement, prepared on one connection */
export function prepareStatements(db: BetterSqlite3.Database) {
  const queries = {
    ...revlogQueries(compiler),
    /** the highest revision ever handed out (AUTOINCREMENT keeps it even when the row is gone) */
    lastRevision: compiler.selectFrom('sqlite_sequence').select('seq').where('name', '=', 'log'),
    ping: compiler.selectNoFrom((eb) => eb.lit(1).as('one')),
  };
  const prepared: Record<string, SqliteStatement<unknown>> = {};
  for (const [name, q] of Object.entries(queries)) prepared[name] = new SqliteStatement(db, q as Compilable<unknown>);
  return prepared as Prepared<typeof queries>;
}

export type SqliteStatements = ReturnType<typeof prepareStatements>;
