/**
 * A simulated node's machine: fixed facts instead of /proc and /sys (kwok gives its nodes fixed
 * capacity in the same way). Every node of one process looks alike except for its ids and address;
 * the measurements never come near an eviction threshold, so no pressure condition turns True.
 */
import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import { GO_ARCH, type FsStats, type HostMeasurements, type MachineInfo, type NodeHost } from '../../node/host';

/** what every simulated node reports as its capacity */
export const SIMULATED_MACHINE = Object.freeze({
  numCores: 32,
  memoryCapacityBytes: 256 * 2 ** 30,
  /** the root filesystem (ephemeral-storage) */
  diskBytes: 2 ** 40,
  osImage: 'Ballast simulated node',
});

export interface SimulatedHostOptions {
  nodeName: string;
  /** the node's InternalIP */
  address: string;
}

export class SimulatedHost implements NodeHost {
  readonly #machine: MachineInfo;
  readonly #address: string;

  constructor(opts: SimulatedHostOptions) {
    const id = createHash('sha256').update(opts.nodeName).digest('hex');
    this.#address = opts.address;
    this.#machine = Object.freeze({
      numCores: SIMULATED_MACHINE.numCores,
      memoryCapacityBytes: SIMULATED_MACHINE.memoryCapacityBytes,
      hugePages: [],
      // stable per node name, as a machine's ids are across restarts of its kubelet
      machineId: id.slice(0, 32),
      systemUuid: `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`,
      // a new boot per process: a restarted simulator is a rebooted machine
      bootId: randomUUID(),
      kernelVersion: os.release(),
      osImage: SIMULATED_MACHINE.osImage,
      operatingSystem: 'linux',
      architecture: GO_ARCH[process.arch] ?? process.arch,
    });
  }

  async machineInfo(): Promise<MachineInfo> {
    return this.#machine;
  }

  async rootFs(): Promise<FsStats> {
    return { capacityBytes: SIMULATED_MACHINE.diskBytes, availableBytes: SIMULATED_MACHINE.diskBytes, inodes: 2 ** 26, inodesFree: 2 ** 26 };
  }

  async measure(): Promise<HostMeasurements> {
    const fs = await this.rootFs();
    return {
      time: Date.now(),
      memoryCapacityBytes: SIMULATED_MACHINE.memoryCapacityBytes,
      memoryWorkingSetBytes: 0,
      nodefs: fs,
      imagefs: fs,
      maxPid: 4_194_304,
      numProcesses: 0,
    };
  }

  async nodeAddress(): Promise<string> {
    return this.#address;
  }
}
