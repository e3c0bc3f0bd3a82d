/**
 * Image garbage collection (kubelet 1.20's realImageGCManager, pkg/kubelet/images/image_gc_manager.go).
 *
 * Every image the runtime holds has a record: when it was first detected and when a container
 * (of any pod, live or dead) or the sandbox image last used it. When the image filesystem's usage
 * reaches imageGCHighThresholdPercent, unused images are removed, least recently used first (then
 * first detected), skipping those younger than imageMinimumGCAge, until usage is down to
 * imageGCLowThresholdPercent. The eviction manager asks for every unused image to go
 * (deleteUnusedImages). Failures raise kube's node events: InvalidDiskCapacity, FreeDiskSpaceFailed,
 * and ImageGCFailed when the periodic collection fails twice in a row.
 */
import type { Logger } from 'pino';
import type { ImageService, RuntimeService } from '../types';

/** kubelet's ImageGCPeriod and imageRecordsUpdatePeriod */
export const IMAGE_GC_PERIOD_MS = 5 * 60_000;
export const IMAGE_RECORDS_UPDATE_PERIOD_MS = 5 * 60_000;

export interface ImageGCPolicy {
  /** --image-gc-high-threshold (85) */
  highThresholdPercent: number;
  /** --image-gc-low-threshold (80) */
  lowThresholdPercent: number;
  /** --minimum-image-ttl-duration (2 m) */
  minAgeMs: number;
}

export interface ImageGCOptions {
  policy: ImageGCPolicy;
  images: Pick<ImageService, 'listImages' | 'removeImage' | 'imageStatus'>;
  runtime: Pick<RuntimeService, 'listContainers'>;
  /** the image filesystem's capacity and free bytes (kubelet's ImageFsStats) */
  imageFsStats: () => Promise<{ capacityBytes?: number; availableBytes?: number }>;
  /** --pod-infra-container-image: always in use */
  sandboxImage?: string;
  /** node events */
  event?: (type: 'Normal' | 'Warning', reason: string, message: string) => void;
  logger: Logger;
  now?: () => number;
}

interface ImageRecord {
  firstDetected: number;
  lastUsed: number;
  size: number;
}

export class ImageGCManager {
  readonly #o: ImageGCOptions;
  readonly #now: () => number;
  readonly #records = new Map<string, ImageRecord>();
  readonly #timers: NodeJS.Timeout[] = [];
  #previousFailed = false;
  #running: Promise<unknown> = Promise.resolve();

  constructor(opts: ImageGCOptions) {
    if (opts.policy.highThresholdPercent < 0 || opts.policy.highThresholdPercent > 100) throw new Error(`invalid HighThresholdPercent ${opts.policy.highThresholdPercent}, must be in range [0-100]`);
    if (opts.policy.lowThresholdPercent < 0 || opts.policy.lowThresholdPercent > 100) throw new Error(`invalid LowThresholdPercent ${opts.policy.lowThresholdPercent}, must be in range [0-100]`);
    if (opts.policy.lowThresholdPercent > opts.policy.highThresholdPercent) {
      throw new Error(`LowThresholdPercent ${opts.policy.lowThresholdPercent} can not be higher than HighThresholdPercent ${opts.policy.highThresholdPercent}`);
    }
    this.#o = opts;
    this.#now = opts.now ?? Date.now;
  }

  /**
   * Records the images present now as detected long ago (kubelet's first detectImages with a zero
   * time: what is on the node at start may go at once), then refreshes the records and collects
   * every 5 minutes.
   */
  start(periodMs = IMAGE_GC_PERIOD_MS, recordsPeriodMs = IMAGE_RECORDS_UPDATE_PERIOD_MS): void {
    if (this.#timers.length) return;
    this.#running = this.detectImages(0).catch((err: unknown) => this.#o.logger.warn({ err: String(err) }, '[imageGCManager] Failed to monitor images'));
    const every = (ms: number, fn: () => Promise<unknown>) => {
      const timer = setInterval(() => (this.#running = this.#running.then(fn)), ms);
      timer.unref();
      this.#timers.push(timer);
    };
    every(recordsPeriodMs, () => this.detectImages(this.#now()).catch((err: unknown) => this.#o.logger.warn({ err: String(err) }, '[imageGCManager] Failed to monitor images')));
    every(periodMs, () => this.periodicCollect());
  }

  async stop(): Promise<void> {
    for (const t of this.#timers.splice(0)) clearInterval(t);
    await this.#running;
  }

  /** one periodic collection: ImageGCFailed only for repeated failures (the first may be stats not ready yet) */
  async periodicCollect(): Promise<void> {
    try {
      await this.garbageCollect();
      this.#previousFailed = false;
    } catch (err) {
      const message = (err as Error).message;
      if (this.#previousFailed) {
        this.#o.logger.error({ err: message }, 'Image garbage collection failed multiple times in a row');
        this.#o.event?.('Warning', 'ImageGCFailed', message);
      } else {
        this.#o.logger.error({ err: message }, 'Image garbage collection failed once. Stats initialization may not have completed yet');
      }
      this.#previousFailed = true;
    }
  }

  /** the images used now, and the records brought up to date (kubelet's detectImages) */
  async detectImages(detectTime: number): Promise<Set<string>> {
    const inUse = new Set<string>();
    if (this.#o.sandboxImage) {
      const sandbox = await this.#o.images.imageStatus({ image: this.#o.sandboxImage }).catch(() => undefined);
      if (sandbox?.image?.id) inUse.add(sandbox.image.id);
    }
    const [images, containers] = await Promise.all([this.#o.images.listImages(), this.#o.runtime.listContainers()]);
    for (const c of containers) {
      if (c.imageRef) inUse.add(c.imageRef);
      if (c.image?.image) inUse.add(c.image.image);
    }
    const now = this.#now();
    const present = new Set<string>();
    for (const image of images) {
      present.add(image.id);
      let record = this.#records.get(image.id);
      if (!record) {
        record = { firstDetected: detectTime, lastUsed: Number.NEGATIVE_INFINITY, size: 0 };
        this.#records.set(image.id, record);
      }
      const names = [image.id, ...(image.repoTags ?? []), ...(image.repoDigests ?? [])];
      if (names.some((n) => inUse.has(n))) {
        record.lastUsed = now;
        inUse.add(image.id);
      }
      record.size = Number(image.size ?? 0) || 0;
    }
    for (const id of this.#records.keys()) if (!present.has(id)) this.#records.delete(id);
    return inUse;
  }

  /** kubelet's GarbageCollect: frees down to the low threshold when usage is at or above the high one */
  async garbageCollect(): Promise<void> {
    const fs = await this.#o.imageFsStats();
    const capacity = Math.trunc(fs.capacityBytes ?? 0);
    let available = Math.trunc(fs.availableBytes ?? 0);
    if (available > capacity) {
      this.#o.logger.warn({ available, capacity }, 'available is larger than capacity');
      available = capacity;
    }
    if (capacity === 0) {
      const message = 'invalid capacity 0 on image filesystem';
      this.#o.event?.('Warning', 'InvalidDiskCapacity', message);
      throw new Error(message);
    }
    const { highThresholdPercent: high, lowThresholdPercent: low } = this.#o.policy;
    const usagePercent = 100 - Math.trunc((available * 100) / capacity);
    if (usagePercent < high) return;
    const amountToFree = Math.trunc((capacity * (100 - low)) / 100) - available;
    this.#o.logger.info(
      { usagePercent, high, low, amountToFree },
      `[imageGCManager]: Disk usage on image filesystem is at ${usagePercent}% which is over the high threshold (${high}%). Trying to free ${amountToFree} bytes down to the low threshold (${low}%).`,
    );
    const freed = await this.freeSpace(amountToFree, this.#now());
    if (freed < amountToFree) {
      const message = `failed to garbage collect required amount of images. Wanted to free ${amountToFree} bytes, but freed ${freed} bytes`;
      this.#o.event?.('Warning', 'FreeDiskSpaceFailed', message);
      throw new Error(message);
    }
  }

  /** every unused image old enough (the eviction manager's node-level reclaim) */
  async deleteUnusedImages(): Promise<void> {
    await this.freeSpace(Number.MAX_SAFE_INTEGER, this.#now());
  }

  /** removes unused images, least recently used first, until `bytesToFree` are freed; the bytes freed */
  async freeSpace(bytesToFree: number, freeTime: number): Promise<number> {
    const inUse = await this.detectImages(freeTime);
    const candidates = [...this.#records]
      .filter(([id]) => !inUse.has(id))
      .sort(([, a], [, b]) => (a.lastUsed !== b.lastUsed ? a.lastUsed - b.lastUsed : a.firstDetected - b.firstDetected));
    const errors: string[] = [];
    let freed = 0;
    for (const [id, record] of candidates) {
      // used since this pass began
      if (record.lastUsed >= freeTime) continue;
      // just pulled: a container may be about to use it
      if (freeTime - record.firstDetected < this.#o.policy.minAgeMs) continue;
      this.#o.logger.info({ image: id, size: record.size }, `[imageGCManager]: Removing image "${id}" to free ${record.size} bytes`);
      try {
        await this.#o.images.removeImage({ image: id });
      } catch (err) {
        errors.push((err as Error).message);
        continue;
      }
      this.#records.delete(id);
      freed += record.size;
      if (freed >= bytesToFree) break;
    }
    if (errors.length > 0) {
      const aggregate = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
      throw new Error(`wanted to free ${bytesToFree} bytes, but freed ${freed} bytes space with errors in image deletion: ${aggregate}`);
    }
    return freed;
  }
}
