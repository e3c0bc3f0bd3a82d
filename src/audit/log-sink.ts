/**
 * The audit log (--audit-log-path): one JSON Event a line, or kube's legacy text line, to standard
 * output (`-`) or to a file that is rotated past --audit-log-maxsize megabytes (kube's lumberjack
 * default, 100, when unset), keeping --audit-log-maxbackup old files no older than --audit-log-maxage
 * days, gzipped with --audit-log-compress. Rotated files are named as lumberjack names them:
 * `<name>-<UTC time>.<ext>` beside the log.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { createStream } from 'rotating-file-stream';
import type { RotatingFileStream } from 'rotating-file-stream';
import type { AuditSink } from './backend';
import { legacyLine } from './event';
import type { AuditEvent } from './types';

export interface LogSinkOptions {
  path: string;
  format: 'json' | 'legacy';
  /** days; 0 = no age limit */
  maxAge: number;
  /** files; 0 = keep all */
  maxBackup: number;
  /** megabytes; 0 = lumberjack's 100 */
  maxSize: number;
  compress: boolean;
  /** where `-` writes (tests) */
  stdout?: NodeJS.WritableStream;
}

function line(ev: AuditEvent, format: 'json' | 'legacy'): string {
  return (format === 'legacy' ? legacyLine(ev) : JSON.stringify(ev)) + '\n';
}

/** lumberjack's backup name: audit.log -> audit-2006-01-02T15-04-05.000.log */
export function backupName(file: string, time: Date): string {
  const ext = path.extname(file);
  const base = path.basename(file, ext);
  const stamp = time.toISOString().replace(/:/g, '-').replace(/Z$/, '');
  return path.join(path.dirname(file), `${base}-${stamp}${ext}`);
}

/** the rotated files of `file`, oldest first */
function backups(file: string): string[] {
  const ext = path.extname(file);
  const base = path.basename(file, ext);
  const dir = path.dirname(file);
  const re = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}${ext.replace('.', '\\.')}(\\.gz)?$`);
  return fs.readdirSync(dir).filter((n) => re.test(n)).sort().map((n) => path.join(dir, n));
}

function prune(file: string, maxBackup: number, maxAgeDays: number): void {
  let old = backups(file);
  if (maxAgeDays > 0) {
    const cutoff = Date.now() - maxAgeDays * 86_400_000;
    for (const f of old) {
      if (fs.statSync(f).mtimeMs < cutoff) fs.rmSync(f, { force: true });
    }
    old = backups(file);
  }
  if (maxBackup > 0) for (const f of old.slice(0, Math.max(0, old.length - maxBackup))) fs.rmSync(f, { force: true });
}

export function createLogSink(o: LogSinkOptions): AuditSink {
  if (o.path === '-') {
    const out = o.stdout ?? process.stdout;
    return {
      write: (events) =>
        new Promise((resolve, reject) => out.write(events.map((e) => line(e, o.format)).join(''), (err) => (err ? reject(err) : resolve()))),
      close: async () => {},
    };
  }
  const file = path.resolve(o.path);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // kube creates the log readable by its owner only
    fs.closeSync(fs.openSync(file, 'a', 0o600));
  } catch (err) {
    throw new Error(`failed to open audit log file ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
  const rotating = require('rotating-file-stream') as { createStream: typeof createStream };
  const stream: RotatingFileStream = rotating.createStream(
    (time: number | Date | null) => time ? path.basename(backupName(file, time instanceof Date ? time : new Date(time))) + (o.compress ? '.gz' : '') : path.basename(file),
    { path: path.dirname(file), size: `${o.maxSize > 0 ? o.maxSize : 100}M`, mode: 0o600, ...(o.compress ? { compress: 'gzip' as const } : {}) },
  );
  stream.on('rotated', () => {
    try {
      prune(file, o.maxBackup, o.maxAge);
    } catch {
      // pruning is retried at the next rotation
    }
  });
  let failure: Error | undefined;
  stream.on('error', (err: Error) => (failure = err));
  return {
    write: (events) =>
      new Promise((resolve, reject) => {
        if (failure) return reject(failure);
        stream.write(events.map((e) => line(e, o.format)).join(''), (err) => (err ? reject(err) : resolve()));
      }),
    close: () => new Promise((resolve) => stream.end(() => resolve())),
  };
}
