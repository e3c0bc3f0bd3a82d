/**
 * A client of the CRI v1 RuntimeService (runtime.v1) over a Unix socket, in the shape of kubelet's
 * remote runtime service: one method per call, answers unwrapped where the call has one meaningful
 * value (a sandbox's id, a streaming URL), every call under a deadline (kubelet's
 * --runtime-request-timeout, 2 minutes by default), failures as CriError.
 */
import * as grpc from '@grpc/grpc-js';
import { criPackage } from './cri-proto';
import { criTarget } from './endpoint';
import { unaryCall } from './unary-call';
import type { RuntimeServiceClient as GrpcRuntimeServiceClient } from './generated/runtime/v1/RuntimeService';
import type { AttachRequest } from './generated/runtime/v1/AttachRequest';
import type { Container__Output } from './generated/runtime/v1/Container';
import type { ContainerConfig } from './generated/runtime/v1/ContainerConfig';
import type { ContainerFilter } from './generated/runtime/v1/ContainerFilter';
import type { ContainerStatusResponse__Output } from './generated/runtime/v1/ContainerStatusResponse';
import type { ExecRequest } from './generated/runtime/v1/ExecRequest';
import type { ExecSyncResponse__Output } from './generated/runtime/v1/ExecSyncResponse';
import type { PodSandbox__Output } from './generated/runtime/v1/PodSandbox';
import type { PodSandboxConfig } from './generated/runtime/v1/PodSandboxConfig';
import type { PodSandboxFilter } from './generated/runtime/v1/PodSandboxFilter';
import type { PodSandboxStatusResponse__Output } from './generated/runtime/v1/PodSandboxStatusResponse';
import type { StatusResponse__Output } from './generated/runtime/v1/StatusResponse';
import type { VersionResponse__Output } from './generated/runtime/v1/VersionResponse';

/** kubelet's --runtime-request-timeout default */
export const DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS = 2 * 60 * 1000;
/** the largest message kubelet accepts from the runtime (16 MiB) */
export const MAX_CRI_MESSAGE_BYTES = 16 * 1024 * 1024;

/** the API version this client speaks, as Version requests send it */
export const CRI_API_VERSION = 'v1';

export interface CriClientOptions {
  /** `unix:///run/containerd/containerd.sock` (or the bare socket path) */
  endpoint: string;
  /** each call's deadline; DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS when absent */
  timeoutMs?: number;
}

/** the gRPC channel options of every CRI client */
export function criChannelOptions(): grpc.ChannelOptions {
  return {
    'grpc.max_receive_message_length': MAX_CRI_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_CRI_MESSAGE_BYTES,
  };
}

export class RuntimeServiceClient {
  readonly #client: GrpcRuntimeServiceClient;
  readonly #timeoutMs: number;

  constructor(options: CriClientOptions) {
    const { RuntimeService } = criPackage();
    this.#client = new RuntimeService(criTarget(options.endpoint), grpc.credentials.createInsecure(), criChannelOptions());
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS;
  }

  /** the runtime's name and versions */
  version(): Promise<VersionResponse__Output> {
    return this.#call('Version', { version: CRI_API_VERSION });
  }

  /** the runtime's conditions (RuntimeReady, NetworkReady); `info` only when verbose */
  status(verbose = false): Promise<StatusResponse__Output> {
    return this.#call('Status', { verbose });
  }

  /** creates and starts a sandbox; its id. Twice the usual deadline, as kubelet gives it */
  async runPodSandbox(config: PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const response = await this.#call<{ podSandboxId: string }>('RunPodSandbox', { config, runtimeHandler }, this.#timeoutMs * 2);
    if (response.podSandboxId === '') throw new Error(`RuntimeService/RunPodSandbox: the runtime answered no sandbox id`);
    return response.podSandboxId;
  }

  /** stops the sandbox's processes and releases its network; succeeds when it is already stopped */
  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.#call('StopPodSandbox', { podSandboxId });
  }

  /** removes the sandbox and its containers; succeeds when it is already gone */
  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.#call('RemovePodSandbox', { podSandboxId });
  }

  podSandboxStatus(podSandboxId: string, verbose = false): Promise<PodSandboxStatusResponse__Output> {
    return this.#call('PodSandboxStatus', { podSandboxId, verbose });
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox__Output[]> {
    const response = await this.#call<{ items: PodSandbox__Output[] }>('ListPodSandbox', { filter: filter ?? null });
    return response.items;
  }

  /** creates a container in a sandbox (not started); its id */
  async createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    const response = await this.#call<{ containerId: string }>('CreateContainer', { podSandboxId, config, sandboxConfig });
    if (response.containerId === '') throw new Error(`RuntimeService/CreateContainer: the runtime answered no container id`);
    return response.containerId;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.#call('StartContainer', { containerId });
  }

  /**
   * stops a container: its stop signal, then SIGKILL after `timeoutSeconds` (0: at once). The
   * deadline is the usual one plus that grace period, as kubelet's.
   */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    await this.#call('StopContainer', { containerId, timeout: String(timeoutSeconds) }, this.#timeoutMs + timeoutSeconds * 1000);
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.#call('RemoveContainer', { containerId });
  }

  async listContainers(filter?: ContainerFilter): Promise<Container__Output[]> {
    const response = await this.#call<{ containers: Container__Output[] }>('ListContainers', { filter: filter ?? null });
    return response.containers;
  }

  containerStatus(containerId: string, verbose = false): Promise<ContainerStatusResponse__Output> {
    return this.#call('ContainerStatus', { containerId, verbose });
  }

  /** asks the runtime to reopen the container's log file (after kubelet rotated it) */
  async reopenContainerLog(containerId: string): Promise<void> {
    await this.#call('ReopenContainerLog', { containerId });
  }

  /**
   * runs a command in the container and waits for it. `timeoutSeconds` 0 means no time limit: then
   * the call has no deadline either; otherwise the deadline is that limit plus the usual one.
   */
  execSync(containerId: string, cmd: string[], timeoutSeconds = 0): Promise<ExecSyncResponse__Output> {
    const deadline = timeoutSeconds > 0 ? this.#timeoutMs + timeoutSeconds * 1000 : null;
    return this.#call('ExecSync', { containerId, cmd, timeout: String(timeoutSeconds) }, deadline);
  }

  /** the runtime's streaming URL for an exec session */
  async exec(request: ExecRequest): Promise<string> {
    return (await this.#call<{ url: string }>('Exec', request)).url;
  }

  /** the runtime's streaming URL for attaching to the container's main process */
  async attach(request: AttachRequest): Promise<string> {
    return (await this.#call<{ url: string }>('Attach', request)).url;
  }

  /** the runtime's streaming URL for forwarding ports of the sandbox's network namespace */
  async portForward(podSandboxId: string, ports: number[]): Promise<string> {
    return (await this.#call<{ url: string }>('PortForward', { podSandboxId, port: ports })).url;
  }

  close(): void {
    this.#client.close();
  }

  /** `null` deadline: none; undefined: the client's timeout */
  #call<Res>(method: string, request: object, timeoutMs: number | null = this.#timeoutMs): Promise<Res> {
    return unaryCall<Res>(this.#client, 'RuntimeService', method, request, { timeoutMs: timeoutMs ?? undefined });
  }
}
