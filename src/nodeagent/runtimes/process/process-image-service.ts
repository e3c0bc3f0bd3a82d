/**
 * The `process` runtime's ImageService (same calls as cri/ImageServiceClient): images are recorded,
 * never pulled, since a host process runs from the host's file system. PullImage remembers the name
 * and answers `process://<name>`; ImageStatus and ListImages show what was recorded, kept in
 * `<state>/images.json` across restarts; ImageFsInfo reports the state directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ImageService } from '../../types';
import type { AuthConfig } from '../../cri/generated/runtime/v1/AuthConfig';
import type { FilesystemUsage__Output } from '../../cri/generated/runtime/v1/FilesystemUsage';
import type { Image__Output } from '../../cri/generated/runtime/v1/Image';
import type { ImageFilter } from '../../cri/generated/runtime/v1/ImageFilter';
import type { ImageSpec } from '../../cri/generated/runtime/v1/ImageSpec';
import type { ImageStatusResponse__Output } from '../../cri/generated/runtime/v1/ImageStatusResponse';
import type { PodSandboxConfig } from '../../cri/generated/runtime/v1/PodSandboxConfig';
import { nowNs, readJsonFile, writeJsonFile } from './state';

export interface ProcessImageServiceOptions {
  stateDir: string;
}

/** the image reference the process runtime answers for a recorded image */
export function processImageRef(name: string): string {
  return `process://${name}`;
}

function sizeOf(dir: string): { bytes: number; inodes: number } {
  let bytes = 0;
  let inodes = 0;
  const walk = (p: string) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(p);
    } catch {
      return;
    }
    inodes++;
    bytes += stat.size;
    if (stat.isDirectory()) for (const entry of fs.readdirSync(p)) walk(path.join(p, entry));
  };
  walk(dir);
  return { bytes, inodes };
}

export class ProcessImageService implements ImageService {
  readonly #stateDir: string;
  readonly #file: string;
  readonly #images: Set<string>;

  constructor(options: ProcessImageServiceOptions) {
    this.#stateDir = path.resolve(options.stateDir);
    this.#file = path.join(this.#stateDir, 'images.json');
    fs.mkdirSync(this.#stateDir, { recursive: true });
    this.#images = new Set(readJsonFile<string[]>(this.#file) ?? []);
  }

  async listImages(filter?: ImageFilter): Promise<Image__Output[]> {
    const wanted = filter?.image?.image;
    return [...this.#images].filter((name) => !wanted || name === wanted || processImageRef(name) === wanted).map((name) => this.#image(name));
  }

  /** `image` null when it was never recorded */
  async imageStatus(image: ImageSpec, _verbose = false): Promise<ImageStatusResponse__Output> {
    const name = this.#find(image.image ?? '');
    return { image: name === undefined ? null : this.#image(name), info: {} };
  }

  async pullImage(image: ImageSpec, _auth?: AuthConfig, _sandboxConfig?: PodSandboxConfig): Promise<string> {
    const name = image.image ?? '';
    if (name === '') throw new Error('ImageService/PullImage: no image name');
    this.#images.add(name);
    this.#save();
    return processImageRef(name);
  }

  async removeImage(image: ImageSpec): Promise<void> {
    const name = this.#find(image.image ?? '');
    if (name === undefined) return;
    this.#images.delete(name);
    this.#save();
  }

  async imageFsInfo(): Promise<FilesystemUsage__Output[]> {
    const { bytes, inodes } = sizeOf(this.#stateDir);
    return [{ timestamp: nowNs(), fsId: { mountpoint: this.#stateDir }, usedBytes: { value: String(bytes) }, inodesUsed: { value: String(inodes) } }];
  }

  close(): void {
    // nothing held
  }

  /** a recorded name, by its name or its `process://` reference */
  #find(nameOrRef: string): string | undefined {
    if (this.#images.has(nameOrRef)) return nameOrRef;
    if (nameOrRef.startsWith('process://') && this.#images.has(nameOrRef.slice('process://'.length))) return nameOrRef.slice('process://'.length);
    return undefined;
  }

  #image(name: string): Image__Output {
    return {
      id: processImageRef(name),
      repoTags: [name],
      repoDigests: [],
      size: '0',
      uid: null,
      username: '',
      spec: { image: name, annotations: {} },
      pinned: false,
    };
  }

  #save(): void {
    writeJsonFile(this.#file, [...this.#images]);
  }
}
