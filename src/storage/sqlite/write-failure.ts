import fs from 'node:fs';
import path from 'node:path';
import { StorageError } from '../store';

/**
 * Turn a failed SQLite commit into a StorageError whose message names the cause. A full disk
 * (SQLITE_FULL) and a read-only database or file system (SQLITE_READONLY*, or an I/O error on a file
 * system that has become read-only) are Unwritable: the operator must act, and the store recovers
 * once they have. Anything else is Unavailable.
 */
export function writeFailure(err: unknown, file: string | undefined): StorageError {
  const code = String((err as { code?: unknown })?.code ?? '');
  const detail = `${(err as Error)?.message ?? String(err)}${code ? ` (${code})` : ''}`;
  if (code === 'SQLITE_FULL') {
    return new StorageError('Unwritable', `storage is full: ${detail}; free space on the disk holding ${file ?? 'the database'}`, { cause: err });
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new StorageError('Unwritable', `storage is read-only: ${detail}`, { cause: err });
  }
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') {
    const why = file ? fileSystemProblem(file) : undefined;
    if (why) return new StorageError('Unwritable', `storage is ${why}: ${detail}`, { cause: err });
  }
  return new StorageError('Unavailable', `storage write failed: ${detail}`, { cause: err });
}

/** bytes free for unprivileged use on the file system holding file; undefined when unknown */
export function freeBytes(file: string): number | undefined {
  try {
    const st = fs.statfsSync(path.dirname(file));
    return st.bavail * st.bsize;
  } catch {
    return undefined;
  }
}

/**
 * 'read-only' or 'full' when the file system holding file is, else undefined. A file system the
 * kernel switched to read-only after an error (ext4 errors=remount-ro) still passes access(2), so a
 * file is really created to find out.
 */
function fileSystemProblem(file: string): string | undefined {
  const probe = path.join(path.dirname(file), `.write-probe-${process.pid}`);
  try {
    fs.closeSync(fs.openSync(probe, 'w'));
    fs.rmSync(probe, { force: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return `read-only (the file system holding ${file} is read-only)`;
    if (code === 'ENOSPC') return `full (no space left on the disk holding ${file})`;
    if (code === 'EACCES' || code === 'EPERM') return `read-only (${file}'s directory is not writable)`;
  }
  if (freeBytes(file) === 0) return `full (no space left on the disk holding ${file})`;
  return undefined;
}
