import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SEVERITIES } from './severity';

export interface LogFilesOptions {
  /** --log-file: every entry goes to this one file (--log-dir is then unused) */
  file?: string;
  /** --log-dir: one file per severity, named as klog names them */
  dir?: string;
  /** program name in the file names (klog: the binary's name) */
  program: string;
  /** --log-file-max-size in bytes; 0 = no limit */
  maxBytes: number;
  /** --one-output: an entry goes only to its own severity's file */
  oneOutput: boolean;
  /** --skip-log-headers: no header block at the top of a new file */
  skipLogHeaders: boolean;
  /** what the header's "Log line format:" says */
  lineFormat: string;
  now?: () => Date;
  host?: string;
  user?: string;
  pid?: number;
}

/**
 * The files klog writes when --logtostderr=false. With --log-dir, severity S's file is
 * `<program>.<host>.<user>.log.<S>.<yyyymmdd>-<hhmmss>.<pid>` with a `<program>.<S>` symlink to the
 * newest one; an entry goes to its own severity's file and every lower one (INFO holds everything)
 * unless --one-output. With --log-file, everything goes to that file, appended to at start; klog
 * starts it afresh (truncates) when it passes --log-file-max-size, while a --log-dir file is
 * followed by a new file with a new time stamp.
 *
 * Writes are buffered: flush() writes them out (the caller runs it every --log-flush-frequency and
 * at exit); a buffer past 256 KiB is flushed at once.
 */
export class LogFiles {
  readonly #o: LogFilesOptions;
  readonly #files: (LogFile | undefined)[] = [];

  constructor(o: LogFilesOptions) {
    this.#o = o;
    const dir = o.file ? path.dirname(path.resolve(o.file)) : this.#dir();
    try {
      fs.mkdirSync(dir, { recursive: true });
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (err) {
      const flag = o.file ? `--log-file ${o.file}` : `--log-dir ${dir}`;
      throw new Error(`${flag}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }

  #dir(): string {
    return this.#o.dir || os.tmpdir();
  }

  /** write one formatted entry of klog severity 0-3 */
  write(severity: number, line: string): void {
    if (this.#o.file) {
      this.#file(0).append(line);
      return;
    }
    const lowest = this.#o.oneOutput ? severity : 0;
    for (let s = severity; s >= lowest; s--) this.#file(s).append(line);
  }

  flush(): void {
    for (const f of this.#files) f?.flush();
  }

  /** flush and close every file */
  close(): void {
    for (const f of this.#files) f?.close();
    this.#files.length = 0;
  }

  #file(severity: number): LogFile {
    let f = this.#files[severity];
    if (!f) {
      f = new LogFile(this.#o, (startup) => this.#open(severity, startup));
      this.#files[severity] = f;
    }
    return f;
  }

  /** open the file for a severity; `startup` is the first open of this process */
  #open(severity: number, startup: boolean): number {
    const o = this.#o;
    if (o.file) {
      // klog appends at start-up and truncates when rotating its one file
      return fs.openSync(o.file, startup ? 'a' : 'w', 0o644);
    }
    const name = klogFileName({ program: o.program, severity, time: (o.now ?? (() => new Date()))(), host: o.host, user: o.user, pid: o.pid });
    const dir = this.#dir();
    let full = path.join(dir, name);
    // a second rotation within the same second would reuse the name: keep both
    for (let n = 1; fs.existsSync(full); n++) full = path.join(dir, `${name}.${n}`);
    const fd = fs.openSync(full, 'a', 0o644);
    const link = path.join(dir, `${o.program}.${SEVERITIES[severity]}`);
    try {
      fs.rmSync(link, { force: true });
      fs.symlinkSync(path.basename(full), link);
    } catch {
      // klog ignores a symlink it cannot make too
    }
    return fd;
  }
}

/** klog's file name for a severity's log file */
export function klogFileName(o: { program: string; severity: number; time: Date; host?: string; user?: string; pid?: number }): string {
  const t = o.time;
  const two = (n: number) => String(n).padStart(2, '0');
  const stamp = `${t.getFullYear()}${two(t.getMonth() + 1)}${two(t.getDate())}-${two(t.getHours())}${two(t.getMinutes())}${two(t.getSeconds())}`;
  return `${o.program}.${o.host ?? shortHostName()}.${o.user ?? userName()}.log.${SEVERITIES[o.severity]}.${stamp}.${o.pid ?? process.pid}`;
}

/** the host name up to its first dot, as klog uses it */
export function shortHostName(): string {
  const h = os.hostname();
  return (h.split('.')[0] || 'unknownhost');
}

/** the current user's name, with klog's replacement of path separators */
export function userName(): string {
  let name = 'unknownuser';
  try {
    name = os.userInfo().username || name;
  } catch {
    // no passwd entry (some containers)
  }
  return name.replace(/[\\/]/g, '_');
}

const FLUSH_AT = 256 * 1024;

/** one severity's open file with its write buffer and size count */
class LogFile {
  #fd: number | undefined;
  #size = 0;
  #buffer: string[] = [];
  #buffered = 0;

  constructor(
    private readonly o: LogFilesOptions,
    private readonly open: (startup: boolean) => number,
  ) {}

  append(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.#fd === undefined) this.#start(true);
    else if (this.o.maxBytes > 0 && this.#size + bytes > this.o.maxBytes) this.#rotate();
    this.#buffer.push(line);
    this.#buffered += bytes;
    this.#size += bytes;
    if (this.#buffered >= FLUSH_AT) this.flush();
  }

  flush(): void {
    if (this.#fd === undefined || this.#buffer.length === 0) return;
    const data = this.#buffer.join('');
    this.#buffer = [];
    this.#buffered = 0;
    try {
      fs.writeSync(this.#fd, data);
    } catch {
      // a full disk must not take the server down; klog drops the entries as well
    }
  }

  close(): void {
    this.flush();
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    this.#fd = undefined;
  }

  #rotate(): void {
    this.close();
    this.#start(false);
  }

  #start(startup: boolean): void {
    this.#fd = this.open(startup);
    this.#size = startup ? fs.fstatSync(this.#fd).size : 0;
    if (!this.o.skipLogHeaders) {
      const header = fileHeader(this.o);
      this.#buffer.push(header);
      this.#buffered += Buffer.byteLength(header);
      this.#size += Buffer.byteLength(header);
    }
  }
}

/** the block klog writes at the top of each new file (--skip-log-headers leaves it out) */
function fileHeader(o: LogFilesOptions): string {
  const t = (o.now ?? (() => new Date()))();
  const two = (n: number) => String(n).padStart(2, '0');
  const when = `${t.getFullYear()}/${two(t.getMonth() + 1)}/${two(t.getDate())} ${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())}`;
  return [
    `Log file created at: ${when}`,
    `Running on machine: ${o.host ?? shortHostName()}`,
    `Binary: ${o.program} on Node ${process.version} for ${process.platform}/${process.arch}`,
    `Log line format: ${o.lineFormat}`,
    '',
  ].join('\n');
}
