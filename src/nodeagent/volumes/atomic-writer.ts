/**
 * kube's AtomicWriter (pkg/volume/util/atomic_writer.go): a volume's files are written into a new
 * timestamped directory `..<date>.<random>`, then the `..data` symlink is swapped to it with one
 * rename, so a reader sees the old set or the new set, never a mix. The visible names are symlinks
 * `<name> -> ..data/<name>` for each top-level entry of the payload; names the new payload no longer
 * has are removed, and the previous timestamped directory after them.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

export interface FileProjection {
  data: Buffer;
  /** file mode, e.g. 0o644 */
  mode: number;
}

export type Payload = Map<string, FileProjection>;

const DATA_DIR = '..data';
const DATA_DIR_TMP = '..data_tmp';

/** kube's validatePath: relative, no `..` element, not starting with `..` */
export function validatePayloadPath(p: string): void {
  if (p === '') throw new Error('invalid path: must not be empty');
  if (path.isAbsolute(p)) throw new Error(`invalid path: must be relative path: ${p}`);
  if (p.split('/').includes('..')) throw new Error(`invalid path: must not contain '..': ${p}`);
  if (p.startsWith('..')) throw new Error(`invalid path: must not start with '..': ${p}`);
}

function timestampDirName(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getUTCFullYear()}_${pad(now.getUTCMonth() + 1)}_${pad(now.getUTCDate())}_${pad(now.getUTCHours())}_${pad(now.getUTCMinutes())}_${pad(now.getUTCSeconds())}`;
  return `..${stamp}.${crypto.randomInt(1e9)}`;
}

/** the files under a directory, as relative paths */
function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(path.join(dir, e.name), rel));
    else out.push(rel);
  }
  return out;
}

export class AtomicWriter {
  readonly targetDir: string;

  constructor(targetDir: string) {
    this.targetDir = targetDir;
  }

  /** whether the current ..data already holds exactly this payload (then nothing is written) */
  #unchanged(oldDir: string, payload: Payload): boolean {
    let files: string[];
    try {
      files = listFiles(oldDir);
    } catch {
      return false;
    }
    if (files.length !== payload.size) return false;
    for (const [p, f] of payload) {
      try {
        const full = path.join(oldDir, p);
        if (!fs.readFileSync(full).equals(f.data)) return false;
        if ((fs.statSync(full).mode & 0o7777) !== f.mode) return false;
      } catch {
        return false;
      }
    }
    return true;
  }

  /** makes the target directory show exactly `payload`; returns whether anything changed */
  write(payload: Payload): boolean {
    for (const p of payload.keys()) validatePayloadPath(p);
    fs.mkdirSync(this.targetDir, { recursive: true });
    const dataLink = path.join(this.targetDir, DATA_DIR);
    let oldTs = '';
    try {
      oldTs = fs.readlinkSync(dataLink);
    } catch {
      // first write
    }
    if (oldTs && this.#unchanged(path.join(this.targetDir, oldTs), payload)) return false;

    const tsName = timestampDirName(new Date());
    const tsDir = path.join(this.targetDir, tsName);
    fs.mkdirSync(tsDir, { mode: 0o755 });
    fs.chmodSync(tsDir, 0o755);
    for (const [p, f] of payload) {
      const full = path.join(tsDir, p);
      fs.mkdirSync(path.dirname(full), { recursive: true, mode: 0o755 });
      fs.writeFileSync(full, f.data);
      fs.chmodSync(full, f.mode);
    }

    const topLevel = new Set([...payload.keys()].map((p) => p.split('/')[0]));
    for (const name of topLevel) {
      const visible = path.join(this.targetDir, name);
      const want = path.join(DATA_DIR, name);
      let current: string | undefined;
      try {
        current = fs.readlinkSync(visible);
      } catch {
        current = undefined;
      }
      if (current !== want) {
        fs.rmSync(visible, { force: true, recursive: true });
        fs.symlinkSync(want, visible);
      }
    }

    const tmpLink = path.join(this.targetDir, DATA_DIR_TMP);
    fs.rmSync(tmpLink, { force: true });
    fs.symlinkSync(tsName, tmpLink);
    fs.renameSync(tmpLink, dataLink);

    // user-visible names the new payload no longer has, then the old data
    for (const name of fs.readdirSync(this.targetDir)) {
      if (name.startsWith('..') || topLevel.has(name)) continue;
      fs.rmSync(path.join(this.targetDir, name), { force: true, recursive: true });
    }
    if (oldTs && oldTs !== tsName) fs.rmSync(path.join(this.targetDir, oldTs), { force: true, recursive: true });
    return true;
  }
}
