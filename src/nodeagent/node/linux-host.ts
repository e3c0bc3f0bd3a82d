/**
 * The real machine: /proc, /sys and statfs, read the way cadvisor and kubelet's eviction manager read
 * them (MemTotal for capacity, the root cgroup's working set for memory.available, statfs of the
 * root dir for nodefs, pid_max and the running threads for pid.available).
 */
import dns from 'node:dns/promises';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import { GO_ARCH, type FsStats, type HostMeasurements, type MachineInfo, type NodeHost } from './host';

export interface LinuxHostOptions {
  /** the agent's root dir (--root-dir): nodefs */
  rootDir: string;
  /** the image filesystem's path (the runtime's root); the root dir when not given */
  imageFsDir?: string;
}

async function readText(path: string): Promise<string> {
  try {
    return (await fs.readFile(path, 'utf8')).trim();
  } catch {
    return '';
  }
}

/** the fields of /proc/meminfo, in bytes */
export function parseMeminfo(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([^:]+):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (m) out.set(m[1], Number(m[2]) * (line.includes('kB') ? 1024 : 1));
  }
  return out;
}

/** PRETTY_NAME of an os-release file, unquoted; cadvisor's "Linux" when absent */
export function prettyName(osRelease: string): string {
  const m = /^PRETTY_NAME=(.*)$/m.exec(osRelease);
  if (!m) return 'Linux';
  return m[1].trim().replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
}

export async function statFs(path: string): Promise<FsStats> {
  const s = await fs.statfs(path);
  return { capacityBytes: s.blocks * s.bsize, availableBytes: s.bavail * s.bsize, inodes: s.files, inodesFree: s.ffree };
}

/** whether kubelet's validateNodeIP would accept the address: a unicast address of this machine */
function usableLocalAddress(addr: string, local: Set<string>): boolean {
  if (addr === '0.0.0.0' || addr === '::' || addr.startsWith('127.') || addr === '::1') return false;
  if (addr.startsWith('169.254.') || /^fe[89ab]/i.test(addr) || /^2(2[4-9]|3\d)\./.test(addr) || /^ff/i.test(addr)) return false;
  return local.has(addr);
}

export class LinuxHost implements NodeHost {
  readonly #rootDir: string;
  readonly #imageFsDir: string;

  constructor(opts: LinuxHostOptions) {
    this.#rootDir = opts.rootDir;
    this.#imageFsDir = opts.imageFsDir ?? opts.rootDir;
  }

  async machineInfo(): Promise<MachineInfo> {
    const meminfo = parseMeminfo(await readText('/proc/meminfo'));
    return {
      numCores: os.cpus().length || 1,
      memoryCapacityBytes: meminfo.get('MemTotal') ?? os.totalmem(),
      hugePages: await this.#hugePages(),
      machineId: (await readText('/etc/machine-id')) || (await readText('/var/lib/dbus/machine-id')),
      systemUuid: await readText('/sys/class/dmi/id/product_uuid'),
      bootId: await readText('/proc/sys/kernel/random/boot_id'),
      kernelVersion: os.release(),
      osImage: prettyName(await readText('/etc/os-release')),
      operatingSystem: process.platform,
      architecture: GO_ARCH[process.arch] ?? process.arch,
    };
  }

  async #hugePages(): Promise<MachineInfo['hugePages']> {
    const dir = '/sys/kernel/mm/hugepages';
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      return [];
    }
    const pools: MachineInfo['hugePages'] = [];
    for (const name of names) {
      const m = /^hugepages-(\d+)kB$/.exec(name);
      if (!m) continue;
      pools.push({ pageSizeKiB: Number(m[1]), numPages: Number(await readText(`${dir}/${name}/nr_hugepages`)) || 0 });
    }
    return pools.sort((a, b) => a.pageSizeKiB - b.pageSizeKiB);
  }

  rootFs(): Promise<FsStats> {
    return statFs(this.#rootDir);
  }

  async measure(): Promise<HostMeasurements> {
    const meminfo = parseMeminfo(await readText('/proc/meminfo'));
    const capacity = meminfo.get('MemTotal') ?? os.totalmem();
    const [nodefs, imagefs] = await Promise.all([statFs(this.#rootDir), statFs(this.#imageFsDir)]);
    // /proc/loadavg's fourth field is running/total scheduling entities: sysinfo's procs, what kubelet counts
    const loadavg = await readText('/proc/loadavg');
    const total = Number(/\d+\/(\d+)/.exec(loadavg)?.[1] ?? '0');
    return {
      time: Date.now(),
      memoryCapacityBytes: capacity,
      memoryWorkingSetBytes: await this.#workingSet(meminfo, capacity),
      nodefs,
      imagefs,
      maxPid: Number(await readText('/proc/sys/kernel/pid_max')) || 32768,
      numProcesses: total,
    };
  }

  /** the root cgroup's usage minus its inactive file pages (cgroup v1), else the same from /proc/meminfo */
  async #workingSet(meminfo: Map<string, number>, capacity: number): Promise<number> {
    const usage = Number(await readText('/sys/fs/cgroup/memory/memory.usage_in_bytes'));
    if (usage > 0) {
      const inactive = Number(/^total_inactive_file (\d+)$/m.exec(await readText('/sys/fs/cgroup/memory/memory.stat'))?.[1] ?? '0');
      return Math.max(0, usage - inactive);
    }
    // cgroup v2 has no usage file at the root: the machine's used memory is the same thing
    const used = capacity - (meminfo.get('MemFree') ?? 0);
    return Math.max(0, used - (meminfo.get('Inactive(file)') ?? 0));
  }

  async nodeAddress(hostname: string): Promise<string> {
    if (net.isIP(hostname)) return hostname;
    const local = new Set<string>();
    for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) local.add(a.address);
    let chosen: string | undefined;
    try {
      for (const { address, family } of await dns.lookup(hostname, { all: true })) {
        if (!usableLocalAddress(address, local)) continue;
        if (family === 4) return address;
        chosen ??= address;
      }
    } catch {
      // not resolvable: the default route's interface below
    }
    if (chosen) return chosen;
    const fromRoute = await this.#defaultRouteAddress();
    if (fromRoute) return fromRoute;
    throw new Error(`can't get ip address of node ${hostname}. error: no default route and the name does not resolve to an address of this machine`);
  }

  /** the IPv4 address of the interface holding the default route (utilnet.ChooseHostInterface) */
  async #defaultRouteAddress(): Promise<string | undefined> {
    const routes = (await readText('/proc/net/route')).split('\n').slice(1);
    const interfaces = os.networkInterfaces();
    for (const line of routes) {
      const [iface, destination] = line.trim().split(/\s+/);
      if (destination !== '00000000') continue;
      const addr = (interfaces[iface] ?? []).find((a) => a.family === 'IPv4' && !a.internal);
      if (addr) return addr.address;
    }
    return undefined;
  }
}
