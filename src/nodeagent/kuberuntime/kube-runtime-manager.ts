/**
 * kubelet 1.20's kubeGenericRuntimeManager (pkg/kubelet/kuberuntime) over any RuntimeService and
 * ImageService: syncPod (computePodActions, then kill, create the sandbox, the next init container,
 * the containers to start, each behind its crash-loop back-off and image pull), killPod and
 * killContainer (preStop hook within the grace period, StopContainer, StopPodSandbox),
 * getPodStatus, getPods, garbageCollect, with kube's events and sync results.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { Backoff } from '../backoff';
import { isCriStatus } from '../cri/cri-error';
import type { Container__Output } from '../cri/generated/runtime/v1/Container';
import type { ContainerStatus__Output } from '../cri/generated/runtime/v1/ContainerStatus';
import type { PodSandboxConfig } from '../cri/generated/runtime/v1/PodSandboxConfig';
import type { PodSandboxStatus__Output } from '../cri/generated/runtime/v1/PodSandboxStatus';
import { formatGoDuration } from '../images/go-duration';
import { containerFieldPath, criMessage, ImageManager, type EventType, type RuntimeEventRecorder } from '../images/image-manager';
import {
  REASONS,
  type ContainerRuntime,
  type ContainerRuntimeStatus,
  type ContainerState,
  type ImageService,
  type Pod,
  type PodRuntimeStatus,
  type PodSyncResult,
  type ProbeResults,
  type PullSecret,
  type RunningPod,
  type RuntimeHelper,
  type RuntimeService,
  type SyncResult,
} from '../types';
import { generateContainerConfig, verifyRunAsNonRoot } from './container-config';
import { garbageCollect, type PodStateProvider } from './container-gc';
import { ANNOTATIONS, formatPod, hashContainer as hashOf, LABELS } from './labels';
import { LifecycleHandlerRunner, type HttpGet } from './lifecycle-handlers';
import { computePodActions, findContainerStatus } from './pod-actions';
import { containersOf, DEFAULT_POD_LOGS_DIR, generatePodSandboxConfig, isHostNetworkPod, podLogsDirectory } from './sandbox-config';
import { capPodTerminationMessages, lastStringFromContainerLog, terminationMessageFromFile } from './termination-message';

type Spec = Record<string, unknown>;

/** kube's minimum grace period: containers always get 2 s to stop after the preStop hook */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;

export interface KubeRuntimeManagerOptions {
  runtime: RuntimeService;
  images: ImageService;
  helper: RuntimeHelper;
  recorder: RuntimeEventRecorder;
  livenessResults?: ProbeResults;
  startupResults?: ProbeResults;
  /** /var/log/pods by default */
  podLogsDir?: string;
  /** the pause image (the runtime's own sandbox image is used by CRI runtimes) */
  podInfraContainerImage?: string;
  /** the scheme of container ids: containerd, process, simulated */
  runtimeType?: string;
  serializeImagePulls?: boolean;
  /** the image pull back-off; the crash-loop back-off */
  imageBackoff?: Backoff;
  crashLoopBackoff?: Backoff;
  /** epoch milliseconds */
  now?: () => number;
  /** kubelet's --cpu-cfs-quota (true) */
  cpuCFSQuota?: boolean;
  /** the node's memory, for Burstable containers' OOM score (os.totalmem() by default) */
  memoryCapacityBytes?: number;
  /** the handler of a RuntimeClass by name ('' when unknown) */
  runtimeHandler?: (runtimeClassName: string) => string;
  /** which pods the API deleted or finished (for garbage collection); without it, no pod counts as deleted */
  podStateProvider?: PodStateProvider;
  /** the HTTP client of httpGet hooks */
  httpGet?: HttpGet;
}

export interface ContainerToKillOptions {
  message?: string;
  gracePeriodOverrideSeconds?: number;
}

function nanosToMs(value: string | number | undefined): number {
  if (value === undefined || value === '' || value === '0' || value === 0) return 0;
  return Number(BigInt(value) / 1_000_000n);
}

function toState(state: string): ContainerState {
  switch (state) {
    case 'CONTAINER_CREATED':
      return 'created';
    case 'CONTAINER_RUNNING':
      return 'running';
    case 'CONTAINER_EXITED':
      return 'exited';
    default:
      return 'unknown';
  }
}

function byCreatedDesc<T extends { createdAt: string }>(a: T, b: T): number {
  const x = BigInt(a.createdAt || '0');
  const y = BigInt(b.createdAt || '0');
  return x > y ? -1 : x < y ? 1 : 0;
}

export class KubeRuntimeManager implements ContainerRuntime {
  readonly type: string;
  readonly podInfraContainerImage: string;
  readonly #runtime: RuntimeService;
  readonly #helper: RuntimeHelper;
  readonly #recorder: RuntimeEventRecorder;
  readonly #liveness?: ProbeResults;
  readonly #startup?: ProbeResults;
  readonly #podLogsDir: string;
  readonly #imageManager: ImageManager;
  readonly #images: ImageService;
  readonly #crashLoop: Backoff;
  readonly #now: () => number;
  readonly #cpuCFSQuota: boolean;
  readonly #memoryCapacity: number;
  readonly #runtimeHandler: (name: string) => string;
  readonly #podState?: PodStateProvider;
  readonly #hooks: LifecycleHandlerRunner;

  constructor(options: KubeRuntimeManagerOptions) {
    this.type = options.runtimeType ?? 'containerd';
    this.podInfraContainerImage = options.podInfraContainerImage ?? '';
    this.#runtime = options.runtime;
    this.#images = options.images;
    this.#helper = options.helper;
    this.#recorder = options.recorder;
    this.#liveness = options.livenessResults;
    this.#startup = options.startupResults;
    this.#podLogsDir = options.podLogsDir ?? DEFAULT_POD_LOGS_DIR;
    this.#now = options.now ?? Date.now;
    this.#crashLoop = options.crashLoopBackoff ?? new Backoff(undefined, undefined, this.#now);
    this.#imageManager = new ImageManager({ images: options.images, recorder: options.recorder, backoff: options.imageBackoff, serializeImagePulls: options.serializeImagePulls, now: this.#now });
    this.#cpuCFSQuota = options.cpuCFSQuota ?? true;
    this.#memoryCapacity = options.memoryCapacityBytes ?? os.totalmem();
    this.#runtimeHandler = options.runtimeHandler ?? (() => '');
    this.#podState = options.podStateProvider;
    this.#hooks = new LifecycleHandlerRunner(options.runtime, options.httpGet);
  }

  async version(): Promise<string> {
    const version = await this.#runtime.version();
    return `${this.type}://${version.runtimeVersion}`;
  }

  async status(): Promise<{ runtimeReady: boolean; networkReady: boolean; message: string }> {
    const response = await this.#runtime.status();
    const conditions = response.status?.conditions ?? [];
    const find = (type: string) => conditions.find((c) => c.type === type);
    const runtime = find('RuntimeReady');
    const network = find('NetworkReady');
    const describe = (c: { type: string; status: boolean; reason: string; message: string } | undefined, type: string) =>
      c ? `${c.type}=${c.status} reason:${c.reason} message:${c.message}` : `${type} condition missing`;
    const messages: string[] = [];
    if (!runtime?.status) messages.push(`container runtime not ready: ${describe(runtime, 'RuntimeReady')}`);
    if (!network?.status) messages.push(`container runtime network not ready: ${describe(network, 'NetworkReady')}`);
    return { runtimeReady: runtime?.status === true, networkReady: network?.status === true, message: messages.join(', ') };
  }

  containerLogPath(podNamespace: string, podName: string, podUid: string, containerName: string, restartCount: number): string {
    return path.join(podLogsDirectory(this.#podLogsDir, podNamespace, podName, podUid), containerName, `${restartCount}.log`);
  }

  /** `<type>://<id>` */
  #containerId(rawId: string): string {
    return `${this.type}://${rawId}`;
  }

  #rawId(id: string): string {
    const i = id.indexOf('://');
    return i < 0 ? id : id.slice(i + 3);
  }

  #event(pod: Pod, type: EventType, reason: string, message: string, containerName?: string): void {
    this.#recorder.event(pod, type, reason, message, containerName === undefined ? undefined : containerFieldPath(pod, containerName));
  }

  // ---- syncPod ----

  async syncPod(pod: Pod, status: PodRuntimeStatus, pullSecrets: PullSecret[]): Promise<PodSyncResult> {
    const result: PodSyncResult = { results: [] };
    const actions = computePodActions(pod, status, { liveness: this.#liveness, startup: this.#startup });
    if (actions.createSandbox && actions.sandboxId !== '') {
      this.#event(pod, 'Normal', 'SandboxChanged', 'Pod sandbox changed, it will be killed and re-created.');
    }

    if (actions.killPod) {
      const killResults = await this.#killPodWithResults(pod, this.#runningPodOf(status));
      result.results.push(...killResults);
      if (killResults.some((r) => r.error)) return result;
      if (actions.createSandbox) await this.#purgeInitContainers(pod, status);
    } else {
      for (const [id, info] of actions.containersToKill) {
        const step: SyncResult = { action: 'KillContainer', target: info.name };
        result.results.push(step);
        try {
          await this.killContainer(pod, id, info.name, { message: info.message });
        } catch (err) {
          step.error = REASONS.killContainerError;
          step.message = criMessage(err);
          return result;
        }
      }
    }

    await this.#pruneInitContainersBeforeStart(pod, status);

    let podIPs = status.ips;
    let sandboxId = actions.sandboxId;
    if (actions.createSandbox) {
      const step: SyncResult = { action: 'CreatePodSandbox', target: formatPod(pod) };
      result.results.push(step);
      try {
        sandboxId = await this.#createPodSandbox(pod, actions.attempt);
      } catch (err) {
        step.error = REASONS.createPodSandboxError;
        step.message = `Failed to create sandbox for pod "${formatPod(pod)}": ${criMessage(err)}`;
        this.#event(pod, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${criMessage(err)}`);
        return result;
      }
      try {
        const sandboxStatus = (await this.#runtime.podSandboxStatus(sandboxId)).status;
        if (!isHostNetworkPod(pod) && sandboxStatus) podIPs = sandboxIPs(sandboxStatus);
      } catch (err) {
        this.#event(pod, 'Warning', 'FailedStatusPodSandBox', `Unable to get pod sandbox status: ${criMessage(err)}`);
        result.syncError = err as Error;
        return result;
      }
    }
    const podIP = podIPs[0] ?? '';
    let sandboxConfig: PodSandboxConfig;
    try {
      sandboxConfig = generatePodSandboxConfig(pod, actions.attempt, this.#helper, this.#podLogsDir);
    } catch (err) {
      result.results.push({ action: 'ConfigPodSandbox', target: sandboxId, error: 'ConfigPodSandboxError', message: `GeneratePodSandboxConfig for pod "${formatPod(pod)}" failed: ${(err as Error).message}` });
      return result;
    }

    const start = async (container: Spec): Promise<boolean> => {
      const step: SyncResult = { action: 'StartContainer', target: String(container.name) };
      result.results.push(step);
      const backoff = this.#doBackOff(pod, container, status);
      if (backoff) {
        step.error = REASONS.crashLoopBackOff;
        step.message = backoff;
        return false;
      }
      const failure = await this.#startContainer(sandboxId, sandboxConfig, container, pod, status, pullSecrets, podIP, podIPs);
      if (failure) {
        step.error = failure.error;
        step.message = failure.message;
        return false;
      }
      return true;
    };

    if (actions.nextInitContainerToStart) {
      if (!(await start(actions.nextInitContainerToStart))) return result;
    }
    const containers = containersOf(pod);
    for (const index of actions.containersToStart) await start(containers[index]);
    return result;
  }

  async #createPodSandbox(pod: Pod, attempt: number): Promise<string> {
    const config = generatePodSandboxConfig(pod, attempt, this.#helper, this.#podLogsDir);
    fs.mkdirSync(config.logDirectory!, { recursive: true, mode: 0o755 });
    const runtimeClass = typeof pod.spec?.runtimeClassName === 'string' ? pod.spec.runtimeClassName : '';
    return this.#runtime.runPodSandbox(config, runtimeClass === '' ? '' : this.#runtimeHandler(runtimeClass));
  }

  /** kube's doBackOff: the CrashLoopBackOff message when the container's last exit is within its back-off */
  #doBackOff(pod: Pod, container: Spec, status: PodRuntimeStatus): string | undefined {
    const name = String(container.name);
    const last = status.containerStatuses.find((c) => c.name === name && c.state === 'exited');
    if (!last) return undefined;
    const key = backoffKey(pod, container);
    if (this.#crashLoop.isInBackOffSince(key, last.finishedAt)) {
      this.#event(pod, 'Warning', 'BackOff', 'Back-off restarting failed container', name);
      return `back-off ${formatGoDuration(this.#crashLoop.get(key))} restarting failed container=${name} pod=${formatPod(pod)}`;
    }
    this.#crashLoop.next(key);
    return undefined;
  }

  async #startContainer(
    sandboxId: string,
    sandboxConfig: PodSandboxConfig,
    container: Spec,
    pod: Pod,
    status: PodRuntimeStatus,
    pullSecrets: PullSecret[],
    podIP: string,
    podIPs: string[],
  ): Promise<{ error: string; message: string } | undefined> {
    const name = String(container.name);
    const failed = (error: string, message: string, event = true) => {
      if (event) this.#event(pod, 'Warning', 'Failed', `Error: ${message}`, name);
      return { error, message };
    };
    const image = await this.#imageManager.ensureImageExists(pod, container, pullSecrets, sandboxConfig);
    if ('error' in image) return failed(image.error, image.message);

    const previous = findContainerStatus(status, name);
    const restartCount = previous ? previous.restartCount + 1 : 0;
    let config;
    try {
      const options = await this.#helper.generateRunContainerOptions(pod, container, podIPs);
      const imageUser = await this.#imageUser(image.imageRef);
      const nonRoot = verifyRunAsNonRoot(pod, container, imageUser, formatPod(pod));
      if (nonRoot) throw new Error(nonRoot);
      config = generateContainerConfig({
        pod,
        container,
        restartCount,
        imageRef: image.imageRef,
        options,
        podDir: this.#helper.getPodDir(String(pod.metadata?.uid ?? '')),
        podLogDirectory: sandboxConfig.logDirectory!,
        image: imageUser,
        cpuCFSQuota: this.#cpuCFSQuota,
        memoryCapacityBytes: this.#memoryCapacity,
      });
    } catch (err) {
      return failed(REASONS.createContainerConfigError, (err as Error).message);
    }
    let containerId: string;
    try {
      containerId = await this.#runtime.createContainer(sandboxId, config, sandboxConfig);
    } catch (err) {
      return failed(REASONS.createContainerError, criMessage(err));
    }
    this.#event(pod, 'Normal', 'Created', `Created container ${name}`, name);
    try {
      await this.#runtime.startContainer(containerId);
    } catch (err) {
      return failed(REASONS.runContainerError, criMessage(err));
    }
    this.#event(pod, 'Normal', 'Started', `Started container ${name}`, name);

    const postStart = (container.lifecycle as Spec | undefined)?.postStart as Spec | undefined;
    if (postStart) {
      const message = await this.#hooks.run(containerId, pod, container, postStart, podIP);
      if (message !== undefined) {
        this.#event(pod, 'Warning', 'FailedPostStartHook', message, name);
        try {
          await this.killContainer(pod, this.#containerId(containerId), name, { message: 'FailedPostStartHook' });
        } catch {
          // the hook's failure is the result either way
        }
        return { error: REASONS.postStartHookError, message };
      }
    }
    return undefined;
  }

  async #imageUser(imageRef: string): Promise<{ uid?: number; username?: string }> {
    const image = (await this.#images.imageStatus({ image: imageRef })).image;
    if (!image) return {};
    if (image.uid) return { uid: Number(image.uid.value) };
    return image.username ? { username: image.username } : {};
  }

  // ---- killing ----

  async killPod(pod: Pod | undefined, running: RunningPod, gracePeriodOverrideSeconds?: number): Promise<void> {
    const results = await this.#killPodWithResults(pod, running, gracePeriodOverrideSeconds);
    const failures = results.filter((r) => r.error);
    if (failures.length > 0) throw new Error(failures.map((f) => `${f.action} ${f.target}: ${f.message}`).join('; '));
  }

  async #killPodWithResults(pod: Pod | undefined, running: RunningPod, gracePeriodOverrideSeconds?: number): Promise<SyncResult[]> {
    const live = running.containers.filter((c) => c.state === 'running');
    const results = await Promise.all(
      live.map(async (c): Promise<SyncResult> => {
        try {
          await this.killContainer(pod, c.id, c.name, { gracePeriodOverrideSeconds });
          return { action: 'KillContainer', target: c.name };
        } catch (err) {
          return { action: 'KillContainer', target: c.name, error: REASONS.killContainerError, message: criMessage(err) };
        }
      }),
    );
    const sandboxStep: SyncResult = { action: 'KillPodSandbox', target: running.uid };
    for (const id of running.sandboxIds) {
      try {
        await this.#runtime.stopPodSandbox(id);
      } catch (err) {
        sandboxStep.error = REASONS.killPodSandboxError;
        sandboxStep.message = criMessage(err);
      }
    }
    results.push(sandboxStep);
    return results;
  }

  /**
   * kube's killContainer: the Killing event, the preStop hook within the grace period (deletion
   * grace period, else terminationGracePeriodSeconds, else 2 s), at least 2 s left for the stop
   * signal, the override winning; then StopContainer. Without `pod`, the spec comes from the
   * container's labels and annotations.
   */
  async killContainer(pod: Pod | undefined, containerId: string, containerName: string, options: ContainerToKillOptions = {}): Promise<void> {
    const rawId = this.#rawId(containerId);
    let container: Spec | undefined;
    if (pod) {
      container = [...containersOf(pod), ...containersOf(pod, 'initContainers')].find((c) => c.name === containerName);
      if (!container) throw new Error(`failed to get containerSpec "${containerName}" (id="${containerId}") in pod "${formatPod(pod)}" when killing container for reason "${options.message ?? ''}"`);
    } else {
      ({ pod, container } = await this.#restoreSpecs(rawId, containerName));
    }
    let gracePeriod = MINIMUM_GRACE_PERIOD_SECONDS;
    if (typeof pod.metadata?.deletionGracePeriodSeconds === 'number') gracePeriod = pod.metadata.deletionGracePeriodSeconds;
    else if (typeof pod.spec?.terminationGracePeriodSeconds === 'number') gracePeriod = pod.spec.terminationGracePeriodSeconds;
    const message = options.message ? options.message : `Stopping container ${containerName}`;
    this.#event(pod, 'Normal', 'Killing', message, containerName);
    const preStop = (container.lifecycle as Spec | undefined)?.preStop as Spec | undefined;
    if (preStop && gracePeriod > 0) gracePeriod -= await this.#executePreStopHook(pod, rawId, container, preStop, gracePeriod);
    if (gracePeriod < MINIMUM_GRACE_PERIOD_SECONDS) gracePeriod = MINIMUM_GRACE_PERIOD_SECONDS;
    if (options.gracePeriodOverrideSeconds !== undefined) gracePeriod = options.gracePeriodOverrideSeconds;
    await this.#runtime.stopContainer(rawId, gracePeriod);
  }

  /** runs the preStop hook for at most the grace period; the whole seconds it took */
  async #executePreStopHook(pod: Pod, rawId: string, container: Spec, handler: Spec, gracePeriodSeconds: number): Promise<number> {
    const started = this.#now();
    let timer: NodeJS.Timeout | undefined;
    const hook = this.#hooks.run(rawId, pod, container, handler, '').then((message) => {
      if (message !== undefined) this.#event(pod, 'Warning', 'FailedPreStopHook', message, String(container.name));
    });
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, gracePeriodSeconds * 1000);
    });
    await Promise.race([hook, timeout]);
    clearTimeout(timer);
    return Math.floor((this.#now() - started) / 1000);
  }

  /** the pod and container fields killContainer needs, from the container's labels and annotations */
  async #restoreSpecs(rawId: string, containerName: string): Promise<{ pod: Pod; container: Spec }> {
    const status = (await this.#runtime.containerStatus(rawId)).status;
    const labels = status?.labels ?? {};
    const annotations = status?.annotations ?? {};
    const pod: Pod = {
      metadata: { name: labels[LABELS.podName], namespace: labels[LABELS.podNamespace], uid: labels[LABELS.podUid] },
      spec: { containers: [] as Spec[] },
    };
    const deletion = annotations[ANNOTATIONS.podDeletionGracePeriod];
    if (deletion !== undefined) pod.metadata!.deletionGracePeriodSeconds = Number(deletion);
    const termination = annotations[ANNOTATIONS.podTerminationGracePeriod];
    if (termination !== undefined) pod.spec!.terminationGracePeriodSeconds = Number(termination);
    const container: Spec = { name: containerName };
    const preStop = annotations[ANNOTATIONS.preStopHandler];
    if (preStop) {
      try {
        container.lifecycle = { preStop: JSON.parse(preStop) as unknown };
      } catch {
        // an unreadable handler is skipped, as kube logs and goes on
      }
    }
    (pod.spec!.containers as Spec[]).push(container);
    return { pod, container };
  }

  // ---- removal of old instances ----

  async removeContainer(rawId: string): Promise<void> {
    try {
      const status = (await this.#runtime.containerStatus(rawId)).status;
      if (status?.logPath) fs.rmSync(status.logPath, { force: true });
    } catch (err) {
      if (!isCriStatus(err, GrpcStatus.NOT_FOUND)) throw err;
      return;
    }
    await this.#runtime.removeContainer(rawId);
  }

  /** keeps the newest exited instance of each init container, removes the older ones */
  async #pruneInitContainersBeforeStart(pod: Pod, status: PodRuntimeStatus): Promise<void> {
    for (const init of containersOf(pod, 'initContainers')) {
      let count = 0;
      for (const c of status.containerStatuses) {
        if (c.name !== init.name || (c.state !== 'exited' && c.state !== 'unknown')) continue;
        count++;
        if (count === 1) continue;
        await this.removeContainer(this.#rawId(c.id)).catch(() => undefined);
      }
    }
  }

  /** removes every instance of the init containers (a new sandbox runs them again) */
  async #purgeInitContainers(pod: Pod, status: PodRuntimeStatus): Promise<void> {
    const names = new Set(containersOf(pod, 'initContainers').map((c) => c.name));
    for (const c of status.containerStatuses) {
      if (names.has(c.name)) await this.removeContainer(this.#rawId(c.id)).catch(() => undefined);
    }
  }

  // ---- status ----

  #runningPodOf(status: PodRuntimeStatus): RunningPod {
    return {
      uid: status.uid,
      name: status.name,
      namespace: status.namespace,
      sandboxIds: status.sandboxStatuses.map((s) => s.id),
      containers: status.containerStatuses.filter((c) => c.state === 'running').map((c) => ({ id: c.id, name: c.name, image: c.image, hash: c.hash, state: c.state })),
    };
  }

  async getPodStatus(uid: string, name: string, namespace: string): Promise<PodRuntimeStatus> {
    const sandboxes = (await this.#runtime.listPodSandbox({ labelSelector: { [LABELS.podUid]: uid } })).sort(byCreatedDesc);
    const sandboxStatuses: PodSandboxStatus__Output[] = [];
    let ips: string[] = [];
    for (const [index, sandbox] of sandboxes.entries()) {
      const status = (await this.#runtime.podSandboxStatus(sandbox.id)).status;
      if (!status) continue;
      sandboxStatuses.push(status);
      if (index === 0 && status.state === 'SANDBOX_READY') ips = sandboxIPs(status);
    }
    const containers = await this.#runtime.listContainers({ labelSelector: { [LABELS.podUid]: uid } });
    const statuses: { status: ContainerRuntimeStatus; createdAt: string; termination: string }[] = [];
    for (const container of containers) {
      let cri: ContainerStatus__Output | null;
      try {
        cri = (await this.#runtime.containerStatus(container.id)).status;
      } catch (err) {
        if (isCriStatus(err, GrpcStatus.NOT_FOUND)) continue;
        throw err;
      }
      if (!cri) continue;
      const status = this.#toContainerStatus(cri, container);
      let termination = '';
      if (cri.state === 'CONTAINER_EXITED') {
        const fallback = cri.annotations[ANNOTATIONS.terminationMessagePolicy] === 'FallbackToLogsOnError' && status.exitCode !== 0 && status.reason !== 'ContainerCannotRun';
        const fromFile = terminationMessageFromFile(cri.mounts, cri.annotations[ANNOTATIONS.terminationMessagePath] ?? '', fallback);
        termination = fromFile.checkLogs ? lastStringFromContainerLog(cri.logPath) : fromFile.message;
      }
      statuses.push({ status, createdAt: cri.createdAt, termination });
    }
    statuses.sort(byCreatedDesc);
    const capped = capPodTerminationMessages(statuses.map((s) => s.termination));
    statuses.forEach((s, i) => {
      if (capped[i] !== '') s.status.message = s.status.message === '' ? capped[i] : `${s.status.message}: ${capped[i]}`;
    });
    return { uid, name, namespace, ips, sandboxStatuses, containerStatuses: statuses.map((s) => s.status) };
  }

  #toContainerStatus(cri: ContainerStatus__Output, listed?: Container__Output): ContainerRuntimeStatus {
    const labels = cri.labels ?? listed?.labels ?? {};
    const annotations = cri.annotations ?? {};
    return {
      id: this.#containerId(cri.id),
      name: labels[LABELS.containerName] ?? cri.metadata?.name ?? '',
      state: toState(cri.state),
      createdAt: nanosToMs(cri.createdAt),
      startedAt: nanosToMs(cri.startedAt),
      finishedAt: nanosToMs(cri.finishedAt),
      exitCode: cri.exitCode,
      image: cri.image?.image ?? '',
      imageRef: cri.imageRef,
      hash: annotations[ANNOTATIONS.containerHash] ?? '',
      restartCount: Number(annotations[ANNOTATIONS.restartCount] ?? cri.metadata?.attempt ?? 0),
      reason: cri.reason,
      message: cri.message,
    };
  }

  async getPods(all: boolean): Promise<RunningPod[]> {
    const sandboxes = await this.#runtime.listPodSandbox(all ? undefined : { state: { state: 'SANDBOX_READY' } });
    const containers = await this.#runtime.listContainers(all ? undefined : { state: { state: 'CONTAINER_RUNNING' } });
    const pods = new Map<string, RunningPod>();
    const podOf = (labels: Record<string, string>): RunningPod | undefined => {
      const uid = labels[LABELS.podUid];
      if (uid === undefined) return undefined;
      let pod = pods.get(uid);
      if (!pod) {
        pod = { uid, name: labels[LABELS.podName] ?? '', namespace: labels[LABELS.podNamespace] ?? '', sandboxIds: [], containers: [] };
        pods.set(uid, pod);
      }
      return pod;
    };
    for (const sandbox of sandboxes.sort(byCreatedDesc)) podOf(sandbox.labels)?.sandboxIds.push(sandbox.id);
    for (const c of containers.sort(byCreatedDesc)) {
      podOf(c.labels)?.containers.push({
        id: this.#containerId(c.id),
        name: c.labels[LABELS.containerName] ?? c.metadata?.name ?? '',
        image: c.image?.image ?? '',
        hash: c.annotations[ANNOTATIONS.containerHash] ?? '',
        state: toState(c.state),
      });
    }
    return [...pods.values()];
  }

  async garbageCollect(policy: { minAgeMs: number; maxPerPodContainer: number; maxContainers: number }, allSourcesReady: boolean, evictNonDeletedPods: boolean): Promise<void> {
    await garbageCollect({
      runtime: this.#runtime,
      removeContainer: (id: string) => this.removeContainer(id),
      podState: this.#podState,
      podLogsDir: this.#podLogsDir,
      now: this.#now,
      policy,
      allSourcesReady,
      evictNonDeletedPods,
    });
    this.#crashLoop.gc();
  }
}

/** the crash-loop back-off key: the pod, the container and its spec's hash (kube's getStableKey) */
export function backoffKey(pod: Pod, container: Spec): string {
  return `${String(pod.metadata?.name ?? '')}_${String(pod.metadata?.namespace ?? '')}_${String(pod.metadata?.uid ?? '')}_${String(container.name)}_${hashOf(container)}`;
}

/** the sandbox's IPs, primary first */
export function sandboxIPs(status: PodSandboxStatus__Output): string[] {
  const network = status.network;
  if (!network || network.ip === '') return [];
  return [network.ip, ...(network.additionalIps ?? []).map((ip) => ip.ip).filter((ip) => ip !== '')];
}
