/**
 * What the node agent knows of its machine: the fixed facts of node status (cadvisor's MachineInfo
 * and VersionInfo in kubelet) and the measurements the eviction signals are computed from. `NodeHost`
 * is the contract; `LinuxHost` reads /proc, /sys and statfs; a simulated node passes fixed values.
 */

/** one hugepage pool: its page size and how many pages the kernel has reserved */
export interface HugePagePool {
  pageSizeKiB: number;
  numPages: number;
}

/** the node's fixed facts (cadvisor's MachineInfo and VersionInfo) */
export interface MachineInfo {
  numCores: number;
  /** MemTotal of /proc/meminfo, in bytes */
  memoryCapacityBytes: number;
  hugePages: HugePagePool[];
  machineId: string;
  systemUuid: string;
  bootId: string;
  kernelVersion: string;
  /** PRETTY_NAME of /etc/os-release */
  osImage: string;
  /** Go's names: linux; amd64, arm64 */
  operatingSystem: string;
  architecture: string;
}

/** a filesystem's size and free space (statfs) */
export interface FsStats {
  capacityBytes: number;
  availableBytes: number;
  inodes: number;
  inodesFree: number;
}

/** one sample of what the eviction signals are computed from */
export interface HostMeasurements {
  /** epoch ms of the sample */
  time: number;
  memoryCapacityBytes: number;
  /** the root cgroup's working set (usage minus inactive file pages), as kubelet's eviction manager uses */
  memoryWorkingSetBytes: number;
  /** the filesystem of the agent's root dir */
  nodefs: FsStats;
  /** the filesystem holding images (the runtime's; the node's own when it is the same) */
  imagefs: FsStats;
  /** /proc/sys/kernel/pid_max */
  maxPid: number;
  /** the processes (threads) running now */
  numProcesses: number;
}

/**
 * The machine as node status sees it. Every method may be called often; implementations read fresh
 * values on each call (machineInfo may cache what cannot change).
 */
export interface NodeHost {
  machineInfo(): Promise<MachineInfo>;
  /** the filesystem of the agent's root dir: ephemeral-storage capacity */
  rootFs(): Promise<FsStats>;
  measure(): Promise<HostMeasurements>;
  /**
   * the node's InternalIP when --node-ip is not given: kubelet 1.20 resolves the host name (IPv4
   * preferred, addresses of this machine only), else takes the address of the default route's
   * interface. Throws when there is none.
   */
  nodeAddress(hostname: string): Promise<string>;
}

/** Node's process.arch in Go's GOARCH names */
export const GO_ARCH: Readonly<Record<string, string>> = Object.freeze({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' });
