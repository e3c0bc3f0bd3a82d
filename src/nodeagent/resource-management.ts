/**
 * The node agent's resource management, built from its configuration as kubelet's Run builds it:
 * the summary stats provider (node, image filesystem, pods and containers), image garbage
 * collection by disk usage, the QoS cgroups (kubepods, burstable, besteffort, one per pod) when
 * --cgroups-per-qos is on, and the eviction manager, whose pressure conditions the node reports and
 * whose admit handler the pod lifecycle asks. The pod lifecycle is given later: eviction kills pods
 * through it.
 */
import type { Logger } from 'pino';
import type { EventRecorder } from '../client/events';
import { CgroupfsManager } from './cm/cgroup-manager';
import { QosCgroupManager, kubepodsResources } from './cm/qos-cgroups';
import type { NodeAgentConfig } from './config/types';
import { EvictionManager } from './eviction/eviction-manager';
import { ImageGCManager } from './images/image-gc';
import type { NodeHost } from './node/host';
import type { PodLifecycle } from './pods';
import { CriStatsClient } from './stats/cri-stats-client';
import { LinuxNodeStats } from './stats/node-stats';
import { SummaryProvider, hasDedicatedImageFs } from './stats/summary-provider';
import { PodVolumeStats } from './stats/volume-stats';
import type { ContainerRuntime, ImageService, Pod, RuntimeService } from './types';

export interface ResourceManagementDeps {
  config: NodeAgentConfig;
  nodeName: string;
  host: NodeHost;
  runtime: RuntimeService;
  images: ImageService;
  /** `process` runs no containers in cgroups and has no CRI statistics */
  runtimeType: string;
  recorder: Pick<EventRecorder, 'event'>;
  logger: Logger;
}

export interface ResourceManagement {
  stats: SummaryProvider;
  eviction: EvictionManager;
  /** undefined when --cgroups-per-qos is off (or the runtime runs no cgroups) */
  qos?: QosCgroupManager;
  /** the pod lifecycle the eviction manager evicts through, once it exists */
  attach(lifecycle: PodLifecycle, containerRuntime: ContainerRuntime): void;
  start(): void;
  stop(): Promise<void>;
}

export async function createResourceManagement(d: ResourceManagementDeps): Promise<ResourceManagement> {
  const { config, logger } = d;
  let lifecycle: PodLifecycle | undefined;
  let containerRuntime: ContainerRuntime | undefined;
  const activePods = (): Pod[] => lifecycle?.activePods() ?? [];
  const nodeRef = { apiVersion: 'v1', kind: 'Node', metadata: { name: d.nodeName, uid: d.nodeName } };
  const nodeEvent = (type: 'Normal' | 'Warning', reason: string, message: string): void => void d.recorder.event(nodeRef, type, reason, message);

  const nodeStats = new LinuxNodeStats({ rootDir: config.rootDir });
  const criStats = d.runtimeType === 'process' ? undefined : new CriStatsClient({ endpoint: config.containerRuntimeEndpoint, timeoutMs: config.runtimeRequestTimeoutMs });
  const volumeStats = new PodVolumeStats({ rootDir: config.rootDir, node: nodeStats, cacheMs: config.volumeStatsAggPeriodMs });
  const stats = new SummaryProvider({
    nodeName: d.nodeName,
    node: nodeStats,
    runtime: d.runtime,
    images: d.images,
    containerStats: criStats,
    podLogsDir: config.podLogsDir,
    volumeStats: (uid) => volumeStats.forPod(uid),
  });
  const imageGC = new ImageGCManager({
    policy: { highThresholdPercent: config.imageGCHighThresholdPercent, lowThresholdPercent: config.imageGCLowThresholdPercent, minAgeMs: config.imageMinimumGCAgeMs },
    images: d.images,
    runtime: d.runtime,
    imageFsStats: () => stats.imageFsStats(),
    sandboxImage: config.podInfraContainerImage,
    event: nodeEvent,
    logger: logger.child({ component: 'image-gc' }),
  });
  let qos: QosCgroupManager | undefined;
  if (config.cgroupsPerQOS && d.runtimeType !== 'process') {
    if (config.cgroupDriver !== 'cgroupfs') throw new Error(`--cgroup-driver ${config.cgroupDriver} is not supported with --cgroups-per-qos: use cgroupfs, or --cgroups-per-qos=false`);
    qos = new QosCgroupManager({
      cgroups: new CgroupfsManager(),
      cgroupRoot: config.cgroupRoot,
      activePods,
      enforceCpuLimits: config.cpuCFSQuota,
      cpuPeriodUs: config.cpuCFSQuotaPeriodMs * 1000,
      podPidsLimit: config.podPidsLimit,
      logger: logger.child({ component: 'qos-cgroups' }),
    });
    const machine = await d.host.machineInfo();
    // cgroups that cannot be written stop start-up, as kubelet refuses to start
    qos.setup(
      kubepodsResources({
        cpuCores: machine.numCores,
        memoryBytes: machine.memoryCapacityBytes,
        kubeReserved: config.kubeReserved,
        systemReserved: config.systemReserved,
        enforceNodeAllocatable: config.enforceNodeAllocatable,
      }),
    );
  }
  const eviction = new EvictionManager({
    thresholds: config.evictionThresholds,
    pressureTransitionPeriodMs: config.evictionPressureTransitionPeriodMs,
    maxPodGracePeriodSeconds: config.evictionMaxPodGracePeriod,
    stats,
    activePods,
    killPod: (pod, status, grace) => lifecycle!.evictPod(pod, status, grace),
    podCleanedUp: (pod) => !activePods().some((p) => p.metadata?.uid === pod.metadata?.uid),
    deleteAllUnusedContainers: async () =>
      void (await containerRuntime?.garbageCollect(
        { minAgeMs: config.minimumContainerTTLMs, maxPerPodContainer: config.maxPerPodContainerCount, maxContainers: config.maxContainerCount },
        lifecycle?.allSourcesReady() ?? false,
        true,
      )),
    deleteUnusedImages: () => imageGC.deleteUnusedImages(),
    hasDedicatedImageFs: () => hasDedicatedImageFs(config.rootDir, d.images),
    events: { pod: (pod, type, reason, message) => void d.recorder.event(pod, type, reason, message), node: nodeEvent },
    logger: logger.child({ component: 'eviction' }),
  });
  return {
    stats,
    eviction,
    qos,
    attach(l, r) {
      lifecycle = l;
      containerRuntime = r;
    },
    start() {
      eviction.start();
      imageGC.start();
      qos?.start();
    },
    async stop() {
      await eviction.stop();
      await imageGC.stop();
      qos?.stop();
      criStats?.close();
    },
  };
}
