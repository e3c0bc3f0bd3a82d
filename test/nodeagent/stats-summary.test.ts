/**
 * The summary provider: node numbers from /proc and cgroup fixtures, pods and containers from the
 * runtime's sandboxes, containers and container stats, CPU rates from successive samples, log
 * usage from the pod logs dir, and /metrics/resource from the result.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { ContainerStats__Output } from '../../src/nodeagent/cri/generated/runtime/v1/ContainerStats';
import { resourceMetricsText } from '../../src/nodeagent/server/stats';
import { LinuxNodeStats, procStatCpuNs, type NodeReading, type NodeStatsSource } from '../../src/nodeagent/stats/node-stats';
import { hasDedicatedImageFs, SummaryProvider } from '../../src/nodeagent/stats/summary-provider';
import { PodVolumeStats } from '../../src/nodeagent/stats/volume-stats';

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stats-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const GiB = 2 ** 30;
const MiB = 2 ** 20;

class FakeNode implements NodeStatsSource {
  cpuNs = 10e9;
  time = Date.parse('2026-01-01T00:00:10Z');
  async read(): Promise<NodeReading> {
    return {
      time: this.time,
      bootTimeMs: Date.parse('2026-01-01T00:00:00Z'),
      cpuUsageCoreNanoSeconds: this.cpuNs,
      memory: { capacityBytes: 8 * GiB, usageBytes: 3 * GiB, workingSetBytes: 2 * GiB, rssBytes: GiB, pageFaults: 10, majorPageFaults: 1 },
      fs: { capacityBytes: 100 * GiB, availableBytes: 40 * GiB, inodes: 1000, inodesFree: 600 },
      maxPid: 4096,
      numProcesses: 300,
    };
  }
  async fsOf(dir: string) {
    if (dir !== '/var/lib/containerd/snapshots') throw new Error(`unexpected ${dir}`);
    return { capacityBytes: 50 * GiB, availableBytes: 10 * GiB, inodes: 500, inodesFree: 100 };
  }
}

const ns = (iso: string) => String(BigInt(Date.parse(iso)) * 1_000_000n);
const u = (n: number) => ({ value: String(n) });

function runtime() {
  const sandboxes = [
    { id: 's-old', metadata: { name: 'web', namespace: 'shop', uid: 'uid-1', attempt: 0 }, state: 'SANDBOX_NOTREADY', createdAt: ns('2026-01-01T00:00:01Z'), labels: {}, annotations: {}, runtimeHandler: '' },
    { id: 's-1', metadata: { name: 'web', namespace: 'shop', uid: 'uid-1', attempt: 1 }, state: 'SANDBOX_READY', createdAt: ns('2026-01-01T00:00:02Z'), labels: {}, annotations: {}, runtimeHandler: '' },
  ];
  const labels = (name: string) => ({ 'io.kubernetes.pod.uid': 'uid-1', 'io.kubernetes.container.name': name, 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'shop' });
  const containers = [
    { id: 'c-app', podSandboxId: 's-1', metadata: { name: 'app', attempt: 0 }, state: 'CONTAINER_RUNNING', createdAt: ns('2026-01-01T00:00:03Z'), labels: labels('app') },
    { id: 'c-side', podSandboxId: 's-1', metadata: { name: 'side', attempt: 0 }, state: 'CONTAINER_RUNNING', createdAt: ns('2026-01-01T00:00:04Z'), labels: labels('side') },
    { id: 'c-dead', podSandboxId: 's-1', metadata: { name: 'app', attempt: 0 }, state: 'CONTAINER_EXITED', createdAt: ns('2026-01-01T00:00:01Z'), labels: labels('app') },
  ];
  const stats = { app: 2e9, side: 1e9 };
  const at = { t: '2026-01-01T00:00:10Z' };
  const list = async (): Promise<ContainerStats__Output[]> =>
    (['app', 'side'] as const).map((name) => ({
      attributes: { id: `c-${name}`, metadata: { name, attempt: 0 }, labels: labels(name), annotations: {} },
      cpu: { timestamp: ns(at.t), usageCoreNanoSeconds: u(stats[name]), usageNanoCores: u(0) },
      memory: { timestamp: ns(at.t), workingSetBytes: u(name === 'app' ? 30 * MiB : 10 * MiB), availableBytes: u(0), usageBytes: u(40 * MiB), rssBytes: u(5 * MiB), pageFaults: u(7), majorPageFaults: u(0) },
      writableLayer: { timestamp: ns(at.t), fsId: { mountpoint: '/x' }, usedBytes: u(4096), inodesUsed: u(3) },
    }));
  return {
    stats,
    at,
    rt: { listPodSandbox: async () => sandboxes, listContainers: async () => containers } as never,
    images: { imageFsInfo: async () => [{ timestamp: ns(at.t), fsId: { mountpoint: '/var/lib/containerd/snapshots' }, usedBytes: u(3 * GiB), inodesUsed: u(50) }] } as never,
    containerStats: { listContainerStats: list },
  };
}

t.test('the node: cpu, memory, filesystems, rlimit; the image filesystem from ImageFsInfo and its mount', async (t) => {
  const node = new FakeNode();
  const r = runtime();
  const p = new SummaryProvider({ nodeName: 'n1', node, runtime: r.rt, images: r.images, containerStats: r.containerStats });
  const s = await p.summary(false);
  t.equal(s.node.nodeName, 'n1');
  t.equal(s.node.startTime, '2026-01-01T00:00:00Z');
  t.same(s.node.memory, { time: '2026-01-01T00:00:10Z', availableBytes: 6 * GiB, usageBytes: 3 * GiB, workingSetBytes: 2 * GiB, rssBytes: GiB, pageFaults: 10, majorPageFaults: 1 });
  t.same(s.node.fs, { time: '2026-01-01T00:00:10Z', availableBytes: 40 * GiB, capacityBytes: 100 * GiB, usedBytes: 60 * GiB, inodesFree: 600, inodes: 1000, inodesUsed: 400 });
  t.same(s.node.runtime?.imageFs, { time: '2026-01-01T00:00:10Z', availableBytes: 10 * GiB, capacityBytes: 50 * GiB, usedBytes: 3 * GiB, inodesFree: 100, inodes: 500, inodesUsed: 50 });
  t.same(s.node.rlimit, { time: '2026-01-01T00:00:10Z', maxpid: 4096, curproc: 300 });
  t.equal(s.node.cpu?.usageCoreNanoSeconds, 10e9);
  t.equal(s.node.cpu?.usageNanoCores, undefined, 'no rate before a second sample');
  t.same(await p.imageFsStats(), s.node.runtime?.imageFs, 'the image filesystem alone, for image GC');
  node.cpuNs += 1e9;
  node.time += 2000;
  const s2 = await p.summary(false);
  t.equal(s2.node.cpu?.usageNanoCores, 0.5e9, 'one core-second over two seconds: half a core');
});

t.test('pods: the ready sandbox, running containers with cpu, memory, rootfs and logs; pod sums', async (t) => {
  const logs = tmp(t);
  write(path.join(logs, 'shop_web_uid-1/app/0.log'), 'x'.repeat(1000));
  write(path.join(logs, 'shop_web_uid-1/app/0.log.20260101'), 'y'.repeat(24));
  const r = runtime();
  const p = new SummaryProvider({ nodeName: 'n1', node: new FakeNode(), runtime: r.rt, images: r.images, containerStats: r.containerStats, podLogsDir: logs });
  const s = await p.summary(false);
  t.equal(s.pods.length, 1);
  const pod = s.pods[0];
  t.same(pod.podRef, { name: 'web', namespace: 'shop', uid: 'uid-1' });
  t.equal(pod.startTime, '2026-01-01T00:00:02Z', 'the ready sandbox, not the old one');
  t.same(pod.containers.map((c) => c.name), ['app', 'side'], 'the exited container is left out');
  const app = pod.containers[0];
  t.equal(app.startTime, '2026-01-01T00:00:03Z');
  t.equal(app.cpu?.usageCoreNanoSeconds, 2e9);
  t.equal(app.memory?.workingSetBytes, 30 * MiB);
  t.equal(app.memory?.availableBytes, undefined, 'no limit: no available bytes');
  t.equal(app.cpu?.usageNanoCores, undefined, 'the runtime first 0 is not a rate');
  t.equal(app.rootfs?.usedBytes, 4096);
  t.equal(app.rootfs?.capacityBytes, 50 * GiB, 'rootfs lives on the image filesystem');
  t.equal(app.logs?.usedBytes, 1024, 'both log files');
  t.equal(app.logs?.capacityBytes, 100 * GiB, 'logs live on nodefs');
  t.equal(pod.cpu?.usageCoreNanoSeconds, 3e9);
  t.equal(pod.memory?.workingSetBytes, 40 * MiB);
  t.equal(pod['ephemeral-storage']?.usedBytes, 4096 * 2 + 1024);
  // a second sample two seconds later: the rates
  r.stats.app += 1e9;
  r.stats.side += 0.5e9;
  r.at.t = '2026-01-01T00:00:12Z';
  const s2 = await p.summary(false);
  t.equal(s2.pods[0].containers[0].cpu?.usageNanoCores, 0.5e9);
  t.equal(s2.pods[0].cpu?.usageNanoCores, 0.75e9);
});

t.test('cpu and memory only: no filesystem is read; /metrics/resource from the summary', async (t) => {
  const r = runtime();
  let fsCalls = 0;
  const images = { imageFsInfo: async () => (fsCalls++, []) } as never;
  const p = new SummaryProvider({ nodeName: 'n1', node: new FakeNode(), runtime: r.rt, images, containerStats: r.containerStats, podLogsDir: tmp(t) });
  const s = await p.summary(true);
  t.equal(fsCalls, 0);
  t.equal(s.pods[0].containers[0].logs, undefined);
  const text = resourceMetricsText(s);
  const at = Date.parse('2026-01-01T00:00:10Z');
  t.match(text, `node_cpu_usage_seconds_total 10 ${at}`);
  t.match(text, `node_memory_working_set_bytes ${2 * GiB} ${at}`);
  t.match(text, `container_cpu_usage_seconds_total{container="app",namespace="shop",pod="web"} 2 ${at}`);
  t.match(text, `container_memory_working_set_bytes{container="side",namespace="shop",pod="web"} ${10 * MiB} ${at}`);
  t.match(text, `pod_memory_working_set_bytes{namespace="shop",pod="web"} ${40 * MiB} ${at}`);
  t.match(text, 'scrape_error 0');
});

t.test('without container stats (the process runtime) pods are listed without cpu and memory', async (t) => {
  const r = runtime();
  const p = new SummaryProvider({ nodeName: 'n1', node: new FakeNode(), runtime: r.rt, images: r.images });
  const s = await p.summary(false);
  t.equal(s.pods[0].containers.length, 2);
  t.equal(s.pods[0].cpu, undefined);
  t.equal(s.pods[0].containers[0].memory, undefined);
});

t.test('LinuxNodeStats: cgroup v1 root controllers, else /proc', async (t) => {
  const dir = tmp(t);
  const proc = path.join(dir, 'proc');
  write(path.join(proc, 'meminfo'), 'MemTotal:       1000 kB\nMemFree:         200 kB\nInactive(file):  100 kB\nAnonPages:        50 kB\n');
  write(path.join(proc, 'stat'), 'cpu  100 10 50 900 5 2 3 4 0 0\ncpu0 1 1 1 1\nbtime 1767225600\n');
  write(path.join(proc, 'loadavg'), '0.10 0.20 0.30 2/345 999\n');
  write(path.join(proc, 'sys/kernel/pid_max'), '65536\n');
  write(path.join(proc, 'vmstat'), 'pgfault 77\npgmajfault 3\n');
  const v2 = new LinuxNodeStats({ rootDir: dir, procDir: proc, cgroupDir: path.join(dir, 'cgroup'), now: () => 5 });
  const r2 = await v2.read();
  t.equal(r2.bootTimeMs, 1767225600 * 1000);
  t.equal(r2.cpuUsageCoreNanoSeconds, procStatCpuNs('cpu  100 10 50 900 5 2 3 4 0 0'));
  t.equal(r2.cpuUsageCoreNanoSeconds, (100 + 10 + 50 + 2 + 3 + 4) * 1e7);
  t.same(r2.memory, { capacityBytes: 1000 * 1024, usageBytes: 800 * 1024, workingSetBytes: 700 * 1024, rssBytes: 50 * 1024, pageFaults: 77, majorPageFaults: 3 });
  t.equal(r2.maxPid, 65536);
  t.equal(r2.numProcesses, 345);
  t.ok(r2.fs.capacityBytes > 0);
  const cg = path.join(dir, 'cgroup');
  write(path.join(cg, 'cpuacct/cpuacct.usage'), '123456789\n');
  write(path.join(cg, 'memory/memory.usage_in_bytes'), '500000\n');
  write(path.join(cg, 'memory/memory.stat'), 'cache 1\ntotal_inactive_file 100000\ntotal_rss 250000\ntotal_pgfault 9\ntotal_pgmajfault 1\n');
  const r1 = await v2.read();
  t.equal(r1.cpuUsageCoreNanoSeconds, 123456789);
  t.same(r1.memory, { capacityBytes: 1000 * 1024, usageBytes: 500000, workingSetBytes: 400000, rssBytes: 250000, pageFaults: 9, majorPageFaults: 1 });
});

t.test('LinuxNodeStats on this machine gives plausible numbers', async (t) => {
  const r = await new LinuxNodeStats({ rootDir: os.tmpdir() }).read();
  t.ok(r.memory.capacityBytes > 0 && r.memory.workingSetBytes > 0 && r.memory.workingSetBytes <= r.memory.capacityBytes);
  t.ok(r.cpuUsageCoreNanoSeconds > 0);
  t.ok(r.numProcesses > 0 && r.maxPid > r.numProcesses);
});

t.test('volumes: the local volumes of a pod measured under the root dir, cached for the period, in ephemeral-storage', async (t) => {
  const root = tmp(t);
  const vols = path.join(root, 'pods/uid-1/volumes');
  write(path.join(vols, 'kubernetes.io~empty-dir/scratch/a/b.bin'), 'z'.repeat(3000));
  write(path.join(vols, 'kubernetes.io~configmap/settings/key'), 'v'.repeat(10));
  fs.mkdirSync(path.join(vols, 'kubernetes.io~host-path/ignored'), { recursive: true });
  let clock = 0;
  const node = new FakeNode();
  const volumeStats = new PodVolumeStats({ rootDir: root, node: { fsOf: async () => ({ capacityBytes: 100, availableBytes: 40, inodes: 10, inodesFree: 6 }) }, cacheMs: 60_000, now: () => clock });
  const first = await volumeStats.forPod('uid-1');
  t.same(
    first.map((v) => [v.name, v.usedBytes, v.inodesUsed, v.capacityBytes]),
    [
      ['scratch', 3000, 2, 100],
      ['settings', 10, 1, 100],
    ],
  );
  write(path.join(vols, 'kubernetes.io~empty-dir/scratch/more'), 'm'.repeat(500));
  t.equal((await volumeStats.forPod('uid-1'))[0].usedBytes, 3000, 'cached within the period');
  clock += 60_000;
  t.equal((await volumeStats.forPod('uid-1'))[0].usedBytes, 3500, 'measured again after it');
  const r = runtime();
  const p = new SummaryProvider({ nodeName: 'n1', node, runtime: r.rt, images: r.images, containerStats: r.containerStats, volumeStats: (uid) => volumeStats.forPod(uid) });
  const s = await p.summary(false);
  t.same(s.pods[0].volume?.map((v) => v.name), ['scratch', 'settings']);
  t.equal(s.pods[0]['ephemeral-storage']?.usedBytes, 4096 * 2 + 3500 + 10, 'rootfs of both containers and the volumes');
});

t.test('a dedicated image filesystem is one on another device than the root dir', async (t) => {
  const dir = tmp(t);
  const at = (mountpoint: string) => ({ imageFsInfo: async () => [{ timestamp: '1', fsId: { mountpoint }, usedBytes: null, inodesUsed: null }] }) as never;
  t.equal(await hasDedicatedImageFs(dir, at(dir)), false, 'the same filesystem');
  t.equal(await hasDedicatedImageFs(dir, at('/proc')), true, 'proc is another device');
  t.equal(await hasDedicatedImageFs(dir, { imageFsInfo: async () => [] } as never), false);
});
