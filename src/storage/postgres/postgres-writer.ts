import type pg from 'pg';
import { compactOp, createOp, deleteOp, updateOp, type Batch, type OpProgram } from '../revlog/apply-op';
import { META_COMPACT_REVISION, META_REVISION } from '../revlog/schema';
import type { WriteOp, WriteResult } from '../revlog/write-op';
import type { Outcome } from '../revlog/writer-queue';
import { isStorageError, StorageError } from '../store';
import { pgStatements as s, type PgStatement } from './pg-statements';

/**
 * the newest revision handed out, its row locked until the transaction ends: writers of every
 * server queue here, so revisions are assigned and committed one transaction at a time
 */
const LOCK_REVISION = `SELECT value FROM meta WHERE name = '${META_REVISION}' FOR UPDATE`;

/**
 * Applies a batch of write operations in one transaction on a pooled connection.
 *
 * Revisions: the transaction first locks meta's `revision` row (SELECT ... FOR UPDATE), hands out
 * the revisions after it one by one, writes the newest back and commits; the row lock is released
 * only at commit (or rollback). So while one server's transaction holds revisions N+1..M, every
 * other writer, on any server, waits at that lock; the next one reads M only after the commit made
 * N+1..M visible. Commit order is revision order, a rolled-back transaction hands out nothing (no
 * gap), and a reader that sees revision M sees every revision below it. The writer queue in front
 * gives each server one transaction in flight, which carries every write submitted meanwhile
 * (group commit): the lock is taken once per batch, not once per write.
 */
export class PostgresWriter {
  readonly #pool: pg.Pool;
  readonly #channel: string;
  /** names this store in its notifications, so its own listener can skip them */
  readonly #sender: string;

  constructor(pool: pg.Pool, channel: string, sender: string) {
    this.#pool = pool;
    this.#channel = channel;
    this.#sender = sender;
  }

  /** run and commit the batch; rejects (after rollback) when the transaction as a whole failed */
  async execute(ops: readonly WriteOp[]): Promise<{ outcomes: Outcome<WriteResult>[]; effects: Batch }> {
    const c = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      // BEGIN with the lock, and the counter with the notification and COMMIT, each sent as one
      // simple query: a round trip apiece instead of two and three (the lock is held for fewer)
      const opened = (await c.query(`BEGIN; ${LOCK_REVISION}`)) as unknown as pg.QueryResult<{ value: number }>[];
      const batch: Batch = { revision: Number(opened[1]?.rows[0]?.value ?? 0), events: [] };
      const first = batch.revision;
      const outcomes: Outcome<WriteResult>[] = [];
      for (const op of ops) outcomes.push(await this.#applyOne(c, op, batch));
      if (batch.revision === first) await c.query('COMMIT');
      else {
        // revisions are integers, the sender a UUID, the channel quoted: nothing here comes from a client
        const revision = String(Math.trunc(batch.revision));
        const payload = c.escapeLiteral(`${revision} ${this.#sender}`);
        await c.query(
          `UPDATE meta SET value = ${revision} WHERE name = '${META_REVISION}'; SELECT pg_notify(${c.escapeLiteral(this.#channel)}, ${payload}); COMMIT`,
        );
      }
      return { outcomes, effects: batch };
    } catch (err) {
      await c.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw err;
    } finally {
      c.release(broken);
    }
  }

  async #applyOne(c: pg.PoolClient, op: WriteOp, batch: Batch): Promise<Outcome<WriteResult>> {
    try {
      return { ok: true, value: await this.#apply(c, op, batch) };
    } catch (err) {
      if (isStorageError(err)) return { ok: false, error: err };
      throw err;
    }
  }

  async #apply(c: pg.PoolClient, op: WriteOp, batch: Batch): Promise<WriteResult> {
    if (('key' in op && op.key.includes('\u0000')) || ('value' in op && op.value.includes('\u0000'))) {
      throw new StorageError('Unavailable', `the key or value of ${JSON.stringify(op.key)} contains NUL, which PostgreSQL text cannot hold`, { key: op.key });
    }
    switch (op.kind) {
      case 'create':
        return this.#drive(c, createOp(op.key, op.value, batch));
      case 'update':
        return this.#drive(c, updateOp(op.key, op.value, op.expectedRevision, batch));
      case 'delete':
        return this.#drive(c, deleteOp(op.key, op.expectedRevision, batch));
      case 'compact':
        return this.#drive(c, compactOp(op.revision, op.maxRows, batch));
      case 'vacuum':
        // PostgreSQL's autovacuum reuses the space of removed rows
        return { freePages: 0 };
      case 'probe':
        // a real commit that changes nothing
        await s.setMeta.run(c, { name: META_COMPACT_REVISION, value: Number((await s.getMeta.get(c, { name: META_COMPACT_REVISION }))?.value ?? 0) });
        return undefined;
    }
  }

  /** run an operation's program, answering its queries on the transaction's connection */
  async #drive<T>(c: pg.PoolClient, program: OpProgram<T>): Promise<T> {
    let step = program.next();
    while (!step.done) {
      const { query, mode, params } = step.value;
      const stmt = s[query] as PgStatement<unknown>;
      step = program.next(mode === 'run' ? await stmt.run(c, params) : mode === 'get' ? await stmt.get(c, params) : await stmt.all(c, params));
    }
    return step.value;
  }
}
