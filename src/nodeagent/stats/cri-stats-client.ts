/**
 * The CRI stats calls kubelet's CRI stats provider makes (ListContainerStats, ListPodSandboxStats),
 * beside the RuntimeServiceClient so that runtimes without stats (the process runtime) need not
 * offer them. Same channel options and deadline as the other CRI clients.
 */
import * as grpc from '@grpc/grpc-js';
import { criPackage } from '../cri/cri-proto';
import { criTarget } from '../cri/endpoint';
import { criChannelOptions, DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS, type CriClientOptions } from '../cri/runtime-service-client';
import { unaryCall } from '../cri/unary-call';
import type { ContainerStats__Output } from '../cri/generated/runtime/v1/ContainerStats';
import type { ListContainerStatsResponse__Output } from '../cri/generated/runtime/v1/ListContainerStatsResponse';

/** what the summary provider asks the runtime for per container */
export interface ContainerStatsSource {
  /** the stats of every container the runtime knows (running ones carry cpu and memory) */
  listContainerStats(): Promise<ContainerStats__Output[]>;
}

export class CriStatsClient implements ContainerStatsSource {
  readonly #client: grpc.Client;
  readonly #timeoutMs: number;

  constructor(options: CriClientOptions) {
    const { RuntimeService } = criPackage();
    this.#client = new RuntimeService(criTarget(options.endpoint), grpc.credentials.createInsecure(), criChannelOptions());
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS;
  }

  async listContainerStats(): Promise<ContainerStats__Output[]> {
    const res = await unaryCall<ListContainerStatsResponse__Output>(this.#client, 'RuntimeService', 'ListContainerStats', { filter: {} }, { timeoutMs: this.#timeoutMs });
    return res.stats ?? [];
  }

  close(): void {
    this.#client.close();
  }
}
