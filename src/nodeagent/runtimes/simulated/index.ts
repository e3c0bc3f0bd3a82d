/** The simulated runtime: kwok-style nodes and pods, many nodes per process, no containers */
export { runSimulatedNodes, simulatedNodeNames, simulatedRuntimeVersion, type SimulatedNodesDeps } from './run-simulated';
export { NodeFleet, type NodeFleetOptions, type FleetNodeSpec } from './node-fleet';
export { PodSimulator, DEFAULT_JOB_POD_DURATION_MS, type PodSimulatorOptions, type SimulatedNodeDirectory } from './pod-simulator';
export { podStage, runningStatus, completedStatus, SIMULATED_RUNTIME } from './pod-stages';
export { PodIpPool, fallbackPodCidr, simulatedNodeAddress } from './pod-ips';
export { SimulatedHost, SIMULATED_MACHINE } from './simulated-host';
