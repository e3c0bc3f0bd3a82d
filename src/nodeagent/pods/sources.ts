/**
 * The pod sources (kubelet's config/): the API (pods bound to this node), manifest files
 * (--pod-manifest-path, polled every --file-check-frequency) and a manifest URL (--manifest-url with
 * --manifest-url-header, polled every --http-check-frequency). Each reports its whole set of pods
 * to a callback, which PodConfig merges.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import { SharedInformer as Informer } from '../../client/informer';
import type { Pod } from '../types';
import { applyStaticPodDefaults, decodeManifest } from './static-pods';

export type SetPods = (pods: Pod[]) => void;

/** a polling source: runs `poll` now and then every `everyMs` until stopped */
abstract class PollingSource {
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  constructor(protected readonly everyMs: number) {}

  start(): void {
    const tick = async () => {
      if (this.#stopped) return;
      await this.poll();
      if (!this.#stopped) this.#timer = setTimeout(() => void tick(), this.everyMs);
    };
    void tick();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  abstract poll(): Promise<void>;
}

export interface FileSourceOptions {
  /** a directory of manifests, or one manifest file */
  path: string;
  nodeName: string;
  everyMs: number;
  set: SetPods;
  logger: Logger;
}

/** --pod-manifest-path: every file not starting with a dot, in name order (kubelet's file source) */
export class FileSource extends PollingSource {
  readonly #opts: FileSourceOptions;
  constructor(opts: FileSourceOptions) {
    super(opts.everyMs);
    this.#opts = opts;
  }

  async poll(): Promise<void> {
    const { path: root, nodeName, logger } = this.#opts;
    let files: string[];
    try {
      const stat = await fs.stat(root);
      files = stat.isDirectory()
        ? (await fs.readdir(root)).filter((f) => !f.startsWith('.')).sort().map((f) => path.join(root, f))
        : [root];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn({ path: root, err: (err as Error).message }, 'cannot read the pod manifest path');
      this.#opts.set([]);
      return;
    }
    const pods: Pod[] = [];
    for (const file of files) {
      try {
        const stat = await fs.stat(file);
        if (!stat.isFile()) continue;
        const manifests = decodeManifest(await fs.readFile(file, 'utf8'));
        for (const m of manifests) pods.push(applyStaticPodDefaults(m, { nodeName, kind: 'file', location: file }));
      } catch (err) {
        logger.warn({ file, err: (err as Error).message }, 'cannot read a static pod manifest; skipping it');
      }
    }
    this.#opts.set(pods);
  }
}

export interface UrlSourceOptions {
  url: string;
  /** --manifest-url-header: each name with its values */
  headers: Record<string, string[]>;
  nodeName: string;
  everyMs: number;
  set: SetPods;
  logger: Logger;
}

/** --manifest-url: one pod or a PodList, fetched every period; unchanged bodies are not reported again */
export class UrlSource extends PollingSource {
  readonly #opts: UrlSourceOptions;
  #lastBody: string | undefined;
  constructor(opts: UrlSourceOptions) {
    super(opts.everyMs);
    this.#opts = opts;
  }

  async poll(): Promise<void> {
    const { url, nodeName, logger } = this.#opts;
    const headers = new Headers();
    for (const [name, values] of Object.entries(this.#opts.headers)) for (const v of values) headers.append(name, v);
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.statusText}, body: ${body.slice(0, 200)}`);
      if (body === this.#lastBody) return;
      const pods = decodeManifest(body).map((m) => applyStaticPodDefaults(m, { nodeName, kind: 'http', location: url }));
      this.#lastBody = body;
      this.#opts.set(pods);
    } catch (err) {
      logger.warn({ url, err: (err as Error).message }, 'cannot read the pod manifest URL');
    }
  }
}

export interface ApiSourceOptions {
  client: RestClient;
  nodeName: string;
  set: SetPods;
  logger: Logger;
}

/** the pods bound to this node (spec.nodeName=<node>), reported whole on every change */
export class ApiSource {
  readonly informer: SharedInformer<Pod>;
  readonly #opts: ApiSourceOptions;
  readonly #abort = new AbortController();
  #run: Promise<void> | undefined;

  constructor(opts: ApiSourceOptions) {
    this.#opts = opts;
    this.informer = new Informer<Pod>(opts.client, RESOURCES.pods, { fieldSelector: `spec.nodeName=${opts.nodeName}`, logger: opts.logger });
    const report = () => {
      if (this.informer.hasSynced) opts.set(this.informer.store.list());
    };
    this.informer.addEventHandler({ add: report, update: report, delete: report });
  }

  start(): void {
    this.#run = this.informer.run(this.#abort.signal);
    void this.informer.waitForSync(this.#abort.signal).then((ok) => {
      if (ok) this.#opts.set(this.informer.store.list());
    });
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#run;
  }
}
