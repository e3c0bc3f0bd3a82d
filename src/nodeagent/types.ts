/**
 * The node agent's contracts between its parts, in the shape of kubelet's:
 *
 *   pod sources (API, files, URL) -> pod manager -> pod workers -> ContainerRuntime -> runtime services
 *                                                       |                                (CRI-shaped)
 *                                                 status manager -> pods/status
 *
 * - RuntimeService / ImageService: the narrow, CRI-shaped interface every runtime offers (DESIGN.md):
 *   the remote runtime is the gRPC client of cri/, the process and simulated runtimes implement the
 *   same methods in process.
 * - ContainerRuntime: what the pod workers call (kubelet's kubecontainer.Runtime): syncPod, killPod,
 *   the runtime's view of a pod. kuberuntime/ implements it once over any RuntimeService.
 */
import type { KubeObject } from '../client/types';
import type { ImageServiceClient } from './cri/image-service-client';
import type { RuntimeServiceClient } from './cri/runtime-service-client';
import type { PodSandboxStatus__Output } from './cri/generated/runtime/v1/PodSandboxStatus';

/** the CRI RuntimeService calls, as the gRPC client offers them (answers unwrapped) */
export type RuntimeService = Pick<RuntimeServiceClient, keyof RuntimeServiceClient>;
/** the CRI ImageService calls, as the gRPC client offers them */
export type ImageService = Pick<ImageServiceClient, keyof ImageServiceClient>;

/** a pod object as the agent handles it (core/v1 Pod, JSON form) */
export type Pod = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

/** kubecontainer.State */
export type ContainerState = 'created' | 'running' | 'exited' | 'unknown';

/** one container as the runtime knows it (kubecontainer.Status): every instance, live or dead */
export interface ContainerRuntimeStatus {
  /** `<runtime type>://<id>`, e.g. containerd://0123... (what status.containerStatuses[].containerID shows) */
  id: string;
  /** the container's name in the pod spec */
  name: string;
  state: ContainerState;
  /** epoch milliseconds; 0 when unknown */
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  /** the image as the spec names it, and the runtime's image id (a digest reference) */
  image: string;
  imageRef: string;
  /** the hash of the container's spec when it was created (changes mean restart) */
  hash: string;
  /** this instance's restart count (from its attempt number) */
  restartCount: number;
  reason: string;
  message: string;
}

/** kubecontainer.PodStatus: everything the runtime knows about one pod */
export interface PodRuntimeStatus {
  uid: string;
  name: string;
  namespace: string;
  /** the pod's IPs, primary first (empty for host-network pods; the agent fills in the node IP) */
  ips: string[];
  /** newest first */
  sandboxStatuses: PodSandboxStatus__Output[];
  /** every instance of every container, newest first per name */
  containerStatuses: ContainerRuntimeStatus[];
}

/** a pod the runtime runs (kubecontainer.Pod), possibly one the API no longer knows */
export interface RunningPod {
  uid: string;
  name: string;
  namespace: string;
  sandboxIds: string[];
  containers: { id: string; name: string; image: string; hash: string; state: ContainerState }[];
}

/** kubelet's SyncAction names */
export type SyncAction = 'StartContainer' | 'KillContainer' | 'CreatePodSandbox' | 'KillPodSandbox' | 'InitContainer' | 'SetupNetwork' | 'TeardownNetwork' | 'ConfigPodSandbox';

/** one step of a sync, and how it went (kubecontainer.SyncResult) */
export interface SyncResult {
  action: SyncAction;
  /** the container name, or the pod's key for sandbox steps */
  target: string;
  /** a kube reason such as CrashLoopBackOff, ErrImagePull, RunContainerError; absent on success */
  error?: string;
  message?: string;
}

export interface PodSyncResult {
  results: SyncResult[];
  /** an error of the sync as a whole (the runtime failed to answer) */
  syncError?: Error;
}

/**
 * Waiting reasons and sync errors, kube's strings (pkg/kubelet/container and images): they reach
 * status.containerStatuses[].state.waiting.reason and events.
 */
export const REASONS = Object.freeze({
  crashLoopBackOff: 'CrashLoopBackOff',
  containerCreating: 'ContainerCreating',
  podInitializing: 'PodInitializing',
  errImagePull: 'ErrImagePull',
  imagePullBackOff: 'ImagePullBackOff',
  errImageNeverPull: 'ErrImageNeverPull',
  invalidImageName: 'InvalidImageName',
  createContainerConfigError: 'CreateContainerConfigError',
  createContainerError: 'CreateContainerError',
  preStartHookError: 'PreStartHookError',
  postStartHookError: 'PostStartHookError',
  runContainerError: 'RunContainerError',
  killContainerError: 'KillContainerError',
  createPodSandboxError: 'CreatePodSandboxError',
  killPodSandboxError: 'KillPodSandboxError',
});

/** a pull secret's credentials, as the runtime needs them */
export interface PullSecret {
  name: string;
  /** the secret's data, decoded (.dockerconfigjson or .dockercfg) */
  data: Record<string, Buffer>;
}

/**
 * kubelet's kubecontainer.Runtime, the part the pod workers call. Implemented once over a
 * RuntimeService + ImageService (kuberuntime/).
 */
export interface ContainerRuntime {
  /** `containerd`, `process`, `simulated`: the scheme of container ids */
  readonly type: string;
  /** the runtime's version, for node status (`containerd://1.6.20`) */
  version(): Promise<string>;
  /** RuntimeReady and NetworkReady, with their reason when false */
  status(): Promise<{ runtimeReady: boolean; networkReady: boolean; message: string }>;
  /** brings the pod's sandbox and containers to the spec: kube's computePodActions then SyncPod */
  syncPod(pod: Pod, status: PodRuntimeStatus, pullSecrets: PullSecret[]): Promise<PodSyncResult>;
  /** stops every container (preStop hooks, grace period) and the sandbox; `pod` absent for orphans */
  killPod(pod: Pod | undefined, running: RunningPod, gracePeriodOverrideSeconds?: number): Promise<void>;
  getPodStatus(uid: string, name: string, namespace: string): Promise<PodRuntimeStatus>;
  /** the pods with a sandbox or containers; `all` includes exited ones */
  getPods(all: boolean): Promise<RunningPod[]>;
  /** removes dead containers and sandboxes beyond the GC policy; the evictable ones of deleted pods */
  garbageCollect(policy: { minAgeMs: number; maxPerPodContainer: number; maxContainers: number }, allSourcesReady: boolean, evictNonDeletedPods: boolean): Promise<void>;
  /** the path of a container's log file (CRI log format), for /containerLogs and termination messages */
  containerLogPath(podNamespace: string, podName: string, podUid: string, containerName: string, restartCount: number): string;
}

/** a bind mount of a host path into a container */
export interface ContainerMount {
  containerPath: string;
  hostPath: string;
  readOnly: boolean;
  /** kube's mountPropagation: None, HostToContainer, Bidirectional */
  propagation?: 'None' | 'HostToContainer' | 'Bidirectional';
}

/** what a container is started with beyond its spec (kubelet's RunContainerOptions) */
export interface RunContainerOptions {
  /** resolved: values, fieldRef, resourceFieldRef, configMap/secret refs, envFrom, service links, $(VAR) expanded */
  envs: { name: string; value: string }[];
  /** the container's volumeMounts resolved to host paths (subPath included), plus /etc/hosts when the agent manages it */
  mounts: ContainerMount[];
  hostname: string;
  /** the pod's hostname's domain (subdomain.namespace.svc.cluster-domain), empty when none */
  hostDomain: string;
}

/**
 * What kuberuntime asks the rest of the agent (kubelet's RuntimeHelper). generateRunContainerOptions
 * throws an Error whose message kube shows under CreateContainerConfigError (e.g.
 * `configmap "settings" not found`) when a referenced object is missing.
 */
export interface RuntimeHelper {
  generateRunContainerOptions(pod: Pod, container: Record<string, unknown>, podIPs: string[]): Promise<RunContainerOptions>;
  /** the sandbox's resolv.conf content, from dnsPolicy, dnsConfig, --cluster-dns and --cluster-domain */
  getPodDNS(pod: Pod): { servers: string[]; searches: string[]; options: string[] };
  /** the pod's cgroup parent under --cgroups-per-qos (empty: the runtime's default) */
  getPodCgroupParent(pod: Pod): string;
  /** the pod's directory (<root-dir>/pods/<uid>), holding volumes and termination-message files */
  getPodDir(podUid: string): string;
}

/** a probe's latest result for a container */
export type ProbeResult = 'success' | 'failure';

/** the results the prober publishes (kubelet's results.Manager), read by kuberuntime and the status manager */
export interface ProbeResults {
  /** the result for a container id (`containerd://...`); undefined until the first probe */
  get(containerId: string): ProbeResult | undefined;
}
