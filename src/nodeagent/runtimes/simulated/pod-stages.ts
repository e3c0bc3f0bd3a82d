/**
 * The stage machine of a simulated pod, after kwok's "fast" pod stages (kustomize/stage/pod/fast):
 *
 *   pod-delete    deletionTimestamp set                          -> the pod is deleted at once
 *   pod-ready     Pending (or no phase), Ready not True          -> Running: every container running
 *                                                                   and ready, init containers
 *                                                                   Completed, IPs, conditions True
 *   pod-complete  Running, owned by a Job, after jobPodDuration  -> Succeeded: containers terminated
 *                                                                   Completed with exit code 0
 *
 * A pod in any other state stays as it is (a Running pod of a Deployment runs forever; probes
 * always pass, so Ready stays True). The statuses are shaped as kubelet 1.20 writes them
 * (status.generateAPIPodStatus and pkg/kubelet/status's condition generators), so controllers and
 * kubectl see what a real node would report.
 */
import { createHash } from 'node:crypto';
import { kubeTime } from '../../node/setters';
import type { Pod } from '../../types';

/** the scheme of simulated container ids and image ids */
export const SIMULATED_RUNTIME = 'simulated';

type Obj = Record<string, unknown>;

interface ContainerSpec {
  name: string;
  image?: string;
  restartPolicy?: string;
}

interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export type PodStageName = 'delete' | 'ready' | 'complete';

function spec(pod: Pod): Obj {
  return (pod.spec ?? {}) as Obj;
}

function status(pod: Pod): Obj {
  return (pod.status ?? {}) as Obj;
}

function conditionsOf(pod: Pod): Condition[] {
  return (status(pod).conditions as Condition[] | undefined) ?? [];
}

/** whether the pod belongs to a Job (kwok's selector: an owner reference of kind Job) */
export function ownedByJob(pod: Pod): boolean {
  return (pod.metadata?.ownerReferences ?? []).some((r) => r.kind === 'Job');
}

/** the stage the pod is in now, or undefined when nothing is to be done */
export function podStage(pod: Pod): PodStageName | undefined {
  if (pod.metadata?.deletionTimestamp) return 'delete';
  const phase = (status(pod).phase as string | undefined) ?? 'Pending';
  if (phase === 'Pending') {
    const ready = conditionsOf(pod).find((c) => c.type === 'Ready');
    return ready?.status === 'True' ? undefined : 'ready';
  }
  if (phase === 'Running' && ownedByJob(pod)) return 'complete';
  return undefined;
}

/** when a Running pod started (its first container's start, else startTime), epoch ms */
export function podStartedAt(pod: Pod): number | undefined {
  const st = status(pod);
  const first = ((st.containerStatuses as Obj[] | undefined) ?? [])[0] as { state?: { running?: { startedAt?: string } } } | undefined;
  const text = first?.state?.running?.startedAt ?? (st.startTime as string | undefined);
  const ms = text ? Date.parse(text) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** a container's simulated id: stable for one pod uid and container name */
export function simulatedContainerId(podUid: string, containerName: string): string {
  return `${SIMULATED_RUNTIME}://${createHash('sha256').update(`${podUid}/${containerName}`).digest('hex')}`;
}

/** an image's simulated id: a digest of its name */
export function simulatedImageId(image: string): string {
  return `${SIMULATED_RUNTIME}://sha256:${createHash('sha256').update(image).digest('hex')}`;
}

/** a condition with kube's transition rule: the time moves only when the status changes */
function condition(previous: Condition[], type: string, value: 'True' | 'False', time: string, reason?: string): Condition {
  const before = previous.find((c) => c.type === type);
  const out: Condition = { type, status: value, lastProbeTime: null, lastTransitionTime: before?.status === value ? (before.lastTransitionTime ?? time) : time };
  if (reason) out.reason = reason;
  return out;
}

export interface RunningInputs {
  /** epoch ms */
  now: number;
  /** the node's InternalIP */
  hostIP: string;
  /** the pod's own address (asked only for pods off the host network) */
  podIP: () => string;
}

/** the status of the pod-ready stage: Running, every container started and ready */
export function runningStatus(pod: Pod, inputs: RunningInputs): Obj {
  const time = kubeTime(inputs.now);
  const uid = pod.metadata?.uid ?? '';
  const st = status(pod);
  const previous = conditionsOf(pod);
  const hostNetwork = spec(pod).hostNetwork === true;
  const podIP = hostNetwork ? inputs.hostIP : inputs.podIP();
  const startedAt = time;
  const containers = (spec(pod).containers as ContainerSpec[] | undefined) ?? [];
  const initContainers = (spec(pod).initContainers as ContainerSpec[] | undefined) ?? [];
  const base = (c: ContainerSpec) => ({
    name: c.name,
    image: c.image ?? '',
    imageID: simulatedImageId(c.image ?? ''),
    containerID: simulatedContainerId(uid, c.name),
    restartCount: 0,
    lastState: {},
  });
  const gates = ((spec(pod).readinessGates as { conditionType?: string }[] | undefined) ?? []).map((g) => g.conditionType).filter((t): t is string => !!t);
  const conditions: Condition[] = [
    condition(previous, 'Initialized', 'True', time),
    condition(previous, 'Ready', 'True', time),
    condition(previous, 'ContainersReady', 'True', time),
    condition(previous, 'PodScheduled', 'True', time),
    // kwok marks readiness gates passed too: nothing else would in a simulated cluster
    ...gates.filter((g) => !['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].includes(g)).map((g) => condition(previous, g, 'True', time)),
  ];
  const out: Obj = {
    ...st,
    phase: 'Running',
    conditions,
    hostIP: inputs.hostIP,
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: (st.startTime as string | undefined) ?? time,
    containerStatuses: containers.map((c) => ({ ...base(c), state: { running: { startedAt } }, ready: true, started: true })),
  };
  delete out.reason;
  delete out.message;
  if (initContainers.length) {
    out.initContainerStatuses = initContainers.map((c) =>
      c.restartPolicy === 'Always'
        ? { ...base(c), state: { running: { startedAt } }, ready: true, started: true }
        : { ...base(c), state: { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: startedAt, containerID: simulatedContainerId(uid, c.name) } }, ready: true },
    );
  }
  return out;
}

/** the status of the pod-complete stage: Succeeded, containers terminated Completed with exit code 0 */
export function completedStatus(pod: Pod, now: number): Obj {
  const time = kubeTime(now);
  const uid = pod.metadata?.uid ?? '';
  const st = status(pod);
  const previous = conditionsOf(pod);
  const running = new Map(((st.containerStatuses as Obj[] | undefined) ?? []).map((s) => [s.name as string, s]));
  const containers = (spec(pod).containers as ContainerSpec[] | undefined) ?? [];
  // kubelet's generators for a pod whose containers all ended well: reason PodCompleted
  const conditions = previous.filter((c) => !['Initialized', 'Ready', 'ContainersReady'].includes(c.type));
  conditions.unshift(
    condition(previous, 'Initialized', 'True', time, 'PodCompleted'),
    condition(previous, 'Ready', 'False', time, 'PodCompleted'),
    condition(previous, 'ContainersReady', 'False', time, 'PodCompleted'),
  );
  return {
    ...st,
    phase: 'Succeeded',
    conditions,
    containerStatuses: containers.map((c) => {
      const before = running.get(c.name) as { state?: { running?: { startedAt?: string } }; containerID?: string; imageID?: string } | undefined;
      const containerID = before?.containerID ?? simulatedContainerId(uid, c.name);
      return {
        name: c.name,
        image: c.image ?? '',
        imageID: before?.imageID ?? simulatedImageId(c.image ?? ''),
        containerID,
        restartCount: 0,
        lastState: {},
        ready: false,
        started: false,
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: before?.state?.running?.startedAt ?? time, finishedAt: time, containerID } },
      };
    }),
  };
}
