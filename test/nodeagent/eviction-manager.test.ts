/**
 * The eviction manager with a fake summary, a fake clock and a fake pod killer: hard and soft
 * thresholds, grace periods, the pressure transition period, minimum reclaim, node-level reclaim
 * before evictions, kubelet's ranking and messages, critical pods, and the eviction admit handler.
 */
import pino from 'pino';
import t from 'tap';
import { parseThresholds, type EvictionSettings } from '../../src/nodeagent/config/eviction';
import { EvictionManager, type EvictedStatus, type EvictionManagerOptions } from '../../src/nodeagent/eviction/eviction-manager';
import { bytesText, rankMemoryPressure, rankPidPressure, rankFuncFor, evictionMessage } from '../../src/nodeagent/eviction/rank';
import { observe, thresholdsMet } from '../../src/nodeagent/eviction/signals';
import type { PodStats, Summary } from '../../src/nodeagent/server/stats';
import { NodeStatusAgent } from '../../src/nodeagent/node/node-status-agent';
import type { NodeObject } from '../../src/nodeagent/node/setters';
import type { RestClient } from '../../src/client/rest-client';
import type { Pod } from '../../src/nodeagent/types';

const Mi = 2 ** 20;
const Gi = 2 ** 30;
const T = '2026-01-01T00:00:00Z';

interface PodUse {
  pod: Pod;
  memory?: number;
  /** per container name */
  containers?: Record<string, { memory?: number; rootfs?: number; logs?: number }>;
}

function pod(name: string, opts: { requests?: Record<string, string>; limits?: Record<string, string>; priority?: number; containers?: string[]; annotations?: Record<string, string>; tolerations?: unknown[] } = {}): Pod {
  const names = opts.containers ?? [name];
  return {
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations: opts.annotations },
    spec: {
      priority: opts.priority,
      tolerations: opts.tolerations,
      containers: names.map((n) => ({ name: n, image: 'busybox', resources: { requests: opts.requests, limits: opts.limits } })),
    },
  };
}

class World {
  memoryAvailable = 1 * Gi;
  memoryWorkingSet = 3 * Gi;
  nodefs = { available: 50 * Gi, capacity: 100 * Gi, inodesFree: 1000, inodes: 2000 };
  pids = { max: 1000, cur: 100 };
  uses: PodUse[] = [];
  summaryCalls = 0;
  summary(): Summary {
    this.summaryCalls++;
    const pods: PodStats[] = this.uses.map((u) => {
      const containers = Object.entries(u.containers ?? { [String((u.pod.spec!.containers as { name: string }[])[0].name)]: { memory: u.memory } }).map(([name, c]) => ({
        name,
        startTime: T,
        memory: c.memory === undefined ? undefined : { time: T, workingSetBytes: c.memory },
        rootfs: c.rootfs === undefined ? undefined : { time: T, usedBytes: c.rootfs },
        logs: c.logs === undefined ? undefined : { time: T, usedBytes: c.logs },
      }));
      const memory = containers.reduce((n, c) => n + (c.memory?.workingSetBytes ?? 0), 0);
      return { podRef: { name: u.pod.metadata!.name!, namespace: 'default', uid: u.pod.metadata!.uid! }, startTime: T, containers, memory: { time: T, workingSetBytes: memory } };
    });
    return {
      node: {
        nodeName: 'n1',
        startTime: T,
        memory: { time: T, availableBytes: this.memoryAvailable, workingSetBytes: this.memoryWorkingSet },
        fs: { time: T, availableBytes: this.nodefs.available, capacityBytes: this.nodefs.capacity, inodesFree: this.nodefs.inodesFree, inodes: this.nodefs.inodes },
        runtime: { imageFs: { time: T, availableBytes: this.nodefs.available, capacityBytes: this.nodefs.capacity, inodesFree: this.nodefs.inodesFree, inodes: this.nodefs.inodes } },
        rlimit: { time: T, maxpid: this.pids.max, curproc: this.pids.cur },
      },
      pods,
    };
  }
}

function setup(settings: Partial<EvictionSettings>, over: Partial<EvictionManagerOptions> = {}) {
  const world = new World();
  const clock = { ms: 1_000_000, now: () => clock.ms };
  const kills: { pod: string; status: EvictedStatus; grace: number }[] = [];
  const events: string[] = [];
  const manager = new EvictionManager({
    thresholds: parseThresholds({ hard: {}, soft: {}, softGracePeriod: {}, minimumReclaim: {}, ...settings }),
    pressureTransitionPeriodMs: 5 * 60_000,
    maxPodGracePeriodSeconds: 30,
    stats: { summary: async () => world.summary() },
    activePods: () => world.uses.map((u) => u.pod),
    killPod: async (p, status, grace) => void kills.push({ pod: p.metadata!.name!, status, grace }),
    events: {
      pod: (p, type, reason, message) => void events.push(`${p.metadata!.name} ${type} ${reason}: ${message}`),
      node: (type, reason, message) => void events.push(`node ${type} ${reason}: ${message}`),
    },
    logger: pino({ level: 'silent' }),
    clock,
    ...over,
  });
  return { world, clock, kills, events, manager };
}

t.test('a hard memory threshold: MemoryPressure, one pod per pass evicted at once with kube reason and message', async (t) => {
  const { world, kills, events, manager } = setup({ hard: { 'memory.available': '500Mi' } });
  world.uses = [
    { pod: pod('small', { requests: { memory: '100Mi' } }), memory: 50 * Mi },
    { pod: pod('hog'), memory: 1263616 },
    { pod: pod('big', { requests: { memory: '1Gi' } }), memory: 800 * Mi },
  ];
  t.same(await manager.synchronize(), [], 'no pressure yet');
  t.same([...manager.conditions], []);
  world.memoryAvailable = 400 * Mi;
  const evicted = await manager.synchronize();
  t.same(evicted.map((p) => p.metadata?.name), ['hog'], 'the pod above its request (of 0) goes first');
  t.same([...manager.conditions], ['MemoryPressure']);
  t.same(kills, [{ pod: 'hog', grace: 0, status: { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory. Container hog was using 1234Ki, which exceeds its request of 0. ' } }]);
  t.same(events, ['node Warning EvictionThresholdMet: Attempting to reclaim memory', 'hog Warning Evicted: The node was low on resource: memory. Container hog was using 1234Ki, which exceeds its request of 0. ']);
  t.ok(manager.isUnderMemoryPressure());
});

t.test('a soft threshold acts only after its grace period, with the max pod grace period; the condition shows at once', async (t) => {
  const { world, clock, kills, manager } = setup({ soft: { 'memory.available': '500Mi' }, softGracePeriod: { 'memory.available': '1m30s' } });
  world.uses = [{ pod: pod('a'), memory: 10 * Mi }];
  world.memoryAvailable = 100 * Mi;
  t.same(await manager.synchronize(), []);
  t.same([...manager.conditions], ['MemoryPressure'], 'the node condition does not wait for the grace period');
  clock.ms += 60_000;
  t.same(await manager.synchronize(), [], 'a minute in: still within the grace period');
  clock.ms += 30_000;
  t.same((await manager.synchronize()).map((p) => p.metadata?.name), ['a']);
  t.equal(kills[0].grace, 30, 'soft evictions give evictionMaxPodGracePeriod');
  // the signal recovers then drops again: the grace period starts over
  world.memoryAvailable = Gi;
  await manager.synchronize();
  world.memoryAvailable = 100 * Mi;
  t.same(await manager.synchronize(), []);
  t.equal(kills.length, 1);
});

t.test('the pressure transition period holds the condition after the signal recovers', async (t) => {
  const { world, clock, manager } = setup({ hard: { 'memory.available': '500Mi' } }, { pressureTransitionPeriodMs: 60_000 });
  world.memoryAvailable = 100 * Mi;
  await manager.synchronize();
  world.memoryAvailable = 2 * Gi;
  clock.ms += 10_000;
  await manager.synchronize();
  t.same([...manager.conditions], ['MemoryPressure'], 'still reported within the period');
  clock.ms += 49_000;
  await manager.synchronize();
  t.same([...manager.conditions], ['MemoryPressure']);
  clock.ms += 1_000;
  await manager.synchronize();
  t.same([...manager.conditions], [], 'cleared once the period has passed without it');
});

t.test('minimum reclaim: a met threshold stays met until the signal is above it by the minimum', async (t) => {
  const { world, kills, manager } = setup({ hard: { 'memory.available': '500Mi' }, minimumReclaim: { 'memory.available': '200Mi' } });
  world.uses = [{ pod: pod('a'), memory: 10 * Mi }, { pod: pod('b'), memory: 5 * Mi }];
  world.memoryAvailable = 400 * Mi;
  await manager.synchronize();
  t.equal(kills.length, 1);
  world.memoryAvailable = 600 * Mi;
  world.uses = world.uses.slice(1);
  t.same((await manager.synchronize()).map((p) => p.metadata?.name), ['b'], '600Mi is above 500Mi but not above 500Mi + 200Mi');
  world.memoryAvailable = 701 * Mi;
  t.same(await manager.synchronize(), [], 'relieved');
});

t.test('disk pressure: dead containers and unused images are reclaimed first; pods only when that is not enough', async (t) => {
  const calls: string[] = [];
  const s = setup(
    { hard: { 'nodefs.available': '10%' } },
    {
      deleteAllUnusedContainers: async () => void calls.push('containers'),
      deleteUnusedImages: async () => {
        calls.push('images');
        s.world.nodefs.available = 20 * Gi;
      },
    },
  );
  s.world.uses = [{ pod: pod('a'), containers: { a: { rootfs: 5 * Gi, logs: Gi } } }];
  s.world.nodefs.available = 5 * Gi;
  t.same(await s.manager.synchronize(), []);
  t.same(calls, ['containers', 'images']);
  t.same(s.kills, [], 'image GC relieved the pressure');
  t.same([...s.manager.conditions], ['DiskPressure']);
  t.match(s.events, ['node Warning EvictionThresholdMet: Attempting to reclaim ephemeral-storage']);
  // images cannot help this time
  const again = setup({ hard: { 'nodefs.available': '10%' } }, { deleteAllUnusedContainers: async () => undefined, deleteUnusedImages: async () => undefined });
  again.world.uses = [
    { pod: pod('quiet'), containers: { quiet: { rootfs: 1 * Gi, logs: 0 } } },
    { pod: pod('noisy'), containers: { noisy: { rootfs: 3 * Gi, logs: Gi } } },
  ];
  again.world.nodefs.available = 5 * Gi;
  t.same((await again.manager.synchronize()).map((p) => p.metadata?.name), ['noisy']);
  t.equal(again.kills[0].status.message, 'The node was low on resource: ephemeral-storage. Container noisy was using 4Gi, which exceeds its request of 0. ');
});

t.test('critical pods are never evicted; the next in rank is', async (t) => {
  const { world, kills, manager } = setup({ hard: { 'memory.available': '500Mi' } });
  world.uses = [
    { pod: pod('static', { annotations: { 'kubernetes.io/config.source': 'file' } }), memory: Gi },
    { pod: pod('system', { priority: 2_000_000_000 }), memory: Gi },
    { pod: pod('user'), memory: 10 * Mi },
  ];
  world.memoryAvailable = 100 * Mi;
  t.same((await manager.synchronize()).map((p) => p.metadata?.name), ['user']);
  t.same(kills.map((k) => k.pod), ['user']);
});

t.test('PID pressure ranks by priority, lowest first; the condition is PIDPressure', async (t) => {
  const { world, kills, manager } = setup({ hard: { 'pid.available': '100' } });
  world.uses = [{ pod: pod('high', { priority: 100 }) }, { pod: pod('low', { priority: -5 }) }, { pod: pod('zero') }];
  world.pids.cur = 950;
  await manager.synchronize();
  t.same([...manager.conditions], ['PIDPressure']);
  t.same(kills.map((k) => k.pod), ['low']);
  t.equal(kills[0].status.message, 'The node was low on resource: pids. ');
  t.same(rankPidPressure(world.uses.map((u) => u.pod)).map((p) => p.metadata?.name), ['low', 'zero', 'high']);
});

t.test('memory ranking: above request first, then lower priority, then the larger use above request', async (t) => {
  const uses: Record<string, number> = { under: 50 * Mi, overLow: 300 * Mi, overHigh: 900 * Mi, overBig: 2 * Gi, nostats: -1 };
  const pods = [
    pod('under', { requests: { memory: '100Mi' } }),
    pod('overHigh', { priority: 1000 }),
    pod('overLow', { requests: { memory: '100Mi' } }),
    pod('overBig', { requests: { memory: '1Gi' } }),
    pod('nostats'),
  ];
  const stats = (p: Pod): PodStats | undefined => {
    const m = uses[p.metadata!.name!];
    if (m < 0) return undefined;
    return { podRef: { name: p.metadata!.name!, namespace: 'default', uid: p.metadata!.uid! }, startTime: T, containers: [], memory: { time: T, workingSetBytes: m } };
  };
  t.same(rankMemoryPressure(pods, stats).map((p) => p.metadata?.name), ['nostats', 'overBig', 'overLow', 'overHigh', 'under']);
  t.equal(rankFuncFor('memory.available', false), rankMemoryPressure);
});

t.test('messages: every container above its request, with its usage and request texts', async (t) => {
  const p = pod('two', { containers: ['a', 'b'], requests: { memory: '64Mi' } });
  const stats = (): PodStats => ({
    podRef: { name: 'two', namespace: 'default', uid: 'uid-two' },
    startTime: T,
    containers: [
      { name: 'a', startTime: T, memory: { time: T, workingSetBytes: 100 * Mi } },
      { name: 'b', startTime: T, memory: { time: T, workingSetBytes: 10 * Mi } },
    ],
  });
  const { message, annotations } = evictionMessage('memory', p, stats);
  t.equal(message, 'The node was low on resource: memory. Container a was using 100Mi, which exceeds its request of 64Mi. ');
  t.same(annotations, { offending_containers: 'a', offending_containers_usage: '100Mi', starved_resource: 'memory' });
  t.equal(bytesText(1263616), '1234Ki');
  t.equal(bytesText(1000), '1k', 'below 1Ki kube prints a decimal quantity');
  t.equal(bytesText(1025), '1025');
});

t.test('signals from the summary and percentage thresholds against capacity', async (t) => {
  const w = new World();
  const obs = observe(w.summary());
  t.same(obs['memory.available'], { available: Gi, capacity: 4 * Gi });
  t.same(obs['pid.available'], { available: 900, capacity: 1000 });
  t.same(obs['nodefs.inodesFree'], { available: 1000, capacity: 2000 });
  const thresholds = parseThresholds({ hard: { 'memory.available': '30%', 'nodefs.inodesFree': '40%' }, soft: {}, softGracePeriod: {}, minimumReclaim: {} });
  t.same(thresholdsMet(thresholds, obs, false).map((x) => x.signal), ['memory.available'], '1Gi < 30% of 4Gi; 1000 inodes free is not below 800');
});

t.test('admission: BestEffort pods are refused under memory pressure, others admitted; disk pressure refuses all but critical', async (t) => {
  const { world, clock, manager } = setup({ hard: { 'memory.available': '500Mi', 'nodefs.available': '1Gi' } });
  t.same(manager.admit(pod('be')), { admit: true }, 'no pressure');
  world.memoryAvailable = 100 * Mi;
  await manager.synchronize();
  t.same(manager.admit(pod('be')), { admit: false, reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' });
  t.same(manager.admit(pod('burstable', { requests: { memory: '10Mi' } })), { admit: true });
  t.same(manager.admit(pod('tolerant', { tolerations: [{ key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }] })), { admit: true });
  t.same(manager.admit(pod('crit', { annotations: { 'kubernetes.io/config.source': 'file' } })), { admit: true });
  world.nodefs.available = 100 * Mi;
  clock.ms += 1000;
  await manager.synchronize();
  t.same(manager.admit(pod('be')), { admit: false, reason: 'Evicted', message: 'The node had condition: [MemoryPressure DiskPressure]. ' });
  t.same(manager.admit(pod('burstable', { requests: { memory: '10Mi' } })), { admit: true }, 'memory pressure admits non-BestEffort whatever else');
  world.memoryAvailable = 2 * Gi;
  clock.ms += 10 * 60_000;
  await manager.synchronize();
  t.same([...manager.conditions], ['DiskPressure']);
  t.same(manager.admit(pod('burstable', { requests: { memory: '10Mi' } })), { admit: false, reason: 'Evicted', message: 'The node had condition: [DiskPressure]. ' });
});

t.test('start runs passes every interval and waits for an evicted pod to be cleaned up', async (t) => {
  let cleaned = false;
  const { world, kills, manager } = setup({ hard: { 'memory.available': '500Mi' } }, { monitoringIntervalMs: 20, podCleanedUp: () => cleaned, podCleanupPollMs: 10, clock: undefined });
  world.uses = [{ pod: pod('a'), memory: Mi }];
  world.memoryAvailable = 100 * Mi;
  manager.start();
  t.teardown(() => manager.stop());
  await new Promise((r) => setTimeout(r, 150));
  t.equal(kills.length, 1, 'no second pass while the evicted pod is not cleaned up');
  cleaned = true;
  await new Promise((r) => setTimeout(r, 150));
  t.ok(kills.length > 1, 'passes resume');
  await manager.stop();
});

t.test('node status reports the eviction manager conditions (soft thresholds too), not its own hard-threshold view', async (t) => {
  const { world, manager } = setup({ soft: { 'pid.available': '200' }, softGracePeriod: { 'pid.available': '1m' } });
  const roomy = { capacityBytes: 2 ** 34, availableBytes: 2 ** 33, inodes: 100, inodesFree: 50 };
  const status = new NodeStatusAgent({
    client: {} as RestClient,
    nodeName: 'n1',
    config: {},
    host: {
      machineInfo: async () => ({ numCores: 2, memoryCapacityBytes: 2 ** 32, hugePages: [], machineId: 'm', systemUuid: 's', bootId: 'b', kernelVersion: 'k', osImage: 'o', operatingSystem: 'linux', architecture: 'amd64' }),
      rootFs: async () => roomy,
      // what the host says is tight on memory: ignored once the eviction manager is the source
      measure: async () => ({ time: Date.now(), memoryCapacityBytes: 2 ** 32, memoryWorkingSetBytes: 2 ** 32, nodefs: roomy, imagefs: roomy, maxPid: 1000, numProcesses: 10 }),
      nodeAddress: async () => '10.0.0.1',
    },
    runtime: { version: async () => 'fake://1', status: async () => ({ runtimeReady: true, networkReady: true, message: '' }) },
    images: { listImages: async () => [] },
    agentVersion: 'v1.20.0',
    logger: pino({ level: 'silent' }),
    pressureConditions: () => manager.conditions,
  });
  const node: NodeObject = { metadata: { name: 'n1' } };
  world.pids.cur = 850;
  await manager.synchronize();
  await status.setNodeStatus(node);
  const conditions = Object.fromEntries((node.status?.conditions ?? []).map((c) => [c.type, c.status]));
  delete conditions.Ready;
  t.same(conditions, { MemoryPressure: 'False', DiskPressure: 'False', PIDPressure: 'True' });
});

t.test('local storage limits: emptyDir sizeLimit, the pod total, a container limit; evicted at once without any threshold', async (t) => {
  const { world, kills, manager } = setup({});
  const withVolume = pod('scratchy');
  (withVolume.spec as { volumes?: unknown[] }).volumes = [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }, { name: 'ram', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } }];
  const podLimit = pod('podlimit', { containers: ['a', 'b'], limits: { 'ephemeral-storage': '2Mi' } });
  const oneContainer = pod('greedy', { containers: ['x', 'y'], limits: { 'ephemeral-storage': '1Mi' } });
  const single = pod('single', { containers: ['s', 'u'] });
  ((single.spec!.containers as { resources: Record<string, unknown> }[])[1]).resources = { limits: { 'ephemeral-storage': '500Ki' } };
  const fine = pod('fine', { limits: { 'ephemeral-storage': '1Gi' } });
  world.uses = [
    { pod: withVolume, containers: { scratchy: { rootfs: 0, logs: 0 } } },
    { pod: podLimit, containers: { a: { rootfs: 3 * Mi, logs: 0 }, b: { rootfs: 2 * Mi, logs: 0 } } },
    { pod: oneContainer, containers: { x: { rootfs: 0, logs: 0 }, y: { rootfs: Mi, logs: Mi / 2 } } },
    { pod: single, containers: { s: { rootfs: 0, logs: 0 }, u: { rootfs: 400 * 1024, logs: 200 * 1024 } } },
    { pod: fine, containers: { fine: { rootfs: Mi, logs: Mi } } },
  ];
  const summary = world.summary.bind(world);
  world.summary = () => {
    const s = summary();
    s.pods[0].volume = [
      { name: 'scratch', time: T, usedBytes: 2 * Mi },
      { name: 'ram', time: T, usedBytes: 10 },
    ];
    return s;
  };
  const evicted = await manager.synchronize();
  t.same(evicted.map((p) => p.metadata?.name), ['scratchy', 'podlimit', 'greedy', 'single']);
  t.same(
    kills.map((k) => [k.pod, k.grace, k.status.message]),
    [
      ['scratchy', 0, 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". '],
      ['podlimit', 0, 'Pod ephemeral local storage usage exceeds the total limit of containers 4Mi. '],
      ['greedy', 0, 'Container y exceeded its local ephemeral storage limit "1Mi". '],
      ['single', 0, 'Pod ephemeral local storage usage exceeds the total limit of containers 500Ki. '],
    ],
  );
  t.same([...manager.conditions], [], 'no node condition for these');
});
