/**
 * The summary API (kubelet's stats/v1alpha1 Summary, served at /stats/summary) and the resource
 * metrics kubelet derives from it (/metrics/resource). A StatsProvider gathers the numbers (from
 * the runtime's ListContainerStats / ListPodSandboxStats and the node's /proc); the server only
 * serializes them.
 */

export interface CpuStats {
  time: string;
  usageNanoCores?: number;
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface FsStats {
  time: string;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CpuStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
}

export interface VolumeStats extends FsStats {
  name: string;
  pvcRef?: { name: string; namespace: string };
}

export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerStats[];
  cpu?: CpuStats;
  memory?: MemoryStats;
  volume?: VolumeStats[];
  'ephemeral-storage'?: FsStats;
}

export interface NodeStats {
  nodeName: string;
  systemContainers?: ContainerStats[];
  startTime: string;
  cpu?: CpuStats;
  memory?: MemoryStats;
  fs?: FsStats;
  runtime?: { imageFs?: FsStats };
  rlimit?: { time: string; maxpid?: number; curproc?: number };
}

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

/** gathers the summary; onlyCpuAndMemory leaves file systems and volumes out (kubelet's `only_cpu_and_memory`) */
export interface StatsProvider {
  summary(onlyCpuAndMemory: boolean): Promise<Summary>;
}

/** the summary with file systems, volumes and rlimit dropped (what kubelet answers for only_cpu_and_memory) */
export function cpuAndMemoryOnly(s: Summary): Summary {
  const node: NodeStats = { nodeName: s.node.nodeName, startTime: s.node.startTime, cpu: s.node.cpu, memory: s.node.memory };
  if (s.node.systemContainers) node.systemContainers = s.node.systemContainers.map((c) => ({ name: c.name, startTime: c.startTime, cpu: c.cpu, memory: c.memory }));
  const pods = s.pods.map((p) => ({
    podRef: p.podRef,
    startTime: p.startTime,
    cpu: p.cpu,
    memory: p.memory,
    containers: p.containers.map((c) => ({ name: c.name, startTime: c.startTime, cpu: c.cpu, memory: c.memory })),
  }));
  return { node, pods };
}

function escape(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labels(l: Record<string, string>): string {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${escape(v)}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/**
 * kubelet's /metrics/resource exposition: cumulative CPU seconds and working set bytes of the node,
 * each pod and each container, stamped with the sample time, and scrape_error 1 when the summary
 * could not be had.
 */
export function resourceMetricsText(summary: Summary | undefined): string {
  const out: string[] = [];
  const family = (name: string, help: string, type: 'counter' | 'gauge', samples: [Record<string, string>, number, string][]) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [l, v, time] of samples) {
      const ms = Date.parse(time);
      out.push(`${name}${labels(l)} ${v}${Number.isNaN(ms) ? '' : ` ${ms}`}`);
    }
  };
  const cpu = (c: CpuStats | undefined) => (c?.usageCoreNanoSeconds === undefined ? undefined : c.usageCoreNanoSeconds / 1e9);
  const containers: { l: Record<string, string>; c: ContainerStats }[] = [];
  for (const p of summary?.pods ?? []) for (const c of p.containers) containers.push({ l: { container: c.name, namespace: p.podRef.namespace, pod: p.podRef.name }, c });
  const pods = summary?.pods ?? [];
  type Sample = [Record<string, string>, number, string];
  const pick = <T>(items: T[], f: (t: T) => Sample | undefined): Sample[] => items.map(f).filter((s): s is Sample => s !== undefined);
  family('container_cpu_usage_seconds_total', '[ALPHA] Cumulative cpu time consumed by the container in core-seconds', 'counter', pick(containers, ({ l, c }) => (cpu(c.cpu) === undefined ? undefined : [l, cpu(c.cpu)!, c.cpu!.time])));
  family('container_memory_working_set_bytes', '[ALPHA] Current working set of the container in bytes', 'gauge', pick(containers, ({ l, c }) => (c.memory?.workingSetBytes === undefined ? undefined : [l, c.memory.workingSetBytes, c.memory.time])));
  const node = summary?.node;
  family('node_cpu_usage_seconds_total', '[ALPHA] Cumulative cpu time consumed by the node in core-seconds', 'counter', node && cpu(node.cpu) !== undefined ? [[{}, cpu(node.cpu)!, node.cpu!.time]] : []);
  family('node_memory_working_set_bytes', '[ALPHA] Current working set of the node in bytes', 'gauge', node?.memory?.workingSetBytes !== undefined ? [[{}, node.memory.workingSetBytes, node.memory.time]] : []);
  const podLabels = (p: PodStats) => ({ namespace: p.podRef.namespace, pod: p.podRef.name });
  family('pod_cpu_usage_seconds_total', '[ALPHA] Cumulative cpu time consumed by the pod in core-seconds', 'counter', pick(pods, (p) => (cpu(p.cpu) === undefined ? undefined : [podLabels(p), cpu(p.cpu)!, p.cpu!.time])));
  family('pod_memory_working_set_bytes', '[ALPHA] Current working set of the pod in bytes', 'gauge', pick(pods, (p) => (p.memory?.workingSetBytes === undefined ? undefined : [podLabels(p), p.memory.workingSetBytes, p.memory.time])));
  out.push('# HELP scrape_error [ALPHA] 1 if there was an error while getting container metrics, 0 otherwise', '# TYPE scrape_error gauge', `scrape_error ${summary ? 0 : 1}`);
  return `${out.join('\n')}\n`;
}
