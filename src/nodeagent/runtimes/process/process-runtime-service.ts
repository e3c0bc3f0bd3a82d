/**
 * The `process` runtime: the CRI RuntimeService calls (same names, arguments and answers as
 * cri/RuntimeServiceClient) for a machine without a container runtime and without root. Each
 * container's command runs as a host process, as the agent's user. THERE IS NO ISOLATION: no
 * namespaces, no cgroups, no image file system, no resource limits, no user switching; a container
 * sees the host's file system, network and processes, and can signal the agent's other processes.
 *
 * - Sandboxes are records plus a directory under the state dir; their IP is the host's (every pod is
 *   in effect a hostNetwork pod: two pods listening on one port collide).
 * - Images are recorded, never pulled (process-image-service.ts), so a container runs only what its
 *   config's `command` + `args` name (kuberuntime passes the pod's command and args there): without
 *   them CreateContainer fails with a message saying so.
 * - Mounts: a host process cannot see a host path at another path. Each container gets its own root
 *   directory (`<state>/containers/<id>/root`) holding a symbolic link at every mount's container
 *   path to its host path, exported as `BALLAST_ROOT`: `$BALLAST_ROOT/etc/config/key` is the
 *   ConfigMap volume mounted at /etc/config. Read-only mounts are not enforced.
 * - The working directory is the config's one when it lies under a mount (through the root) or
 *   exists on the host; else the container's root directory.
 * - The environment: the config's variables over PATH (the agent's), HOSTNAME (the sandbox's) and
 *   BALLAST_ROOT, and PWD; nothing else of the agent's environment.
 * - Each command runs under a detached shim (shim-source.ts) that writes its CRI-format log and its
 *   exit code, and leads its own process group, which StopContainer signals (the stop signal
 *   SIGTERM, then SIGKILL after the timeout). Records are JSON files (state.ts), so a restarted agent
 *   finds its containers and their processes (liveness by `kill(pid, 0)`; pid reuse after a reboot is
 *   not detected: a reboot's stale records are for the GC to remove).
 * - Exec, attach and port-forward go through a streaming server of its own (src/nodeagent/streaming,
 *   on 127.0.0.1 at a free port, started on first use; process-streaming.ts runs what it serves):
 *   exec runs the command as ExecSync does, under a pseudo-terminal from util-linux's `script` when
 *   a tty is asked; attach joins the shim's stdio; port-forward connects to 127.0.0.1:<port>.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { CriError } from '../../cri/cri-error';
import type { RuntimeService } from '../../types';
import type { AttachRequest } from '../../cri/generated/runtime/v1/AttachRequest';
import type { Container__Output } from '../../cri/generated/runtime/v1/Container';
import type { ContainerConfig } from '../../cri/generated/runtime/v1/ContainerConfig';
import type { ContainerFilter } from '../../cri/generated/runtime/v1/ContainerFilter';
import type { ContainerStatusResponse__Output } from '../../cri/generated/runtime/v1/ContainerStatusResponse';
import type { ExecRequest } from '../../cri/generated/runtime/v1/ExecRequest';
import type { ExecSyncResponse__Output } from '../../cri/generated/runtime/v1/ExecSyncResponse';
import type { PodSandbox__Output } from '../../cri/generated/runtime/v1/PodSandbox';
import type { PodSandboxConfig } from '../../cri/generated/runtime/v1/PodSandboxConfig';
import type { PodSandboxFilter } from '../../cri/generated/runtime/v1/PodSandboxFilter';
import type { PodSandboxStatusResponse__Output } from '../../cri/generated/runtime/v1/PodSandboxStatusResponse';
import type { StatusResponse__Output } from '../../cri/generated/runtime/v1/StatusResponse';
import type { VersionResponse__Output } from '../../cri/generated/runtime/v1/VersionResponse';
import { StreamingRequestError, StreamingServer } from '../../streaming';
import { ProcessStreamingBackend, findScript } from './process-streaming';
import { SHIM_SOURCE } from './shim-source';
import { loadRecords, newId, notFound, nowNs, processAlive, readJsonFile, writeJsonFile, type ContainerRecord, type SandboxRecord } from './state';

export const PROCESS_RUNTIME_NAME = 'process';
export const PROCESS_RUNTIME_VERSION = '0.1.0';
/** containerd's default max_container_log_line_size */
export const DEFAULT_MAX_LOG_LINE_BYTES = 16 * 1024;
/** the most ExecSync keeps of each stream */
const MAX_EXEC_OUTPUT_BYTES = 16 * 1024 * 1024;
const POLL_MS = 20;

export interface ProcessRuntimeOptions {
  /** where records, container roots and shim files live (created when missing) */
  stateDir: string;
  /** the sandboxes' IP; the host's first non-internal IPv4 address (else 127.0.0.1) when absent */
  hostIP?: string;
  /** log lines longer than this are written as partial (P) records; 16 KiB when absent */
  maxLogLineBytes?: number;
  /** where the streaming server listens (exec, attach, port-forward); 127.0.0.1 when absent */
  streamingHost?: string;
}

const ORDER_SANDBOX = ['SANDBOX_READY', 'SANDBOX_NOTREADY'] as const;
const ORDER_CONTAINER = ['CONTAINER_CREATED', 'CONTAINER_RUNNING', 'CONTAINER_EXITED', 'CONTAINER_UNKNOWN'] as const;

/** a CRI enum as the caller gave it (its name or its number) -> its name */
function enumName<T extends string>(names: readonly T[], value: string | number | undefined | null): T | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'number' ? names[value] : (value as T);
}

function labelsMatch(labels: Record<string, string>, selector: Record<string, string> | undefined): boolean {
  return Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function defaultHostIP(): string {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return '127.0.0.1';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (pid <= 0) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

export class ProcessRuntimeService implements RuntimeService {
  readonly #stateDir: string;
  readonly #hostIP: string;
  readonly #maxLogLineBytes: number;
  readonly #sandboxes = new Map<string, SandboxRecord>();
  readonly #containers = new Map<string, ContainerRecord>();
  readonly #streamingHost: string;
  #streaming: Promise<StreamingServer> | undefined;
  #streamingBackend: ProcessStreamingBackend | undefined;

  constructor(options: ProcessRuntimeOptions) {
    this.#stateDir = path.resolve(options.stateDir);
    this.#hostIP = options.hostIP ?? defaultHostIP();
    this.#maxLogLineBytes = options.maxLogLineBytes ?? DEFAULT_MAX_LOG_LINE_BYTES;
    this.#streamingHost = options.streamingHost ?? '127.0.0.1';
    fs.mkdirSync(this.#sandboxDir(''), { recursive: true });
    fs.mkdirSync(this.#containerDir(''), { recursive: true });
    for (const sandbox of loadRecords<SandboxRecord>(this.#sandboxDir(''), 'sandbox.json')) this.#sandboxes.set(sandbox.id, sandbox);
    for (const container of loadRecords<ContainerRecord>(this.#containerDir(''), 'container.json')) this.#containers.set(container.id, container);
  }

  async version(): Promise<VersionResponse__Output> {
    return { version: 'v1', runtimeName: PROCESS_RUNTIME_NAME, runtimeVersion: PROCESS_RUNTIME_VERSION, runtimeApiVersion: 'v1' };
  }

  async status(): Promise<StatusResponse__Output> {
    const condition = (type: string) => ({ type, status: true, reason: '', message: '' });
    return { status: { conditions: [condition('RuntimeReady'), condition('NetworkReady')] }, info: {} };
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const id = newId();
    const sandbox: SandboxRecord = {
      id,
      name: config.metadata?.name ?? '',
      namespace: config.metadata?.namespace ?? '',
      uid: config.metadata?.uid ?? '',
      attempt: config.metadata?.attempt ?? 0,
      state: 'SANDBOX_READY',
      createdAt: nowNs(),
      hostname: config.hostname || os.hostname(),
      logDirectory: config.logDirectory ?? '',
      ip: this.#hostIP,
      labels: { ...config.labels },
      annotations: { ...config.annotations },
      runtimeHandler,
    };
    if (sandbox.logDirectory !== '') fs.mkdirSync(sandbox.logDirectory, { recursive: true });
    this.#saveSandbox(sandbox);
    return id;
  }

  /** stops the sandbox's containers at once (SIGKILL, as containerd) and marks it not ready */
  async stopPodSandbox(podSandboxId: string): Promise<void> {
    const sandbox = this.#sandboxes.get(podSandboxId);
    if (sandbox === undefined) return;
    for (const container of this.#containersOf(podSandboxId)) await this.stopContainer(container.id, 0);
    sandbox.state = 'SANDBOX_NOTREADY';
    this.#saveSandbox(sandbox);
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    const sandbox = this.#sandboxes.get(podSandboxId);
    if (sandbox === undefined) return;
    for (const container of this.#containersOf(podSandboxId)) await this.removeContainer(container.id);
    this.#sandboxes.delete(podSandboxId);
    fs.rmSync(this.#sandboxDir(podSandboxId), { recursive: true, force: true });
  }

  async podSandboxStatus(podSandboxId: string, verbose = false): Promise<PodSandboxStatusResponse__Output> {
    const sandbox = this.#sandbox('PodSandboxStatus', podSandboxId);
    return {
      status: {
        id: sandbox.id,
        metadata: { name: sandbox.name, namespace: sandbox.namespace, uid: sandbox.uid, attempt: sandbox.attempt },
        state: sandbox.state,
        createdAt: sandbox.createdAt,
        network: { ip: sandbox.ip, additionalIps: [] },
        linux: null,
        labels: { ...sandbox.labels },
        annotations: { ...sandbox.annotations },
        runtimeHandler: sandbox.runtimeHandler,
      },
      info: verbose ? { info: JSON.stringify({ directory: this.#sandboxDir(sandbox.id) }) } : {},
      containersStatuses: [],
      timestamp: nowNs(),
    };
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox__Output[]> {
    const state = enumName(ORDER_SANDBOX, filter?.state?.state);
    return [...this.#sandboxes.values()]
      .filter((s) => !filter?.id || s.id === filter.id || s.id.startsWith(filter.id))
      .filter((s) => state === undefined || s.state === state)
      .filter((s) => labelsMatch(s.labels, filter?.labelSelector))
      .map((s) => ({
        id: s.id,
        metadata: { name: s.name, namespace: s.namespace, uid: s.uid, attempt: s.attempt },
        state: s.state,
        createdAt: s.createdAt,
        labels: { ...s.labels },
        annotations: { ...s.annotations },
        runtimeHandler: s.runtimeHandler,
      }));
  }

  async createContainer(podSandboxId: string, config: ContainerConfig, _sandboxConfig: PodSandboxConfig): Promise<string> {
    const sandbox = this.#sandbox('CreateContainer', podSandboxId);
    const image = config.image?.image ?? '';
    const argv = [...(config.command ?? []), ...(config.args ?? [])];
    if (argv.length === 0) {
      throw new CriError('RuntimeService/CreateContainer', GrpcStatus.INVALID_ARGUMENT, `the process runtime needs a command: image "${image}" is recorded, not pulled, so it has no entrypoint; give the container a command`);
    }
    const id = newId();
    const configLogPath = config.logPath ?? '';
    const container: ContainerRecord = {
      id,
      podSandboxId,
      name: config.metadata?.name ?? '',
      attempt: config.metadata?.attempt ?? 0,
      image,
      imageRef: image === '' ? '' : `process://${image}`,
      argv,
      workingDir: config.workingDir ?? '',
      envs: (config.envs ?? []).map((e) => ({ key: e.key ?? '', value: e.value ?? '' })),
      mounts: (config.mounts ?? []).map((m) => ({ containerPath: m.containerPath ?? '', hostPath: m.hostPath ?? '', readonly: m.readonly ?? false })),
      stdin: config.stdin ?? false,
      stdinOnce: config.stdinOnce ?? false,
      tty: config.tty ?? false,
      labels: { ...config.labels },
      annotations: { ...config.annotations },
      logPath: configLogPath !== '' && sandbox.logDirectory !== '' ? path.join(sandbox.logDirectory, configLogPath) : '',
      configLogPath,
      state: 'CONTAINER_CREATED',
      createdAt: nowNs(),
      startedAt: '0',
      finishedAt: '0',
      exitCode: 0,
      reason: '',
      message: '',
      shimPid: 0,
      pid: 0,
    };
    const root = this.#rootDir(id);
    fs.mkdirSync(root, { recursive: true });
    for (const mount of container.mounts) {
      if (mount.containerPath === '' || mount.hostPath === '') continue;
      const link = path.join(root, mount.containerPath);
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.rmSync(link, { recursive: true, force: true });
      fs.symlinkSync(mount.hostPath, link);
    }
    this.#saveContainer(container);
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    const container = this.#container('StartContainer', containerId);
    if (container.state !== 'CONTAINER_CREATED') {
      throw new CriError('RuntimeService/StartContainer', GrpcStatus.FAILED_PRECONDITION, `container ${containerId} is in ${container.state} state, not CONTAINER_CREATED`);
    }
    const sandbox = this.#sandbox('StartContainer', container.podSandboxId);
    const dir = this.#containerDir(containerId);
    if (container.logPath !== '') fs.mkdirSync(path.dirname(container.logPath), { recursive: true });
    writeJsonFile(path.join(dir, 'spec.json'), {
      command: container.argv,
      env: this.#env(container, sandbox),
      cwd: this.#workingDir(container),
      logPath: container.logPath === '' ? '/dev/null' : container.logPath,
      maxLineBytes: this.#maxLogLineBytes,
      stdin: container.stdin ?? false,
      stdinOnce: container.stdinOnce ?? false,
      tty: container.tty ?? false,
      script: container.tty ? (findScript() ?? '') : '',
      attachName: `\0ballast-process-shim-${containerId}`,
      attachSecret: crypto.randomBytes(24).toString('base64url'),
    }, 0o600);
    const shim = spawn(process.execPath, ['-e', SHIM_SOURCE, dir], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '' },
    });
    shim.unref();
    container.shimPid = shim.pid ?? 0;
    for (;;) {
      const error = readJsonFile<{ message: string }>(path.join(dir, 'error.json'));
      if (error !== undefined) {
        Object.assign(container, { state: 'CONTAINER_EXITED', exitCode: 128, reason: 'StartError', message: error.message, finishedAt: nowNs() });
        this.#saveContainer(container);
        throw new CriError('RuntimeService/StartContainer', GrpcStatus.UNKNOWN, `failed to start container "${containerId}": ${error.message}`);
      }
      const started = readJsonFile<{ pid: number; startedAt: string }>(path.join(dir, 'pid.json'));
      if (started !== undefined) {
        Object.assign(container, { state: 'CONTAINER_RUNNING', pid: started.pid, startedAt: started.startedAt });
        this.#saveContainer(container);
        this.#refresh(container);
        return;
      }
      if (!processAlive(container.shimPid) && readJsonFile(path.join(dir, 'error.json')) === undefined) {
        Object.assign(container, { state: 'CONTAINER_EXITED', exitCode: 128, reason: 'StartError', message: 'the process runtime shim exited before the command started', finishedAt: nowNs() });
        this.#saveContainer(container);
        throw new CriError('RuntimeService/StartContainer', GrpcStatus.UNKNOWN, `failed to start container "${containerId}": ${container.message}`);
      }
      await sleep(POLL_MS);
    }
  }

  /** SIGTERM to the command's process group, SIGKILL after `timeoutSeconds` (0: at once); no-op when not running */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    const container = this.#container('StopContainer', containerId);
    this.#streamingBackend?.killExecs(containerId);
    this.#refresh(container);
    if (container.state !== 'CONTAINER_RUNNING') return;
    if (timeoutSeconds > 0) {
      signalGroup(container.pid, 'SIGTERM');
      if (await this.#waitExited(container, timeoutSeconds * 1000)) return;
    }
    signalGroup(container.pid, 'SIGKILL');
    if (await this.#waitExited(container, 5000)) return;
    // the shim did not report: record the kill ourselves
    Object.assign(container, { state: 'CONTAINER_EXITED', exitCode: 137, reason: 'Error', finishedAt: nowNs() });
    this.#saveContainer(container);
  }

  /** removes the container, killing it first when it runs; its log file stays (kubelet removes it) */
  async removeContainer(containerId: string): Promise<void> {
    const container = this.#containers.get(containerId);
    if (container === undefined) return;
    this.#refresh(container);
    if (container.state === 'CONTAINER_RUNNING') await this.stopContainer(containerId, 0);
    this.#containers.delete(containerId);
    fs.rmSync(this.#containerDir(containerId), { recursive: true, force: true });
  }

  async listContainers(filter?: ContainerFilter): Promise<Container__Output[]> {
    const state = enumName(ORDER_CONTAINER, filter?.state?.state);
    const containers = [...this.#containers.values()];
    for (const container of containers) this.#refresh(container);
    return containers
      .filter((c) => !filter?.id || c.id === filter.id || c.id.startsWith(filter.id))
      .filter((c) => !filter?.podSandboxId || c.podSandboxId === filter.podSandboxId)
      .filter((c) => state === undefined || c.state === state)
      .filter((c) => labelsMatch(c.labels, filter?.labelSelector))
      .map((c) => ({
        id: c.id,
        podSandboxId: c.podSandboxId,
        metadata: { name: c.name, attempt: c.attempt },
        image: { image: c.image, annotations: {} },
        imageRef: c.imageRef,
        state: c.state,
        createdAt: c.createdAt,
        labels: { ...c.labels },
        annotations: { ...c.annotations },
      }));
  }

  async containerStatus(containerId: string, verbose = false): Promise<ContainerStatusResponse__Output> {
    const c = this.#container('ContainerStatus', containerId);
    this.#refresh(c);
    return {
      status: {
        id: c.id,
        metadata: { name: c.name, attempt: c.attempt },
        state: c.state,
        createdAt: c.createdAt,
        startedAt: c.startedAt,
        finishedAt: c.finishedAt,
        exitCode: c.exitCode,
        image: { image: c.image, annotations: {} },
        imageRef: c.imageRef,
        reason: c.reason,
        message: c.message,
        labels: { ...c.labels },
        annotations: { ...c.annotations },
        mounts: c.mounts.map((m) => ({ ...m, selinuxRelabel: false, propagation: 'PROPAGATION_PRIVATE' as const })),
        logPath: c.logPath,
        resources: null,
      },
      info: verbose ? { info: JSON.stringify({ pid: c.pid, shimPid: c.shimPid, root: this.#rootDir(c.id), argv: c.argv }) } : {},
    };
  }

  /** tells the shim to reopen the log file (after rotation) */
  async reopenContainerLog(containerId: string): Promise<void> {
    const container = this.#container('ReopenContainerLog', containerId);
    this.#refresh(container);
    if (container.state !== 'CONTAINER_RUNNING') {
      throw new CriError('RuntimeService/ReopenContainerLog', GrpcStatus.FAILED_PRECONDITION, `container ${containerId} is not running`);
    }
    process.kill(container.shimPid, 'SIGUSR1');
  }

  /**
   * runs `cmd` with the container's environment and working directory, and waits for it; past
   * `timeoutSeconds` (0: no limit) its process group is killed and the call fails with
   * DeadlineExceeded, as containerd's
   */
  async execSync(containerId: string, cmd: string[], timeoutSeconds = 0): Promise<ExecSyncResponse__Output> {
    const call = 'RuntimeService/ExecSync';
    const container = this.#container('ExecSync', containerId);
    this.#refresh(container);
    if (container.state !== 'CONTAINER_RUNNING') {
      throw new CriError(call, GrpcStatus.UNKNOWN, `failed to exec in container: container is in ${container.state} state`);
    }
    if (cmd.length === 0) throw new CriError(call, GrpcStatus.INVALID_ARGUMENT, 'failed to exec in container: no command');
    const sandbox = this.#sandbox('ExecSync', container.podSandboxId);
    const child = spawn(cmd[0], cmd.slice(1), { cwd: this.#workingDir(container), env: this.#env(container, sandbox), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (stream: NodeJS.ReadableStream, into: Buffer[]) => {
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        if (size >= MAX_EXEC_OUTPUT_BYTES) return;
        into.push(chunk.subarray(0, MAX_EXEC_OUTPUT_BYTES - size));
        size += chunk.length;
      });
    };
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    collect(child.stdout, stdout);
    collect(child.stderr, stderr);
    return new Promise<ExecSyncResponse__Output>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      if (timeoutSeconds > 0) {
        timer = setTimeout(() => {
          signalGroup(child.pid ?? 0, 'SIGKILL');
          reject(new CriError(call, GrpcStatus.DEADLINE_EXCEEDED, `failed to exec in container: timeout ${timeoutSeconds}s exceeded: context deadline exceeded`));
        }, timeoutSeconds * 1000);
      }
      child.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const message = err.code === 'ENOENT' ? `exec: "${cmd[0]}": executable file not found in $PATH` : err.message;
        reject(new CriError(call, GrpcStatus.UNKNOWN, `failed to exec in container: ${message}`));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        const exitCode = code ?? 128 + (signal ? os.constants.signals[signal] : 0);
        resolve({ stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), exitCode });
      });
    });
  }

  /** the streaming server's exec URL (started on first use); the container must be running */
  async exec(request: ExecRequest): Promise<string> {
    const containerId = request.containerId ?? '';
    this.#runningContainer('Exec', containerId);
    const server = await this.#streamingServer();
    return this.#streamingCall('Exec', () =>
      server.getExec({ containerId, cmd: request.cmd ?? [], tty: request.tty ?? false, stdin: request.stdin ?? false, stdout: request.stdout ?? false, stderr: request.stderr ?? false }),
    );
  }

  async attach(request: AttachRequest): Promise<string> {
    const containerId = request.containerId ?? '';
    this.#runningContainer('Attach', containerId);
    const server = await this.#streamingServer();
    return this.#streamingCall('Attach', () =>
      server.getAttach({ containerId, tty: request.tty ?? false, stdin: request.stdin ?? false, stdout: request.stdout ?? false, stderr: request.stderr ?? false }),
    );
  }

  async portForward(podSandboxId: string, ports: number[]): Promise<string> {
    const sandbox = this.#sandbox('PortForward', podSandboxId);
    if (sandbox.state !== 'SANDBOX_READY') throw new CriError('RuntimeService/PortForward', GrpcStatus.UNKNOWN, `sandbox ${podSandboxId} is not running`);
    const server = await this.#streamingServer();
    return this.#streamingCall('PortForward', () => server.getPortForward({ podSandboxId, ports }));
  }

  /** stops the streaming server (the shims and their commands run on) */
  close(): void {
    void this.#streaming?.then((server) => server.close()).catch(() => {});
  }

  #streamingServer(): Promise<StreamingServer> {
    if (this.#streaming === undefined) {
      const backend = (this.#streamingBackend = new ProcessStreamingBackend({
        execContext: (containerId) => {
          const container = this.#runningContainer('Exec', containerId);
          const sandbox = this.#sandbox('Exec', container.podSandboxId);
          return { env: this.#env(container, sandbox), cwd: this.#workingDir(container), dir: this.#containerDir(containerId) };
        },
        sandboxNames: (podSandboxId) => {
          const sandbox = this.#sandboxes.get(podSandboxId);
          return { name: sandbox?.name ?? podSandboxId, uid: sandbox?.uid ?? '' };
        },
      }));
      const server = new StreamingServer({ backend, host: this.#streamingHost });
      const starting = server.start().then(() => server);
      starting.catch(() => (this.#streaming = undefined));
      this.#streaming = starting;
    }
    return this.#streaming;
  }

  #streamingCall(call: string, get: () => string): string {
    try {
      return get();
    } catch (err) {
      const code = err instanceof StreamingRequestError ? GrpcStatus.INVALID_ARGUMENT : GrpcStatus.UNKNOWN;
      throw new CriError(`RuntimeService/${call}`, code, (err as Error).message);
    }
  }

  /** the container, refreshed; a CriError (containerd's words) when it is not running */
  #runningContainer(call: string, containerId: string): ContainerRecord {
    const container = this.#container(call, containerId);
    this.#refresh(container);
    if (container.state !== 'CONTAINER_RUNNING') throw new CriError(`RuntimeService/${call}`, GrpcStatus.UNKNOWN, `container is in ${container.state} state`);
    return container;
  }

  /** brings a running container's record up to date from its shim's files */
  #refresh(container: ContainerRecord): void {
    if (container.state !== 'CONTAINER_RUNNING') return;
    const exit = readJsonFile<{ exitCode: number; finishedAt: string }>(path.join(this.#containerDir(container.id), 'exit.json'));
    if (exit !== undefined) {
      Object.assign(container, { state: 'CONTAINER_EXITED', exitCode: exit.exitCode, finishedAt: exit.finishedAt, reason: exit.exitCode === 0 ? 'Completed' : 'Error' });
    } else if (!processAlive(container.shimPid)) {
      Object.assign(container, { state: 'CONTAINER_EXITED', exitCode: 255, finishedAt: nowNs(), reason: 'Error', message: 'the process runtime lost the container: its shim is gone' });
    } else {
      return;
    }
    this.#saveContainer(container);
  }

  async #waitExited(container: ContainerRecord, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      this.#refresh(container);
      if (container.state !== 'CONTAINER_RUNNING') return true;
      if (Date.now() >= deadline) return false;
      await sleep(POLL_MS);
    }
  }

  #env(container: ContainerRecord, sandbox: SandboxRecord): Record<string, string> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      HOSTNAME: sandbox.hostname,
      BALLAST_ROOT: this.#rootDir(container.id),
    };
    for (const { key, value } of container.envs) env[key] = value;
    // a shell reports $PWD when it names the working directory: the path under the root, not its target
    env.PWD = this.#workingDir(container);
    return env;
  }

  #workingDir(container: ContainerRecord): string {
    const wd = container.workingDir;
    const root = this.#rootDir(container.id);
    if (wd !== '') {
      const underMount = container.mounts.some((m) => wd === m.containerPath || wd.startsWith(`${m.containerPath.replace(/\/$/, '')}/`));
      if (underMount && isDirectory(path.join(root, wd))) return path.join(root, wd);
      if (isDirectory(wd)) return wd;
    }
    return root;
  }

  #containersOf(podSandboxId: string): ContainerRecord[] {
    return [...this.#containers.values()].filter((c) => c.podSandboxId === podSandboxId);
  }

  #sandbox(call: string, id: string): SandboxRecord {
    const sandbox = this.#sandboxes.get(id);
    if (sandbox === undefined) throw notFound(call, `an error occurred when try to find sandbox: not found: sandbox ${id}`);
    return sandbox;
  }

  #container(call: string, id: string): ContainerRecord {
    const container = this.#containers.get(id);
    if (container === undefined) throw notFound(call, `an error occurred when try to find container "${id}": not found`);
    return container;
  }

  #saveSandbox(sandbox: SandboxRecord): void {
    this.#sandboxes.set(sandbox.id, sandbox);
    writeJsonFile(path.join(this.#sandboxDir(sandbox.id), 'sandbox.json'), sandbox);
  }

  #saveContainer(container: ContainerRecord): void {
    this.#containers.set(container.id, container);
    writeJsonFile(path.join(this.#containerDir(container.id), 'container.json'), container);
  }

  #sandboxDir(id: string): string {
    return path.join(this.#stateDir, 'sandboxes', id);
  }

  #containerDir(id: string): string {
    return path.join(this.#stateDir, 'containers', id);
  }

  #rootDir(id: string): string {
    return path.join(this.#containerDir(id), 'root');
  }
}
