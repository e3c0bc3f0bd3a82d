/** The prober's public surface: what the agent wires up (see probe-manager.ts) */
export { ProbeManager, type ProbeManagerOptions } from './probe-manager';
export { ProbeResultsManager, type ProbeType, type ProbeUpdate } from './results';
export { probeKillMessage, recordProbeKilling } from './killing';
export { REAL_CLOCK, type ProberClock } from './clock';
export type { ProbeEventRecorder, ContainerSpec } from './prober';
export type { ApiPodStatus, ApiContainerStatus } from './worker';
