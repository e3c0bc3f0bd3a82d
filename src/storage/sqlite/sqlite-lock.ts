import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { StoreInUseError } from '../store-lock';
import type { StoreHolder, StoreLock } from '../store-lock';

/**
 * The connections that hold locks. A better-sqlite3 connection that is garbage collected closes,
 * which would drop its lock while the process still counts on it; so a held lock stays reachable
 * from here until release(), whatever the caller keeps. (The lock is process-wide by nature.)
 */
const HELD = new Set<Database.Database>();

export interface SqliteLockOptions {
  /** recorded for whoever finds the lock taken */
  dataDir?: string;
}

/**
 * Take the process lock of a SQLite database file, or throw StoreInUseError naming the live holder.
 *
 * The lock is a SQLite write lock (BEGIN IMMEDIATE, never committed) on a small side database,
 * `<file>.lock`. It is an operating-system file lock, so it goes away with its process however that
 * process ends: a holder killed with kill -9 leaves nothing that blocks the next start, and a reused
 * pid cannot fool it. The holder's pid and data dir go to `<file>.lock.json`, written after the lock
 * is taken, so only the holder ever writes it. Nothing touches the database itself.
 */
export function acquireSqliteLock(file: string, options: SqliteLockOptions = {}): StoreLock {
  const database = path.resolve(file);
  fs.mkdirSync(path.dirname(database), { recursive: true });
  const lockPath = `${database}.lock`;
  const holderPath = `${database}.lock.json`;
  // timeout 0: a held lock is reported at once instead of after the usual busy wait
  const conn = new Database(lockPath, { timeout: 0 });
  try {
    // nothing is ever written here, so no journal file is needed
    conn.pragma('journal_mode = MEMORY');
    conn.exec('BEGIN IMMEDIATE');
  } catch (err) {
    conn.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new StoreInUseError(database, readHolder(holderPath));
    throw err;
  }
  const holder: StoreHolder = { pid: process.pid, dataDir: options.dataDir, host: os.hostname(), since: new Date().toISOString() };
  try {
    const tmp = `${holderPath}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(holder) + '\n');
    fs.renameSync(tmp, holderPath);
  } catch (err) {
    conn.close();
    throw err;
  }
  HELD.add(conn);
  let held = true;
  return Object.freeze({
    database,
    release(): void {
      if (!held) return;
      held = false;
      // the record goes first, while the lock still keeps any successor from writing its own
      fs.rmSync(holderPath, { force: true });
      HELD.delete(conn);
      conn.close();
    },
  });
}

/**
 * The holder's record. A successor writes its record just after taking the lock, so for a moment
 * the file may still name a holder that died; such a record is read again briefly before giving up.
 */
function readHolder(holderPath: string): StoreHolder | undefined {
  for (let attempt = 0; attempt < 20; attempt++) {
    const holder = parseHolder(holderPath);
    if (holder && holder.pid !== process.pid && (holder.host !== os.hostname() || alive(holder.pid))) return holder;
    if (holder?.pid === process.pid) return holder;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
  }
  return undefined;
}

function parseHolder(holderPath: string): StoreHolder | undefined {
  try {
    const h = JSON.parse(fs.readFileSync(holderPath, 'utf8')) as Partial<StoreHolder>;
    return typeof h.pid === 'number' ? (h as StoreHolder) : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
