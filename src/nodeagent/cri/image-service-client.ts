/**
 * A client of the CRI v1 ImageService over a Unix socket (often the runtime's own socket: kubelet's
 * --image-service-endpoint defaults to --container-runtime-endpoint). Pulls have no deadline, as
 * kubelet's: a pull takes as long as the image does.
 */
import * as grpc from '@grpc/grpc-js';
import { criPackage } from './cri-proto';
import { criTarget } from './endpoint';
import { criChannelOptions, DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS, type CriClientOptions } from './runtime-service-client';
import { unaryCall } from './unary-call';
import type { ImageServiceClient as GrpcImageServiceClient } from './generated/runtime/v1/ImageService';
import type { AuthConfig } from './generated/runtime/v1/AuthConfig';
import type { FilesystemUsage__Output } from './generated/runtime/v1/FilesystemUsage';
import type { Image__Output } from './generated/runtime/v1/Image';
import type { ImageFilter } from './generated/runtime/v1/ImageFilter';
import type { ImageSpec } from './generated/runtime/v1/ImageSpec';
import type { ImageStatusResponse__Output } from './generated/runtime/v1/ImageStatusResponse';
import type { PodSandboxConfig } from './generated/runtime/v1/PodSandboxConfig';

export class ImageServiceClient {
  readonly #client: GrpcImageServiceClient;
  readonly #timeoutMs: number;

  constructor(options: CriClientOptions) {
    const { ImageService } = criPackage();
    this.#client = new ImageService(criTarget(options.endpoint), grpc.credentials.createInsecure(), criChannelOptions());
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS;
  }

  async listImages(filter?: ImageFilter): Promise<Image__Output[]> {
    return (await this.#call<{ images: Image__Output[] }>('ListImages', { filter: filter ?? null })).images;
  }

  /** the image's status; `image` is null when the runtime does not have it (not an error) */
  imageStatus(image: ImageSpec, verbose = false): Promise<ImageStatusResponse__Output> {
    return this.#call('ImageStatus', { image, verbose });
  }

  /** pulls the image; the reference of what was pulled (an image id or digest reference) */
  async pullImage(image: ImageSpec, auth?: AuthConfig, sandboxConfig?: PodSandboxConfig): Promise<string> {
    const request = { image, auth: auth ?? null, sandboxConfig: sandboxConfig ?? null };
    const response = await this.#call<{ imageRef: string }>('PullImage', request, null);
    if (response.imageRef === '') throw new Error(`ImageService/PullImage: the runtime answered no image reference for ${image.image}`);
    return response.imageRef;
  }

  /** removes the image; succeeds when it is already gone */
  async removeImage(image: ImageSpec): Promise<void> {
    await this.#call('RemoveImage', { image });
  }

  /** the file systems holding images, with their usage */
  async imageFsInfo(): Promise<FilesystemUsage__Output[]> {
    return (await this.#call<{ imageFilesystems: FilesystemUsage__Output[] }>('ImageFsInfo', {})).imageFilesystems;
  }

  close(): void {
    this.#client.close();
  }

  #call<Res>(method: string, request: object, timeoutMs: number | null = this.#timeoutMs): Promise<Res> {
    return unaryCall<Res>(this.#client, 'ImageService', method, request, { timeoutMs: timeoutMs ?? undefined });
  }
}
