/**
 * Reading CRI-format container logs (kubelet's kuberuntime/logs): each file line is
 * `<RFC3339Nano time> <stdout|stderr> <P|F> <text>`; P marks a partial line continued by the next
 * one. We join partial lines, drop the prefix unless timestamps are asked, keep only lines at or
 * after `since`, the last `tailLines`, and stop after `limitBytes`. Following keeps reading as the
 * file grows, reopens the path when the file is rotated (a new inode there), and ends once the
 * container instance is no longer running and the file is drained.
 */
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LogReadOptions {
  follow: boolean;
  timestamps: boolean;
  /** epoch ms; lines logged before are skipped */
  sinceMs?: number;
  tailLines?: number;
  limitBytes?: number;
  /** while following: whether the instance still runs (asked every checkIntervalMs) */
  running?: () => Promise<boolean>;
  pollIntervalMs?: number;
  checkIntervalMs?: number;
  signal?: AbortSignal;
}

export interface LogEntry {
  time: string;
  stream: string;
  text: string;
}

/** parse one CRI log line; undefined for a malformed one */
export function parseCriLine(line: string): { time: string; stream: string; partial: boolean; text: string } | undefined {
  const a = line.indexOf(' ');
  const b = a < 0 ? -1 : line.indexOf(' ', a + 1);
  const c = b < 0 ? -1 : line.indexOf(' ', b + 1);
  if (c < 0) {
    // an empty full line may end right after the tag
    const parts = line.split(' ');
    if (parts.length === 3 && (parts[2] === 'F' || parts[2] === 'P')) return { time: parts[0], stream: parts[1], partial: parts[2] === 'P', text: '' };
    return undefined;
  }
  const tag = line.slice(b + 1, c);
  return { time: line.slice(0, a), stream: line.slice(a + 1, b), partial: tag.split(':')[0] === 'P', text: line.slice(c + 1) };
}

/** joins partial lines into entries */
class EntryAssembler {
  #pending?: LogEntry;
  push(line: string): LogEntry | undefined {
    const p = parseCriLine(line);
    if (!p) return undefined;
    if (this.#pending) this.#pending.text += p.text;
    else this.#pending = { time: p.time, stream: p.stream, text: p.text };
    if (p.partial) return undefined;
    const done = this.#pending;
    this.#pending = undefined;
    return done;
  }
}

/** writes entries with the filters of the request; false once limitBytes is reached */
class EntryWriter {
  #written = 0;
  constructor(
    readonly write: (chunk: string) => void,
    readonly opts: LogReadOptions,
  ) {}
  get full(): boolean {
    return this.opts.limitBytes !== undefined && this.#written >= this.opts.limitBytes;
  }
  keep(e: LogEntry): boolean {
    if (this.opts.sinceMs === undefined) return true;
    const t = Date.parse(e.time);
    return Number.isNaN(t) || t >= this.opts.sinceMs;
  }
  out(e: LogEntry): void {
    if (this.full || !this.keep(e)) return;
    let s = `${this.opts.timestamps ? `${e.time} ` : ''}${e.text}\n`;
    if (this.opts.limitBytes !== undefined) {
      const room = this.opts.limitBytes - this.#written;
      const buf = Buffer.from(s);
      if (buf.length > room) s = buf.subarray(0, room).toString();
      this.#written += Math.min(buf.length, room);
    }
    this.write(s);
  }
}

/** splits a stream of bytes into lines, keeping an unfinished last line */
class LineSplitter {
  #rest = '';
  push(text: string): string[] {
    const lines = (this.#rest + text).split('\n');
    this.#rest = lines.pop() ?? '';
    return lines;
  }
}

async function readChunk(fd: number, position: number): Promise<Buffer> {
  const buf = Buffer.alloc(64 * 1024);
  const n = await new Promise<number>((resolve, reject) => fs.read(fd, buf, 0, buf.length, position, (err, bytes) => (err ? reject(err) : resolve(bytes))));
  return buf.subarray(0, n);
}

/**
 * Streams the log at `path` to `write`. Resolves when done: at the end of the file, or when
 * following, once the instance stopped (or the signal aborted) and the file is drained.
 */
export async function readContainerLog(path: string, opts: LogReadOptions, write: (chunk: string) => void): Promise<void> {
  const writer = new EntryWriter(write, opts);
  let fd = fs.openSync(path, 'r');
  let position = 0;
  try {
    const assembler = new EntryAssembler();
    const splitter = new LineSplitter();
    // the file as it is now, with the tail applied
    const entries: LogEntry[] = [];
    for (;;) {
      const chunk = await readChunk(fd, position);
      if (chunk.length === 0) break;
      position += chunk.length;
      for (const line of splitter.push(chunk.toString('utf8'))) {
        const e = assembler.push(line);
        if (e && writer.keep(e)) entries.push(e);
      }
    }
    const start = opts.tailLines === undefined ? 0 : Math.max(0, entries.length - opts.tailLines);
    for (const e of entries.slice(start)) writer.out(e);
    if (!opts.follow || writer.full) return;

    const pollMs = opts.pollIntervalMs ?? 200;
    const checkMs = opts.checkIntervalMs ?? 5000;
    let lastCheck = Date.now();
    let stopping = false;
    for (;;) {
      if (opts.signal?.aborted || writer.full) return;
      const chunk = await readChunk(fd, position);
      if (chunk.length > 0) {
        position += chunk.length;
        for (const line of splitter.push(chunk.toString('utf8'))) {
          const e = assembler.push(line);
          if (e) writer.out(e);
        }
        continue;
      }
      // drained: the file may have been rotated to a new one at the same path
      const rotated = (() => {
        try {
          return fs.statSync(path).ino !== fs.fstatSync(fd).ino;
        } catch {
          return false;
        }
      })();
      if (rotated) {
        fs.closeSync(fd);
        fd = fs.openSync(path, 'r');
        position = 0;
        continue;
      }
      if (stopping) return;
      if (Date.now() - lastCheck >= checkMs || !opts.running) {
        lastCheck = Date.now();
        if (!opts.running || !(await opts.running())) {
          // one more pass for what was written before the instance ended
          stopping = true;
          continue;
        }
      }
      await sleep(pollMs, undefined, { signal: opts.signal }).catch(() => undefined);
    }
  } finally {
    fs.closeSync(fd);
  }
}
