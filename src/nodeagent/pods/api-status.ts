/**
 * The pod's API status from what the runtime reports (kubelet 1.20's generateAPIPodStatus,
 * convertToAPIContainerStatuses, getPhase and status/generate.go): container statuses with their
 * current and last state, the phase, and the conditions the node agent owns.
 */
import type { ContainerRuntimeStatus, Pod, PodRuntimeStatus } from '../types';

type Obj = Record<string, unknown>;

export interface ContainerSpec {
  name: string;
  image?: string;
  resources?: { requests?: Obj; limits?: Obj };
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode: number; reason?: string; message?: string; startedAt?: string; finishedAt?: string; containerID?: string };
}

export interface ContainerStatus {
  name: string;
  state: ContainerState;
  lastState: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

export interface ApiPodStatus {
  phase: string;
  conditions: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses: ContainerStatus[];
  qosClass: string;
  [field: string]: unknown;
}

/** why a container last failed to start, from the sync results (kubelet's ReasonCache) */
export type StartFailure = { reason: string; message: string };

export interface GenerateInput {
  pod: Pod;
  runtime: PodRuntimeStatus;
  /** the status last generated (the status manager's) or the API's */
  old: Partial<ApiPodStatus> | undefined;
  /** container name -> its last start failure */
  failures: ReadonlyMap<string, StartFailure>;
  nodeIP: string;
  /** the prober's hook: sets ready and started of container statuses */
  updateProbes?: (status: ApiPodStatus) => void;
}

/** the conditions the node agent owns (kubetypes.PodConditionsByKubelet) */
export const KUBELET_CONDITIONS = new Set(['PodScheduled', 'Ready', 'Initialized', 'ContainersReady']);

export function rfc3339(ms: number): string | undefined {
  if (!ms) return undefined;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function specOf(pod: Pod): { containers: ContainerSpec[]; initContainers: ContainerSpec[]; restartPolicy: string; hostNetwork: boolean; readinessGates: { conditionType: string }[] } {
  const spec = (pod.spec ?? {}) as Obj;
  return {
    containers: (spec.containers as ContainerSpec[] | undefined) ?? [],
    initContainers: (spec.initContainers as ContainerSpec[] | undefined) ?? [],
    restartPolicy: (spec.restartPolicy as string | undefined) ?? 'Always',
    hostNetwork: spec.hostNetwork === true,
    readinessGates: (spec.readinessGates as { conditionType: string }[] | undefined) ?? [],
  };
}

/** kubecontainer.ShouldContainerBeRestarted */
export function shouldRestart(pod: Pod, containerName: string, runtime: PodRuntimeStatus): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  const latest = runtime.containerStatuses.find((c) => c.name === containerName);
  if (!latest) return true;
  if (latest.state === 'running') return false;
  if (latest.state === 'unknown' || latest.state === 'created') return true;
  const policy = specOf(pod).restartPolicy;
  if (policy === 'Never') return false;
  if (policy === 'OnFailure' && latest.exitCode === 0) return false;
  return true;
}

function convertContainer(cs: ContainerRuntimeStatus): ContainerStatus {
  const status: ContainerStatus = {
    name: cs.name,
    state: {},
    lastState: {},
    ready: false,
    restartCount: cs.restartCount,
    image: cs.image,
    imageID: cs.imageRef,
    containerID: cs.id,
  };
  if (cs.state === 'running') {
    status.state.running = { startedAt: rfc3339(cs.startedAt) };
  } else if (cs.state === 'exited' || cs.state === 'created') {
    // a created container that never ran is shown as exited, as kubelet does: the workers start
    // every container they create within one sync
    status.state.terminated = {
      exitCode: cs.exitCode,
      reason: cs.reason || (cs.exitCode === 0 ? 'Completed' : 'Error'),
      message: cs.message || undefined,
      startedAt: rfc3339(cs.startedAt),
      finishedAt: rfc3339(cs.finishedAt),
      containerID: cs.id,
    };
  } else {
    status.state.waiting = {};
  }
  return status;
}

function convertContainers(input: GenerateInput, containers: ContainerSpec[], oldStatuses: ContainerStatus[] | undefined, podHasInit: boolean, isInit: boolean): ContainerStatus[] {
  const { pod, runtime } = input;
  const defaultWaiting: ContainerState = { waiting: { reason: podHasInit && !isInit ? 'PodInitializing' : 'ContainerCreating' } };
  const old = new Map((oldStatuses ?? []).map((s) => [s.name, s]));
  const statuses = new Map<string, ContainerStatus>();
  for (const c of containers) {
    const previous = old.get(c.name);
    if (previous?.state?.terminated) {
      // an exited container may be removed at any time: its last known status stands until replaced
      statuses.set(c.name, structuredClone(previous));
      continue;
    }
    statuses.set(c.name, {
      name: c.name,
      state: structuredClone(defaultWaiting),
      lastState: previous?.lastState ? structuredClone(previous.lastState) : {},
      ready: false,
      restartCount: previous?.restartCount ?? 0,
      image: c.image ?? '',
      imageID: '',
    });
  }
  const seen = new Map<string, number>();
  const newestFirst = [...runtime.containerStatuses].sort((a, b) => b.createdAt - a.createdAt);
  for (const cs of newestFirst) {
    const target = statuses.get(cs.name);
    if (!target) continue;
    const n = seen.get(cs.name) ?? 0;
    if (n >= 2) continue;
    const converted = convertContainer(cs);
    if (n === 0) statuses.set(cs.name, { ...converted, lastState: target.lastState });
    else target.lastState = converted.state;
    seen.set(cs.name, n + 1);
  }
  for (const c of containers) {
    if (isInit) {
      const latest = runtime.containerStatuses.find((s) => s.name === c.name);
      if (latest && latest.state === 'exited' && latest.exitCode === 0) continue;
    }
    if (!shouldRestart(pod, c.name, runtime)) continue;
    const failure = input.failures.get(c.name);
    if (!failure) continue;
    const status = statuses.get(c.name)!;
    if (status.state.terminated) status.lastState = status.state;
    status.state = { waiting: { reason: failure.reason, message: failure.message || undefined } };
  }
  const list = containers.map((c) => statuses.get(c.name)!);
  // kubelet sorts app containers by name; init containers keep the spec's order
  return isInit ? list : list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** kubelet's getPhase */
export function getPhase(pod: Pod, containerStatuses: ContainerStatus[], initStatuses: ContainerStatus[]): string {
  const spec = specOf(pod);
  const find = (name: string) => [...containerStatuses, ...initStatuses].find((s) => s.name === name);
  let pendingInit = 0;
  let failedInit = 0;
  for (const c of spec.initContainers) {
    const s = find(c.name);
    if (!s) pendingInit++;
    else if (s.state.running) pendingInit++;
    else if (s.state.terminated) {
      if (s.state.terminated.exitCode !== 0) failedInit++;
    } else if (s.state.waiting) {
      if (s.lastState.terminated) {
        if (s.lastState.terminated.exitCode !== 0) failedInit++;
      } else pendingInit++;
    } else pendingInit++;
  }
  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of spec.containers) {
    const s = find(c.name);
    if (!s) unknown++;
    else if (s.state.running) running++;
    else if (s.state.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state.waiting) {
      if (s.lastState.terminated) stopped++;
      else waiting++;
    } else unknown++;
  }
  if (failedInit > 0 && spec.restartPolicy === 'Never') return 'Failed';
  if (pendingInit > 0 || waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (spec.restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (spec.restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

/** Go's %s of a string slice: `[a b]` */
function goList(names: string[]): string {
  return `[${names.join(' ')}]`;
}

function partition(specs: ContainerSpec[], statuses: ContainerStatus[] | undefined): { unknown: string[]; unready: string[] } {
  const unknown: string[] = [];
  const unready: string[] = [];
  for (const c of specs) {
    const s = statuses?.find((x) => x.name === c.name);
    if (!s) unknown.push(c.name);
    else if (!s.ready) unready.push(c.name);
  }
  return { unknown, unready };
}

export function initializedCondition(pod: Pod, initStatuses: ContainerStatus[] | undefined, phase: string): PodCondition {
  const spec = specOf(pod);
  if (spec.initContainers.length === 0) return { type: 'Initialized', status: 'True' };
  const { unknown, unready } = partition(spec.initContainers, initStatuses);
  if (phase === 'Succeeded' && unknown.length === 0) return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with incomplete status: ${goList(unknown)}`);
  if (unready.length > 0) messages.push(`containers with incomplete status: ${goList(unready)}`);
  if (messages.length > 0) return { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: messages.join(', ') };
  return { type: 'Initialized', status: 'True' };
}

export function containersReadyCondition(pod: Pod, statuses: ContainerStatus[] | undefined, phase: string): PodCondition {
  if (!statuses) return { type: 'ContainersReady', status: 'False', reason: 'UnknownContainerStatuses' };
  const { unknown, unready } = partition(specOf(pod).containers, statuses);
  if (phase === 'Succeeded' && unknown.length === 0) return { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${goList(unready)}`);
  if (messages.length > 0) return { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: messages.join(', ') };
  return { type: 'ContainersReady', status: 'True' };
}

export function readyCondition(pod: Pod, conditions: PodCondition[], statuses: ContainerStatus[] | undefined, phase: string): PodCondition {
  const containersReady = containersReadyCondition(pod, statuses, phase);
  if (containersReady.status !== 'True') return { ...containersReady, type: 'Ready' };
  const messages: string[] = [];
  for (const gate of specOf(pod).readinessGates) {
    const c = conditions.find((x) => x.type === gate.conditionType);
    if (!c) messages.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    else if (c.status !== 'True') messages.push(`the status of pod readiness gate "${gate.conditionType}" is not "True", but ${c.status}`);
  }
  if (messages.length > 0) return { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: messages.join(', ') };
  return { type: 'Ready', status: 'True' };
}

/** kube's qos.GetPodQOS over cpu and memory */
export function qosClass(pod: Pod): string {
  const spec = specOf(pod);
  let any = false;
  let guaranteed = true;
  for (const c of [...spec.containers, ...spec.initContainers]) {
    const requests = c.resources?.requests ?? {};
    const limits = c.resources?.limits ?? {};
    for (const r of ['cpu', 'memory']) {
      if (requests[r] !== undefined || limits[r] !== undefined) any = true;
      if (limits[r] === undefined || String(requests[r] ?? limits[r]) !== String(limits[r])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** kubelet's generateAPIPodStatus */
export function generateApiPodStatus(input: GenerateInput): ApiPodStatus {
  const { pod, runtime, old } = input;
  const spec = specOf(pod);
  const hasInit = spec.initContainers.length > 0;
  const status: ApiPodStatus = {
    phase: 'Pending',
    conditions: [],
    qosClass: qosClass(pod),
    containerStatuses: convertContainers(input, spec.containers, old?.containerStatuses, hasInit, false),
  };
  if (hasInit) status.initContainerStatuses = convertContainers(input, spec.initContainers, old?.initContainerStatuses, hasInit, true);
  if (runtime.ips.length > 0) {
    status.podIP = runtime.ips[0];
    status.podIPs = runtime.ips.map((ip) => ({ ip }));
  }
  status.phase = getPhase(pod, status.containerStatuses, status.initContainerStatuses ?? []);
  const apiPhase = (pod.status as { phase?: string } | undefined)?.phase;
  if ((apiPhase === 'Succeeded' || apiPhase === 'Failed') && status.phase !== apiPhase) status.phase = apiPhase;
  // an init container that exited 0 is ready; the prober sets the rest
  for (const s of status.initContainerStatuses ?? []) s.ready = s.state.terminated?.exitCode === 0;
  for (const s of status.containerStatuses) s.started = s.state.running !== undefined;
  input.updateProbes?.(status);
  const kept = (((pod.status as Obj | undefined)?.conditions as PodCondition[] | undefined) ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type));
  const initialized = initializedCondition(pod, status.initContainerStatuses, status.phase);
  const ready = readyCondition(pod, [...kept], status.containerStatuses, status.phase);
  const containersReady = containersReadyCondition(pod, status.containerStatuses, status.phase);
  status.conditions = [...kept, initialized, ready, containersReady, { type: 'PodScheduled', status: 'True' }];
  if (input.nodeIP) {
    status.hostIP = input.nodeIP;
    if (spec.hostNetwork && !status.podIP) {
      status.podIP = input.nodeIP;
      status.podIPs = [{ ip: input.nodeIP }];
    }
  }
  return status;
}
