/**
 * An in-memory RuntimeService + ImageService for kuberuntime's unit tests: sandboxes and
 * containers with states and times, images by name, every call recorded, and knobs to make pulls,
 * creates, starts and execs fail.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { CriError } from '../../src/nodeagent/cri/cri-error';
import type { ContainerConfig } from '../../src/nodeagent/cri/generated/runtime/v1/ContainerConfig';
import type { PodSandboxConfig } from '../../src/nodeagent/cri/generated/runtime/v1/PodSandboxConfig';
import type { ImageService, RuntimeService } from '../../src/nodeagent/types';

export interface FakeSandbox {
  id: string;
  config: PodSandboxConfig;
  runtimeHandler: string;
  state: 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
  createdAt: bigint;
  ip: string;
}

export interface FakeContainer {
  id: string;
  sandboxId: string;
  config: ContainerConfig;
  state: 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
  createdAt: bigint;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  logPath: string;
}

export class FakeCri {
  readonly sandboxes = new Map<string, FakeSandbox>();
  readonly containers = new Map<string, FakeContainer>();
  readonly images = new Map<string, string>();
  readonly calls: string[] = [];
  readonly pulls: { image: string; auth?: unknown }[] = [];
  /** image name -> the error a pull answers */
  pullErrors = new Map<string, CriError>();
  createError?: CriError;
  startError?: CriError;
  /** command joined by spaces -> exit code and output */
  execResults = new Map<string, { exitCode: number; stdout?: string; stderr?: string }>();
  stops: { id: string; timeout: number }[] = [];
  #seq = 0;
  /** nanoseconds, advanced by every creation */
  clockNs = 1_000_000_000_000n;

  #id(prefix: string): string {
    return `${prefix}${++this.#seq}`;
  }

  #tick(): bigint {
    this.clockNs += 1_000_000n;
    return this.clockNs;
  }

  /** makes a container exit now with the given code */
  exit(id: string, exitCode: number): void {
    const c = this.containers.get(id)!;
    c.state = 'CONTAINER_EXITED';
    c.exitCode = exitCode;
    c.finishedAt = this.#tick();
  }

  readonly runtime = {
    version: async () => ({ version: '0.1.0', runtimeName: 'fake', runtimeVersion: '1.2.3', runtimeApiVersion: 'v1' }),
    status: async () => ({
      status: { conditions: [{ type: 'RuntimeReady', status: true, reason: '', message: '' }, { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'cni config uninitialized' }] },
      info: {},
    }),
    runPodSandbox: async (config: PodSandboxConfig, runtimeHandler = '') => {
      this.calls.push(`RunPodSandbox ${config.metadata?.name} ${config.metadata?.attempt}`);
      const id = this.#id('sb');
      const hostNetwork = config.linux?.securityContext?.namespaceOptions?.network === 'NODE';
      this.sandboxes.set(id, { id, config, runtimeHandler, state: 'SANDBOX_READY', createdAt: this.#tick(), ip: hostNetwork ? '' : `10.0.0.${this.#seq}` });
      return id;
    },
    stopPodSandbox: async (id: string) => {
      this.calls.push(`StopPodSandbox ${id}`);
      const s = this.sandboxes.get(id);
      if (s) s.state = 'SANDBOX_NOTREADY';
      for (const c of this.containers.values()) if (c.sandboxId === id && c.state === 'CONTAINER_RUNNING') this.exit(c.id, 137);
    },
    removePodSandbox: async (id: string) => {
      this.calls.push(`RemovePodSandbox ${id}`);
      this.sandboxes.delete(id);
      for (const c of [...this.containers.values()]) if (c.sandboxId === id) this.containers.delete(c.id);
    },
    podSandboxStatus: async (id: string) => {
      const s = this.sandboxes.get(id);
      if (!s) throw new CriError('RuntimeService/PodSandboxStatus', GrpcStatus.NOT_FOUND, `sandbox ${id} not found`);
      return {
        status: {
          id,
          metadata: { name: s.config.metadata?.name ?? '', namespace: s.config.metadata?.namespace ?? '', uid: s.config.metadata?.uid ?? '', attempt: s.config.metadata?.attempt ?? 0 },
          state: s.state,
          createdAt: String(s.createdAt),
          network: { ip: s.ip, additionalIps: [] },
          linux: { namespaces: { options: { network: s.config.linux?.securityContext?.namespaceOptions?.network ?? 'POD', pid: 'CONTAINER', ipc: 'POD', targetId: '', usernsOptions: null } } },
          labels: s.config.labels ?? {},
          annotations: s.config.annotations ?? {},
          runtimeHandler: s.runtimeHandler,
        },
        info: {},
        containersStatuses: [],
        timestamp: '0',
      };
    },
    listPodSandbox: async (filter?: { labelSelector?: Record<string, string>; state?: { state: string } }) =>
      [...this.sandboxes.values()]
        .filter((s) => Object.entries(filter?.labelSelector ?? {}).every(([k, v]) => s.config.labels?.[k] === v))
        .filter((s) => !filter?.state || s.state === filter.state.state)
        .map((s) => ({ id: s.id, metadata: s.config.metadata, state: s.state, createdAt: String(s.createdAt), labels: s.config.labels ?? {}, annotations: s.config.annotations ?? {}, runtimeHandler: s.runtimeHandler })),
    createContainer: async (sandboxId: string, config: ContainerConfig) => {
      this.calls.push(`CreateContainer ${config.metadata?.name} ${config.metadata?.attempt}`);
      if (this.createError) throw this.createError;
      const id = this.#id('c');
      const sandbox = this.sandboxes.get(sandboxId)!;
      this.containers.set(id, { id, sandboxId, config, state: 'CONTAINER_CREATED', createdAt: this.#tick(), startedAt: 0n, finishedAt: 0n, exitCode: 0, logPath: `${sandbox.config.logDirectory}/${config.logPath}` });
      return id;
    },
    startContainer: async (id: string) => {
      this.calls.push(`StartContainer ${this.containers.get(id)?.config.metadata?.name}`);
      if (this.startError) throw this.startError;
      const c = this.containers.get(id)!;
      c.state = 'CONTAINER_RUNNING';
      c.startedAt = this.#tick();
    },
    stopContainer: async (id: string, timeout: number) => {
      this.calls.push(`StopContainer ${this.containers.get(id)?.config.metadata?.name} ${timeout}`);
      this.stops.push({ id, timeout });
      const c = this.containers.get(id);
      if (c && c.state === 'CONTAINER_RUNNING') this.exit(id, 137);
    },
    removeContainer: async (id: string) => {
      this.calls.push(`RemoveContainer ${this.containers.get(id)?.config.metadata?.name}`);
      this.containers.delete(id);
    },
    listContainers: async (filter?: { labelSelector?: Record<string, string>; state?: { state: string }; podSandboxId?: string }) =>
      [...this.containers.values()]
        .filter((c) => Object.entries(filter?.labelSelector ?? {}).every(([k, v]) => c.config.labels?.[k] === v))
        .filter((c) => !filter?.state || c.state === filter.state.state)
        .map((c) => ({ id: c.id, podSandboxId: c.sandboxId, metadata: c.config.metadata, image: c.config.image, imageRef: String(c.config.image?.image ?? ''), state: c.state, createdAt: String(c.createdAt), labels: c.config.labels ?? {}, annotations: c.config.annotations ?? {} })),
    containerStatus: async (id: string) => {
      const c = this.containers.get(id);
      if (!c) throw new CriError('RuntimeService/ContainerStatus', GrpcStatus.NOT_FOUND, `container ${id} not found`);
      return {
        status: {
          id,
          metadata: { name: c.config.metadata?.name ?? '', attempt: c.config.metadata?.attempt ?? 0 },
          state: c.state,
          createdAt: String(c.createdAt),
          startedAt: String(c.startedAt),
          finishedAt: String(c.finishedAt),
          exitCode: c.exitCode,
          image: c.config.image,
          imageRef: String(c.config.image?.image ?? ''),
          reason: c.state === 'CONTAINER_EXITED' ? (c.exitCode === 0 ? 'Completed' : 'Error') : '',
          message: '',
          labels: c.config.labels ?? {},
          annotations: c.config.annotations ?? {},
          mounts: (c.config.mounts ?? []).map((m) => ({ containerPath: m.containerPath, hostPath: m.hostPath, readonly: !!m.readonly, selinuxRelabel: false, propagation: 'PROPAGATION_PRIVATE' })),
          logPath: c.logPath,
          resources: null,
        },
        info: {},
      };
    },
    execSync: async (id: string, cmd: string[]) => {
      this.calls.push(`ExecSync ${this.containers.get(id)?.config.metadata?.name} ${cmd.join(' ')}`);
      const r = this.execResults.get(cmd.join(' ')) ?? { exitCode: 0 };
      return { stdout: Buffer.from(r.stdout ?? ''), stderr: Buffer.from(r.stderr ?? ''), exitCode: r.exitCode };
    },
  } as unknown as RuntimeService;

  readonly imageService = {
    imageStatus: async (spec: { image: string }) => {
      const id = this.images.get(spec.image) ?? ([...this.images.values()].includes(spec.image) ? spec.image : undefined);
      return { image: id ? { id, repoTags: [spec.image], repoDigests: [], size: '1', uid: null, username: '', spec: null, pinned: false } : null, info: {} };
    },
    pullImage: async (spec: { image: string }, auth?: unknown) => {
      this.calls.push(`PullImage ${spec.image}`);
      this.pulls.push({ image: spec.image, auth });
      const error = this.pullErrors.get(spec.image);
      if (error) throw error;
      const id = `sha256:${spec.image.length.toString(16).padStart(64, '0')}`;
      this.images.set(spec.image, id);
      return id;
    },
  } as unknown as ImageService;
}
