/** The node agent's pod lifecycle: what the agent's wiring needs. */
export { PodLifecycle } from './pod-lifecycle';
export type { EventSink, PodLifecycleConfig, PodLifecycleOptions, ProbeHooks, VolumeHooks } from './pod-lifecycle';
export type { ApiPodStatus, ContainerStatus, PodCondition } from './api-status';
export { CONFIG_HASH, CONFIG_MIRROR, CONFIG_SEEN, CONFIG_SOURCE, isMirrorPod, isStaticPod } from './annotations';
