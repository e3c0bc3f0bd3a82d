/**
 * The node's own numbers for the summary (what cadvisor reports for the root cgroup in kubelet
 * 1.20): cumulative CPU time, memory usage and working set, the root dir's filesystem, and the pid
 * limit with the processes running. cgroup v1 reads the root memory and cpuacct controllers; the
 * unified hierarchy (cgroup v2) and machines without those files fall back to /proc.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FsStats } from '../node/host';
import { parseMeminfo, statFs } from '../node/linux-host';

/** one sample of the node */
export interface NodeReading {
  /** epoch ms of the sample */
  time: number;
  /** epoch ms the machine booted (the root cgroup's start) */
  bootTimeMs: number;
  /** cumulative CPU time of every core, in nanoseconds */
  cpuUsageCoreNanoSeconds: number;
  memory: { capacityBytes: number; usageBytes: number; workingSetBytes: number; rssBytes: number; pageFaults: number; majorPageFaults: number };
  /** the agent's root dir's filesystem (nodefs) */
  fs: FsStats;
  maxPid: number;
  numProcesses: number;
}

/** the contract the summary provider reads the node through; a fake stands in for it in tests */
export interface NodeStatsSource {
  read(): Promise<NodeReading>;
  /** the capacity and free space of the filesystem holding a path (the image filesystem's mount point) */
  fsOf(dir: string): Promise<FsStats>;
}

export interface LinuxNodeStatsOptions {
  /** --root-dir: nodefs */
  rootDir: string;
  /** where proc and the cgroup hierarchy are mounted (tests point them at fixtures) */
  procDir?: string;
  cgroupDir?: string;
  now?: () => number;
}

/** the USER_HZ of /proc/stat's jiffies on every Linux architecture Node runs on */
const USER_HZ = 100;

async function readText(file: string): Promise<string> {
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch {
    return '';
  }
}

/** `key value` lines (memory.stat, vmstat, cpu.stat) */
export function parseKeyValues(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [k, v] = line.trim().split(/\s+/);
    if (k && v !== undefined && /^\d+$/.test(v)) out.set(k, Number(v));
  }
  return out;
}

/** busy jiffies of /proc/stat's cpu line (everything but idle and iowait), as nanoseconds */
export function procStatCpuNs(stat: string): number {
  const line = stat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return 0;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = [user, nice, system, irq, softirq, steal].reduce((n, v) => n + (Number.isFinite(v) ? v : 0), 0);
  return (busy * 1e9) / USER_HZ;
}

export class LinuxNodeStats implements NodeStatsSource {
  readonly #rootDir: string;
  readonly #proc: string;
  readonly #cgroup: string;
  readonly #now: () => number;

  constructor(opts: LinuxNodeStatsOptions) {
    this.#rootDir = opts.rootDir;
    this.#proc = opts.procDir ?? '/proc';
    this.#cgroup = opts.cgroupDir ?? '/sys/fs/cgroup';
    this.#now = opts.now ?? Date.now;
  }

  fsOf(dir: string): Promise<FsStats> {
    return statFs(dir);
  }

  async read(): Promise<NodeReading> {
    const [meminfoText, statText, loadavg, pidMax, fsStats] = await Promise.all([
      readText(path.join(this.#proc, 'meminfo')),
      readText(path.join(this.#proc, 'stat')),
      readText(path.join(this.#proc, 'loadavg')),
      readText(path.join(this.#proc, 'sys/kernel/pid_max')),
      statFs(this.#rootDir),
    ]);
    const meminfo = parseMeminfo(meminfoText);
    const btime = Number(/^btime (\d+)$/m.exec(statText)?.[1] ?? '0');
    return {
      time: this.#now(),
      bootTimeMs: btime * 1000,
      cpuUsageCoreNanoSeconds: await this.#cpu(statText),
      memory: await this.#memory(meminfo),
      fs: fsStats,
      maxPid: Number(pidMax) || 32768,
      // loadavg's fourth field is running/total scheduling entities: sysinfo's procs, what kubelet counts
      numProcesses: Number(/\d+\/(\d+)/.exec(loadavg)?.[1] ?? '0'),
    };
  }

  async #cpu(statText: string): Promise<number> {
    const v1 = Number(await readText(path.join(this.#cgroup, 'cpuacct/cpuacct.usage')));
    if (v1 > 0) return v1;
    return procStatCpuNs(statText);
  }

  async #memory(meminfo: Map<string, number>): Promise<NodeReading['memory']> {
    const capacityBytes = meminfo.get('MemTotal') ?? 0;
    const usage = Number(await readText(path.join(this.#cgroup, 'memory/memory.usage_in_bytes')));
    if (usage > 0) {
      const stat = parseKeyValues(await readText(path.join(this.#cgroup, 'memory/memory.stat')));
      const inactive = stat.get('total_inactive_file') ?? 0;
      return {
        capacityBytes,
        usageBytes: usage,
        workingSetBytes: Math.max(0, usage - inactive),
        rssBytes: stat.get('total_rss') ?? 0,
        pageFaults: stat.get('total_pgfault') ?? 0,
        majorPageFaults: stat.get('total_pgmajfault') ?? 0,
      };
    }
    // the unified hierarchy has no usage file at its root: the machine's used memory is the same thing
    const vmstat = parseKeyValues(await readText(path.join(this.#proc, 'vmstat')));
    const used = Math.max(0, capacityBytes - (meminfo.get('MemFree') ?? 0));
    return {
      capacityBytes,
      usageBytes: used,
      workingSetBytes: Math.max(0, used - (meminfo.get('Inactive(file)') ?? 0)),
      rssBytes: meminfo.get('AnonPages') ?? 0,
      pageFaults: vmstat.get('pgfault') ?? 0,
      majorPageFaults: vmstat.get('pgmajfault') ?? 0,
    };
  }
}
