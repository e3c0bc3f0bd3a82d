/**
 * The node: registration, node status, the node lease and the host's measurements (kubelet 1.20's
 * kubelet_node_status.go, nodestatus/setters.go, nodelease). The node agent builds one
 * NodeStatusAgent per node it stands for.
 */
export { NodeStatusAgent, NODE_STATUS_DEFAULTS, type NodeStatusAgentOptions, type NodeStatusConfig } from './node-status-agent';
export type { NodeHost, MachineInfo, HostMeasurements, FsStats, HugePagePool } from './host';
export { LinuxHost, type LinuxHostOptions } from './linux-host';
export { NodeLease, LEASE_NAMESPACE } from './lease';
export { nodeHostname, type Taint } from './registration';
export { observe, parseThresholds, thresholdsMet, type Observations, type Threshold, type Signal, type PressureCondition } from './thresholds';
