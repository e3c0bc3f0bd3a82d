/**
 * Cgroups per QoS class (kubelet 1.20's node allocatable cgroup, qosContainerManager and
 * podContainerManager with --cgroups-per-qos and the cgroupfs driver):
 *
 *   <cgroup-root>/kubepods               cpu shares of the node's cpus, memory limited to allocatable
 *   <cgroup-root>/kubepods/burstable     cpu shares of the Burstable pods' requests (kept up to date)
 *   <cgroup-root>/kubepods/besteffort    the minimum shares
 *   .../pod<uid>                         the pod's own limits (Guaranteed pods directly under kubepods)
 *
 * A pod's cgroup is made before its sandbox, whose cgroup parent it is; the cgroups of pods no
 * longer active are removed once nothing runs in them.
 */
import type { Logger } from 'pino';
import { parseQuantity } from '../../api/kinds/core/quantity';
import { podQosClass, milliCpuToShares, CFS_QUOTA_PERIOD_US } from '../kuberuntime/resources';
import type { Pod } from '../types';
import { CgroupfsManager } from './cgroup-manager';
import { MIN_SHARES, podTotal, resourceConfigForPod } from './pod-resources';

/** kubelet's periodic QoS cgroup update */
export const QOS_UPDATE_PERIOD_MS = 60_000;
export const POD_CGROUP_CLEANUP_PERIOD_MS = 10_000;

export interface QosCgroupManagerOptions {
  cgroups: CgroupfsManager;
  /** --cgroup-root ("" and "/" are the hierarchy's root) */
  cgroupRoot?: string;
  /** the pods admitted and not finished */
  activePods: () => Pod[];
  /** --cpu-cfs-quota */
  enforceCpuLimits: boolean;
  /** --cpu-cfs-quota-period, in microseconds */
  cpuPeriodUs?: number;
  /** --pod-max-pids: each pod cgroup's pids limit when above 0 */
  podPidsLimit?: number;
  logger: Logger;
}

export class QosCgroupManager {
  readonly #o: QosCgroupManagerOptions;
  readonly #root: string[];
  readonly #timers: NodeJS.Timeout[] = [];

  constructor(opts: QosCgroupManagerOptions) {
    this.#o = opts;
    this.#root = (opts.cgroupRoot ?? '').split('/').filter(Boolean);
  }

  get kubepods(): string[] {
    return [...this.#root, 'kubepods'];
  }

  /**
   * Makes kubepods with the node's resources and the two QoS cgroups (the container manager's
   * setupNode); throws when the hierarchy cannot be written, as kubelet refuses to start then.
   */
  setup(node: { cpuMilli: number; memoryBytes?: number }): void {
    const { cgroups } = this.#o;
    cgroups.create(this.kubepods, { cpuShares: milliCpuToShares(node.cpuMilli), ...(node.memoryBytes ? { memoryLimit: node.memoryBytes } : {}) });
    for (const qos of ['burstable', 'besteffort']) {
      const name = [...this.kubepods, qos];
      if (!cgroups.exists(name)) cgroups.create(name, {});
    }
    this.updateQosCgroups();
  }

  /** updates the QoS cgroups every minute and removes the cgroups of pods gone every 10 s */
  start(): void {
    if (this.#timers.length) return;
    const every = (ms: number, fn: () => void) => {
      const timer = setInterval(() => {
        try {
          fn();
        } catch (err) {
          this.#o.logger.warn({ err: String(err) }, 'QoS cgroup housekeeping failed');
        }
      }, ms);
      timer.unref();
      this.#timers.push(timer);
    };
    every(QOS_UPDATE_PERIOD_MS, () => this.updateQosCgroups());
    every(POD_CGROUP_CLEANUP_PERIOD_MS, () => this.cleanupOrphanedPodCgroups());
  }

  stop(): void {
    for (const t of this.#timers.splice(0)) clearInterval(t);
  }

  /** the pod's cgroup name: kubepods[/burstable|/besteffort]/pod<uid> */
  podCgroupName(pod: Pod): string[] {
    const qos = podQosClass(pod);
    const parent = qos === 'Guaranteed' ? this.kubepods : [...this.kubepods, qos.toLowerCase()];
    return [...parent, `pod${pod.metadata?.uid ?? ''}`];
  }

  /**
   * Makes the pod's cgroup with its resources when it does not exist yet (the pod container
   * manager's EnsureExists; the QoS cgroups follow a new pod); answers its cgroupfs name, the
   * sandbox's cgroup parent.
   */
  ensurePod(pod: Pod): string {
    const name = this.podCgroupName(pod);
    if (!this.#o.cgroups.exists(name)) {
      const resources = resourceConfigForPod(pod, this.#o.enforceCpuLimits, this.#o.cpuPeriodUs ?? CFS_QUOTA_PERIOD_US);
      if ((this.#o.podPidsLimit ?? 0) > 0) resources.pidsLimit = this.#o.podPidsLimit;
      this.#o.cgroups.create(name, resources);
      this.updateQosCgroups();
    }
    return CgroupfsManager.cgroupfsName(name);
  }

  /** burstable shares from the active Burstable pods' cpu requests; besteffort at the minimum (setCPUCgroupConfig) */
  updateQosCgroups(): void {
    const burstableMilli = this.#o
      .activePods()
      .filter((p) => podQosClass(p) === 'Burstable')
      .reduce((n, p) => n + Math.round(podTotal(p, 'requests', 'cpu') * 1000), 0);
    this.#o.cgroups.update([...this.kubepods, 'besteffort'], { cpuShares: MIN_SHARES });
    this.#o.cgroups.update([...this.kubepods, 'burstable'], { cpuShares: milliCpuToShares(burstableMilli) });
  }

  /** the uids of the pod cgroups that exist, with their names */
  podCgroups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const parent of [this.kubepods, [...this.kubepods, 'burstable'], [...this.kubepods, 'besteffort']]) {
      for (const child of this.#o.cgroups.children(parent)) {
        if (child.startsWith('pod')) out.set(child.slice(3), [...parent, child]);
      }
    }
    return out;
  }

  /**
   * Removes the cgroups of pods that are not active (kubelet's cleanupOrphanedPodCgroups). A cgroup
   * with processes left is kept for a later pass: the runtime stops them, not this manager.
   */
  cleanupOrphanedPodCgroups(): void {
    const active = new Set(this.#o.activePods().map((p) => p.metadata?.uid ?? ''));
    for (const [uid, name] of this.podCgroups()) {
      if (active.has(uid)) continue;
      if (this.#o.cgroups.pids(name).length > 0 || this.#hasProcessesBelow(name)) continue;
      try {
        this.#o.cgroups.destroy(name);
        this.#o.logger.info({ uid }, 'removed the cgroup of a pod no longer active');
      } catch (err) {
        this.#o.logger.warn({ uid, err: String(err) }, 'cannot remove a pod cgroup yet');
      }
    }
  }

  #hasProcessesBelow(name: string[]): boolean {
    return this.#o.cgroups.children(name).some((child) => this.#o.cgroups.pids([...name, child]).length > 0 || this.#hasProcessesBelow([...name, child]));
  }
}

export interface NodeAllocatableInputs {
  /** the machine's cores and memory bytes */
  cpuCores: number;
  memoryBytes: number;
  /** --kube-reserved, --system-reserved (resource -> quantity) */
  kubeReserved?: Readonly<Record<string, string>>;
  systemReserved?: Readonly<Record<string, string>>;
  /** --enforce-node-allocatable */
  enforceNodeAllocatable?: readonly string[];
}

/**
 * What kubepods is given (createNodeAllocatableCgroups): the node's capacity, or capacity minus
 * kube-reserved and system-reserved when "pods" is enforced (the hard eviction thresholds are not
 * taken out here).
 */
export function kubepodsResources(i: NodeAllocatableInputs): { cpuMilli: number; memoryBytes: number } {
  let cpu = i.cpuCores;
  let memory = i.memoryBytes;
  if (i.enforceNodeAllocatable?.includes('pods')) {
    for (const reserved of [i.kubeReserved, i.systemReserved]) {
      cpu -= parseQuantity(reserved?.cpu) ?? 0;
      memory -= parseQuantity(reserved?.memory) ?? 0;
    }
  }
  return { cpuMilli: Math.max(0, Math.round(cpu * 1000)), memoryBytes: Math.max(0, Math.round(memory)) };
}
