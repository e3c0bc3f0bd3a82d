/**
 * Cgroups by name with the cgroupfs driver (kubelet 1.20's cgroupManagerImpl over libcontainer's
 * fs and fs2 managers): a name such as ["kubepods", "burstable", "pod<uid>"] is a directory in each
 * v1 controller's hierarchy, or one directory of the unified hierarchy (cgroup v2, where the
 * controllers are enabled in every ancestor's cgroup.subtree_control). Resources are written as
 * kubelet writes them: cpu.shares, cpu.cfs_quota_us/cfs_period_us, memory.limit_in_bytes on v1;
 * cpu.weight (kubelet's shares-to-weight conversion), cpu.max, memory.max on v2.
 */
import fs from 'node:fs';
import path from 'node:path';

/** what a cgroup is given (kubelet's ResourceConfig); absent fields are left as they are */
export interface ResourceConfig {
  cpuShares?: number;
  /** microseconds per period; -1 for no limit */
  cpuQuota?: number;
  cpuPeriod?: number;
  /** bytes; -1 for no limit */
  memoryLimit?: number;
  pidsLimit?: number;
}

/** the v1 controllers a cgroup is made in (those mounted), and the unified hierarchy of a hybrid host, as runc uses it too */
const V1_CONTROLLERS = ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'hugetlb', 'blkio', 'devices', 'freezer', 'systemd', 'unified'];
const V2_CONTROLLERS = ['cpuset', 'cpu', 'io', 'memory', 'hugetlb', 'pids'];

/** libcontainer's CpuSharesToCPUWeight: shares 2..262144 onto weight 1..10000 */
export function cpuSharesToWeight(shares: number): number {
  if (shares === 0) return 0;
  return 1 + Math.floor(((shares - 2) * 9999) / 262142);
}

export type CgroupVersion = 1 | 2;

/** v2 when the root of the hierarchy is the unified one */
export function detectCgroupVersion(root = '/sys/fs/cgroup'): CgroupVersion {
  return fs.existsSync(path.join(root, 'cgroup.controllers')) ? 2 : 1;
}

export interface CgroupfsManagerOptions {
  /** where the hierarchy is mounted (tests use a directory of their own) */
  root?: string;
  version?: CgroupVersion;
}

export class CgroupfsManager {
  readonly root: string;
  readonly version: CgroupVersion;

  constructor(opts: CgroupfsManagerOptions = {}) {
    this.root = opts.root ?? '/sys/fs/cgroup';
    this.version = opts.version ?? detectCgroupVersion(this.root);
  }

  /** the cgroupfs name as the runtime is given it: "/kubepods/burstable/pod<uid>" */
  static cgroupfsName(name: readonly string[]): string {
    return `/${name.join('/')}`;
  }

  /** the directories that hold the cgroup, one per mounted v1 controller (deduplicated) or the unified one */
  paths(name: readonly string[]): string[] {
    if (this.version === 2) return [path.join(this.root, ...name)];
    const seen = new Set<string>();
    const out: string[] = [];
    for (const controller of V1_CONTROLLERS) {
      const mount = path.join(this.root, controller);
      let real: string;
      try {
        real = fs.realpathSync(mount);
      } catch {
        continue;
      }
      if (seen.has(real)) continue;
      seen.add(real);
      out.push(path.join(mount, ...name));
    }
    return out;
  }

  exists(name: readonly string[]): boolean {
    const paths = this.paths(name);
    return paths.length > 0 && paths.every((p) => fs.existsSync(p));
  }

  /** makes the cgroup (and its parents) and applies the resources */
  create(name: readonly string[], resources: ResourceConfig): void {
    if (this.version === 2) this.#createV2(name);
    else for (const p of this.paths(name)) this.#createV1(p);
    this.update(name, resources);
  }

  update(name: readonly string[], r: ResourceConfig): void {
    if (this.version === 2) {
      const dir = path.join(this.root, ...name);
      if (r.cpuShares !== undefined) this.#write(dir, 'cpu.weight', String(cpuSharesToWeight(r.cpuShares)));
      if (r.cpuQuota !== undefined || r.cpuPeriod !== undefined) {
        const quota = r.cpuQuota === undefined || r.cpuQuota <= 0 ? 'max' : String(r.cpuQuota);
        this.#write(dir, 'cpu.max', `${quota} ${r.cpuPeriod ?? 100_000}`);
      }
      if (r.memoryLimit !== undefined) this.#write(dir, 'memory.max', r.memoryLimit > 0 ? String(r.memoryLimit) : 'max');
      if (r.pidsLimit !== undefined) this.#write(dir, 'pids.max', r.pidsLimit > 0 ? String(r.pidsLimit) : 'max');
      return;
    }
    const at = (controller: string) => path.join(this.root, controller, ...name);
    if (r.cpuShares !== undefined) this.#write(at('cpu'), 'cpu.shares', String(r.cpuShares));
    // the period first: a quota is checked against the period in force
    if (r.cpuPeriod !== undefined) this.#write(at('cpu'), 'cpu.cfs_period_us', String(r.cpuPeriod));
    if (r.cpuQuota !== undefined) this.#write(at('cpu'), 'cpu.cfs_quota_us', String(r.cpuQuota > 0 ? r.cpuQuota : -1));
    if (r.memoryLimit !== undefined) this.#write(at('memory'), 'memory.limit_in_bytes', String(r.memoryLimit > 0 ? r.memoryLimit : -1));
    if (r.pidsLimit !== undefined && fs.existsSync(at('pids'))) this.#write(at('pids'), 'pids.max', r.pidsLimit > 0 ? String(r.pidsLimit) : 'max');
  }

  /** the pids in the cgroup (its own cgroup.procs, children not included) */
  pids(name: readonly string[]): number[] {
    const out = new Set<number>();
    for (const p of this.paths(name)) {
      let text = '';
      try {
        text = fs.readFileSync(path.join(p, 'cgroup.procs'), 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n')) if (line.trim()) out.add(Number(line));
    }
    return [...out];
  }

  /** the names of the child cgroups (from the first hierarchy that has the cgroup) */
  children(name: readonly string[]): string[] {
    for (const p of this.paths(name)) {
      try {
        return fs.readdirSync(p, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
      } catch {
        continue;
      }
    }
    return [];
  }

  /** removes the cgroup in every hierarchy, its child cgroups first; throws when one is still busy */
  destroy(name: readonly string[]): void {
    const errors: string[] = [];
    for (const p of this.paths(name)) {
      const remove = (dir: string): void => {
        let entries: fs.Dirent[];
        try {
          entries = fs.readdirSync(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const e of entries) if (e.isDirectory()) remove(path.join(dir, e.name));
        try {
          fs.rmdirSync(dir);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') errors.push(`${dir}: ${(err as Error).message}`);
        }
      };
      remove(p);
    }
    if (errors.length) throw new Error(`failed to delete cgroup paths: ${errors.join('; ')}`);
  }

  #createV1(dir: string): void {
    const isCpuset = path.relative(this.root, dir).split(path.sep)[0] === 'cpuset';
    const missing: string[] = [];
    for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) missing.unshift(d);
    for (const d of missing) {
      fs.mkdirSync(d);
      // a new cpuset has no cpus or mems: it takes its parent's, as libcontainer does
      if (isCpuset) {
        for (const file of ['cpuset.cpus', 'cpuset.mems']) {
          const parent = fs.readFileSync(path.join(path.dirname(d), file), 'utf8').trim();
          this.#write(d, file, parent);
        }
      }
    }
  }

  #createV2(name: readonly string[]): void {
    let dir = this.root;
    for (const part of name) {
      const available = new Set(readWords(path.join(dir, 'cgroup.controllers')));
      const enabled = new Set(readWords(path.join(dir, 'cgroup.subtree_control')));
      const wanted = V2_CONTROLLERS.filter((c) => available.has(c) && !enabled.has(c));
      if (wanted.length) this.#write(dir, 'cgroup.subtree_control', wanted.map((c) => `+${c}`).join(' '));
      dir = path.join(dir, part);
      if (!fs.existsSync(dir)) fs.mkdirSync(dir);
    }
  }

  #write(dir: string, file: string, value: string): void {
    try {
      fs.writeFileSync(path.join(dir, file), value);
    } catch (err) {
      throw new Error(`failed to write "${value}" to "${path.join(dir, file)}": ${(err as Error).message}`);
    }
  }
}

function readWords(file: string): string[] {
  try {
    return fs.readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}
