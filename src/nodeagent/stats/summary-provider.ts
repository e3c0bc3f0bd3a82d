/**
 * The summary with real numbers (kubelet 1.20's stats provider with the CRI stats provider beneath):
 * the node from NodeStatsSource, the image filesystem from the runtime's ImageFsInfo and a statfs of
 * its mount point, and each pod from its ready sandbox, its running containers (ListContainers) and
 * their stats (ListContainerStats): cpu, memory, the writable layer as rootfs, and the container's
 * log files under the pod logs dir. A pod's cpu and memory are the sums of its containers'. CPU
 * rates (usageNanoCores) come from the previous sample of the same container or node.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Container__Output } from '../cri/generated/runtime/v1/Container';
import type { ContainerStats__Output } from '../cri/generated/runtime/v1/ContainerStats';
import type { PodSandbox__Output } from '../cri/generated/runtime/v1/PodSandbox';
import { LABELS } from '../kuberuntime/labels';
import { podLogsDirectory } from '../kuberuntime/sandbox-config';
import type { FsStats as HostFs } from '../node/host';
import { kubeTime } from '../node/setters';
import type { ContainerStats, CpuStats, FsStats, MemoryStats, NodeStats, PodStats, StatsProvider, Summary, VolumeStats } from '../server/stats';
import type { ImageService, RuntimeService } from '../types';
import type { ContainerStatsSource } from './cri-stats-client';
import type { NodeReading, NodeStatsSource } from './node-stats';
import { dirUsage } from './volume-stats';

export interface SummaryProviderOptions {
  nodeName: string;
  node: NodeStatsSource;
  runtime: Pick<RuntimeService, 'listPodSandbox' | 'listContainers'>;
  images: Pick<ImageService, 'imageFsInfo'>;
  /** the runtime's per-container stats; absent (the process runtime) leaves cpu and memory out */
  containerStats?: ContainerStatsSource;
  /** --pod-logs-dir (kubelet: /var/log/pods): the containers' log files */
  podLogsDir?: string;
  /** a pod's volumes' usage (emptyDir and the like), by uid; none when absent */
  volumeStats?: (podUid: string) => Promise<VolumeStats[]>;
  now?: () => number;
}

/** a CRI UInt64Value as a number (undefined when absent) */
function u64(v: { value: string } | null | undefined): number | undefined {
  return v ? Number(v.value) : undefined;
}

function nsToMs(ns: string | undefined): number {
  return ns ? Number(BigInt(ns) / 1_000_000n) : 0;
}

function fsStats(time: string, fs: HostFs, usedBytes: number | undefined, inodesUsed: number | undefined): FsStats {
  return {
    time,
    availableBytes: fs.availableBytes,
    capacityBytes: fs.capacityBytes,
    usedBytes: usedBytes ?? Math.max(0, fs.capacityBytes - fs.availableBytes),
    inodesFree: fs.inodesFree,
    inodes: fs.inodes,
    inodesUsed: inodesUsed ?? Math.max(0, fs.inodes - fs.inodesFree),
  };
}

export class SummaryProvider implements StatsProvider {
  readonly #o: SummaryProviderOptions;
  readonly #now: () => number;
  /** the previous cumulative cpu sample per container id (and 'node'): for usageNanoCores */
  readonly #cpu = new Map<string, { ns: number; atMs: number; rate?: number }>();

  constructor(opts: SummaryProviderOptions) {
    this.#o = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** the rate of a cumulative counter since its previous sample (kubelet's cpuUsageCache) */
  #rate(key: string, ns: number, atMs: number): number | undefined {
    const prev = this.#cpu.get(key);
    if (prev && atMs - prev.atMs < 1000 && prev.rate !== undefined) return prev.rate;
    const rate = prev && atMs > prev.atMs && ns >= prev.ns ? Math.round(((ns - prev.ns) * 1000) / (atMs - prev.atMs)) : prev?.rate;
    this.#cpu.set(key, { ns, atMs, rate });
    return rate;
  }

  async summary(onlyCpuAndMemory = false): Promise<Summary> {
    const { node: nodeSource, images } = this.#o;
    const reading = await nodeSource.read();
    const node = this.#nodeStats(reading);
    let imageFs: HostFs | undefined;
    // cpu and memory only (/metrics/resource): no filesystem is looked at
    const info = onlyCpuAndMemory ? undefined : (await images.imageFsInfo().catch(() => []))[0];
    const mount = info?.fsId?.mountpoint;
    if (info && mount) {
      imageFs = await nodeSource.fsOf(mount).catch(() => undefined);
      if (imageFs) node.runtime = { imageFs: fsStats(kubeTime(nsToMs(info.timestamp) || reading.time), imageFs, u64(info.usedBytes) ?? 0, u64(info.inodesUsed)) };
    }
    const pods = await this.#podStats(reading, imageFs ?? reading.fs, onlyCpuAndMemory);
    return { node, pods };
  }

  /** the image filesystem alone (kubelet's ImageFsStats, what image garbage collection measures) */
  async imageFsStats(): Promise<FsStats> {
    const info = (await this.#o.images.imageFsInfo())[0];
    const mount = info?.fsId?.mountpoint;
    if (!info || !mount) throw new Error('the runtime reports no image filesystem');
    const fs = await this.#o.node.fsOf(mount);
    return fsStats(kubeTime(nsToMs(info.timestamp) || this.#now()), fs, u64(info.usedBytes) ?? 0, u64(info.inodesUsed));
  }

  #nodeStats(r: NodeReading): NodeStats {
    const time = kubeTime(r.time);
    const m = r.memory;
    return {
      nodeName: this.#o.nodeName,
      startTime: kubeTime(r.bootTimeMs),
      cpu: { time, usageCoreNanoSeconds: r.cpuUsageCoreNanoSeconds, usageNanoCores: this.#rate('node', r.cpuUsageCoreNanoSeconds, r.time) },
      memory: {
        time,
        availableBytes: Math.max(0, m.capacityBytes - m.workingSetBytes),
        usageBytes: m.usageBytes,
        workingSetBytes: m.workingSetBytes,
        rssBytes: m.rssBytes,
        pageFaults: m.pageFaults,
        majorPageFaults: m.majorPageFaults,
      },
      fs: fsStats(time, r.fs, undefined, undefined),
      rlimit: { time, maxpid: r.maxPid, curproc: r.numProcesses },
    };
  }

  async #podStats(reading: NodeReading, imageFs: HostFs, onlyCpuAndMemory: boolean): Promise<PodStats[]> {
    const { runtime, containerStats } = this.#o;
    const [sandboxes, containers, stats] = await Promise.all([
      runtime.listPodSandbox(),
      runtime.listContainers(),
      containerStats ? containerStats.listContainerStats().catch(() => [] as ContainerStats__Output[]) : Promise.resolve([] as ContainerStats__Output[]),
    ]);
    // the newest ready sandbox of each pod (kubelet's removeTerminatedPods)
    const byUid = new Map<string, PodSandbox__Output>();
    for (const s of sandboxes) {
      if (s.state !== 'SANDBOX_READY' || !s.metadata?.uid) continue;
      const seen = byUid.get(s.metadata.uid);
      if (!seen || BigInt(seen.createdAt || '0') < BigInt(s.createdAt || '0')) byUid.set(s.metadata.uid, s);
    }
    const statsById = new Map(stats.map((s) => [s.attributes?.id ?? '', s]));
    const running = new Map<string, Container__Output[]>();
    for (const c of containers) {
      if (c.state !== 'CONTAINER_RUNNING') continue;
      const uid = c.labels?.[LABELS.podUid];
      if (!uid) continue;
      running.set(uid, [...(running.get(uid) ?? []), c]);
    }
    const out: PodStats[] = [];
    for (const [uid, sandbox] of byUid) {
      const meta = sandbox.metadata!;
      const logDir = this.#o.podLogsDir && !onlyCpuAndMemory ? podLogsDirectory(this.#o.podLogsDir, meta.namespace, meta.name, uid) : undefined;
      const list: ContainerStats[] = [];
      for (const c of running.get(uid) ?? []) list.push(await this.#containerStats(c, statsById.get(c.id), reading, imageFs, logDir));
      const pod: PodStats = { podRef: { name: meta.name, namespace: meta.namespace, uid }, startTime: kubeTime(nsToMs(sandbox.createdAt)), containers: list };
      const time = kubeTime(reading.time);
      const withCpu = list.filter((c) => c.cpu?.usageCoreNanoSeconds !== undefined);
      if (withCpu.length > 0) {
        const cpu: CpuStats = { time: withCpu[0].cpu!.time, usageCoreNanoSeconds: sum(withCpu.map((c) => c.cpu!.usageCoreNanoSeconds)) };
        if (withCpu.every((c) => c.cpu!.usageNanoCores !== undefined)) cpu.usageNanoCores = sum(withCpu.map((c) => c.cpu!.usageNanoCores));
        pod.cpu = cpu;
      }
      const withMemory = list.filter((c) => c.memory?.workingSetBytes !== undefined);
      if (withMemory.length > 0) {
        pod.memory = {
          time: withMemory[0].memory!.time,
          workingSetBytes: sum(withMemory.map((c) => c.memory!.workingSetBytes)),
          usageBytes: sum(withMemory.map((c) => c.memory!.usageBytes)),
          rssBytes: sum(withMemory.map((c) => c.memory!.rssBytes)),
        };
      }
      const volumes = this.#o.volumeStats && !onlyCpuAndMemory ? await this.#o.volumeStats(uid).catch(() => []) : [];
      if (volumes.length > 0) pod.volume = volumes;
      const used = sum(list.map((c) => (c.rootfs?.usedBytes ?? 0) + (c.logs?.usedBytes ?? 0))) + sum(volumes.map((v) => v.usedBytes));
      const inodesUsed = sum(list.map((c) => (c.rootfs?.inodesUsed ?? 0) + (c.logs?.inodesUsed ?? 0))) + sum(volumes.map((v) => v.inodesUsed));
      pod['ephemeral-storage'] = { ...fsStats(time, reading.fs, used, inodesUsed) };
      out.push(pod);
    }
    return out;
  }

  async #containerStats(c: Container__Output, s: ContainerStats__Output | undefined, reading: NodeReading, imageFs: HostFs, logDir: string | undefined): Promise<ContainerStats> {
    const name = c.labels?.[LABELS.containerName] ?? c.metadata?.name ?? '';
    const out: ContainerStats = { name, startTime: kubeTime(nsToMs(c.createdAt)) };
    const cpuNs = u64(s?.cpu?.usageCoreNanoSeconds);
    if (s?.cpu && cpuNs !== undefined) {
      const atMs = nsToMs(s.cpu.timestamp) || reading.time;
      // the rate is ours from successive samples, as kubelet's CRI stats provider computes it (the runtime's first answer is 0)
      out.cpu = { time: kubeTime(atMs), usageCoreNanoSeconds: cpuNs, usageNanoCores: this.#rate(c.id, cpuNs, atMs) };
    }
    if (s?.memory && u64(s.memory.workingSetBytes) !== undefined) {
      const m = s.memory;
      const memory: MemoryStats = { time: kubeTime(nsToMs(m.timestamp) || reading.time), workingSetBytes: u64(m.workingSetBytes) };
      for (const [k, v] of [['availableBytes', m.availableBytes], ['usageBytes', m.usageBytes], ['rssBytes', m.rssBytes], ['pageFaults', m.pageFaults], ['majorPageFaults', m.majorPageFaults]] as const) {
        const n = u64(v);
        // containerd answers 0 available bytes for a container without a memory limit: unknown, not none
        if (n !== undefined && !(k === 'availableBytes' && n === 0)) memory[k] = n;
      }
      out.memory = memory;
    }
    if (s?.writableLayer) {
      out.rootfs = fsStats(kubeTime(nsToMs(s.writableLayer.timestamp) || reading.time), imageFs, u64(s.writableLayer.usedBytes) ?? 0, u64(s.writableLayer.inodesUsed) ?? 0);
    }
    if (logDir) {
      const usage = await dirUsage(path.join(logDir, name));
      out.logs = fsStats(kubeTime(reading.time), reading.fs, usage.bytes, usage.inodes);
    }
    return out;
  }
}

function sum(values: readonly (number | undefined)[]): number {
  return values.reduce<number>((n, v) => n + (v ?? 0), 0);
}

/**
 * Whether the runtime keeps images on a filesystem other than the root dir's (kubelet's
 * HasDedicatedImageFs: the devices of the two differ). False when the runtime reports none.
 */
export async function hasDedicatedImageFs(rootDir: string, images: Pick<ImageService, 'imageFsInfo'>): Promise<boolean> {
  const mount = (await images.imageFsInfo())[0]?.fsId?.mountpoint;
  if (!mount) return false;
  const [a, b] = await Promise.all([stat(rootDir), stat(mount)]);
  return a.dev !== b.dev;
}
