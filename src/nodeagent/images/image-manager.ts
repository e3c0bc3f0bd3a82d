/**
 * kubelet's image manager (pkg/kubelet/images): makes sure a container's image is present before
 * the container is created, by its imagePullPolicy, with kube's events and errors:
 *
 * - Never and absent: ErrImageNeverPull, `Container image "x" is not present with pull policy of Never`;
 * - present and not Always: Pulled, `Container image "x" already present on machine`;
 * - otherwise Pulling, then Pulled `Successfully pulled image "x" in 1.2s`, or Failed
 *   `Failed to pull image "x": <err>` and ErrImagePull; a pull failure starts a back-off per
 *   pod and image, during which the next syncs answer ImagePullBackOff `Back-off pulling image "x"`.
 *
 * Pulls run one at a time when serializeImagePulls (kubelet's default), else in parallel. The pull
 * secrets' credentials are tried in turn, then none.
 */
import { Backoff } from '../backoff';
import type { AuthConfig } from '../cri/generated/runtime/v1/AuthConfig';
import type { PodSandboxConfig } from '../cri/generated/runtime/v1/PodSandboxConfig';
import { REASONS, type ImageService, type Pod, type PullSecret } from '../types';
import { formatGoDuration } from './go-duration';
import { applyDefaultImageTag, isLatestOrUntagged } from './image-reference';
import { credentialsForImage } from './pull-credentials';

export type EventType = 'Normal' | 'Warning';

/** where events go: the pod and, for container events, the container's field path (`spec.containers{name}`) */
export interface RuntimeEventRecorder {
  event(obj: Pod, type: EventType, reason: string, message: string, fieldPath?: string): void;
}

/** ErrImageInspect: the image service failed to answer */
export const ERR_IMAGE_INSPECT = 'ImageInspectError';

export interface ImageManagerOptions {
  images: ImageService;
  recorder: RuntimeEventRecorder;
  /** the pull back-off (10 s doubling to 5 min by default) */
  backoff?: Backoff;
  serializeImagePulls?: boolean;
  /** epoch milliseconds */
  now?: () => number;
}

/** the outcome of ensureImageExists: the image reference, or a kube reason and message */
export type EnsureImageResult = { imageRef: string } | { error: string; message: string };

/** the container's field path in events, as kube's container references name it */
export function containerFieldPath(pod: Pod, containerName: string): string {
  const spec = pod.spec ?? {};
  const isInit = ((spec.initContainers as { name: string }[] | undefined) ?? []).some((c) => c.name === containerName);
  return `spec.${isInit ? 'initContainers' : 'containers'}{${containerName}}`;
}

/** kube's defaulting of imagePullPolicy: Always for `:latest` or no tag, else IfNotPresent */
export function pullPolicyOf(container: Record<string, unknown>): string {
  const policy = container.imagePullPolicy;
  if (typeof policy === 'string' && policy !== '') return policy;
  return isLatestOrUntagged(String(container.image ?? '')) ? 'Always' : 'IfNotPresent';
}

export class ImageManager {
  readonly #images: ImageService;
  readonly #recorder: RuntimeEventRecorder;
  readonly #backoff: Backoff;
  readonly #serialize: boolean;
  readonly #now: () => number;
  /** when each back-off key last failed (kube's IsInBackOffSinceUpdate) */
  readonly #lastFailure = new Map<string, number>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: ImageManagerOptions) {
    this.#images = options.images;
    this.#recorder = options.recorder;
    this.#now = options.now ?? Date.now;
    this.#backoff = options.backoff ?? new Backoff(undefined, undefined, this.#now);
    this.#serialize = options.serializeImagePulls ?? true;
  }

  /** the runtime's id of the image, or '' when it does not have it */
  async getImageRef(image: string): Promise<string> {
    const status = await this.#images.imageStatus({ image });
    return status.image?.id ?? '';
  }

  async ensureImageExists(pod: Pod, container: Record<string, unknown>, pullSecrets: PullSecret[], sandboxConfig?: PodSandboxConfig): Promise<EnsureImageResult> {
    const name = String(container.name ?? '');
    const requested = String(container.image ?? '');
    const fieldPath = containerFieldPath(pod, name);
    const event = (type: EventType, reason: string, message: string): void => this.#recorder.event(pod, type, reason, message, fieldPath);
    let image: string;
    try {
      image = applyDefaultImageTag(requested);
    } catch (err) {
      const message = `Failed to apply default image tag "${requested}": ${(err as Error).message}`;
      event('Warning', 'InspectFailed', message);
      return { error: REASONS.invalidImageName, message };
    }
    let imageRef: string;
    try {
      imageRef = await this.getImageRef(image);
    } catch (err) {
      const message = `Failed to inspect image "${requested}": ${criMessage(err)}`;
      event('Warning', 'InspectFailed', message);
      return { error: ERR_IMAGE_INSPECT, message };
    }
    const present = imageRef !== '';
    const policy = pullPolicyOf(container);
    const shouldPull = policy === 'Never' ? false : policy === 'IfNotPresent' ? !present : true;
    if (!shouldPull) {
      if (present) {
        event('Normal', 'Pulled', `Container image "${requested}" already present on machine`);
        return { imageRef };
      }
      const message = `Container image "${requested}" is not present with pull policy of Never`;
      event('Warning', REASONS.errImageNeverPull, message);
      return { error: REASONS.errImageNeverPull, message };
    }
    const uid = String(pod.metadata?.uid ?? '');
    const key = `${uid}_${requested}`;
    const lastFailure = this.#lastFailure.get(key);
    if (lastFailure !== undefined && this.#backoff.isInBackOffSince(key, lastFailure)) {
      const message = `Back-off pulling image "${requested}"`;
      event('Normal', 'BackOff', message);
      return { error: REASONS.imagePullBackOff, message };
    }
    event('Normal', 'Pulling', `Pulling image "${requested}"`);
    const started = performance.now();
    try {
      const ref = await this.#pull(image, credentialsForImage(image, pullSecrets), sandboxConfig);
      event('Normal', 'Pulled', `Successfully pulled image "${requested}" in ${formatGoDuration(performance.now() - started)}`);
      this.#backoff.gc();
      return { imageRef: ref };
    } catch (err) {
      const message = criMessage(err);
      event('Warning', 'Failed', `Failed to pull image "${requested}": ${message}`);
      this.#backoff.next(key);
      this.#lastFailure.set(key, this.#now());
      return { error: REASONS.errImagePull, message };
    }
  }

  #pull(image: string, auths: AuthConfig[], sandboxConfig?: PodSandboxConfig): Promise<string> {
    const attempt = async (): Promise<string> => {
      const errors: string[] = [];
      for (const auth of auths) {
        try {
          return await this.#images.pullImage({ image }, auth, sandboxConfig);
        } catch (err) {
          errors.push(criMessage(err));
        }
      }
      if (auths.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
      return this.#images.pullImage({ image }, undefined, sandboxConfig);
    };
    if (!this.#serialize) return attempt();
    const run = this.#queue.then(attempt, attempt);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/** a CRI error's grpc-go text (`rpc error: code = ... desc = ...`), as kube shows it; other errors' messages */
export function criMessage(err: unknown): string {
  if (err && typeof err === 'object' && 'rpcMessage' in err && typeof (err as { rpcMessage: unknown }).rpcMessage === 'string') {
    return (err as { rpcMessage: string }).rpcMessage;
  }
  return err instanceof Error ? err.message : String(err);
}
