/**
 * One informer per resource for a whole component (client-go's SharedInformerFactory): every
 * controller asking for pods shares the same list, watch and store. Informers asked for before
 * `start` begin then; ones asked for later begin at once.
 */
import type { Logger } from 'pino';
import { SharedInformer, type InformerOptions } from './informer';
import type { RestClient } from './rest-client';
import type { KubeObject, ResourceRef } from './types';

export class InformerFactory {
  readonly #client: RestClient;
  readonly #defaults: InformerOptions;
  readonly #informers = new Map<string, SharedInformer>();
  readonly #runs: Promise<void>[] = [];
  #signal: AbortSignal | undefined;

  constructor(client: RestClient, defaults: { resyncMs?: number; logger?: Logger; namespace?: string } = {}) {
    this.#client = client;
    this.#defaults = defaults;
  }

  /**
   * The shared informer of a resource (created on first request; `options`, such as a field
   * selector, apply only to that first request: ask with them before anyone else asks)
   */
  informerFor<T extends KubeObject = KubeObject>(ref: ResourceRef, options: InformerOptions = {}): SharedInformer<T> {
    const key = `${ref.group}/${ref.version}/${ref.resource}`;
    let informer = this.#informers.get(key);
    if (!informer) {
      informer = new SharedInformer(this.#client, ref, { ...this.#defaults, ...options });
      this.#informers.set(key, informer);
      if (this.#signal) this.#runs.push(informer.run(this.#signal));
    }
    return informer as unknown as SharedInformer<T>;
  }

  /** start every informer asked for so far, and later ones as they are asked for */
  start(signal: AbortSignal): void {
    if (this.#signal) return;
    this.#signal = signal;
    for (const informer of this.#informers.values()) this.#runs.push(informer.run(signal));
  }

  /** true once every informer started so far has listed; false if the signal aborted first */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const results = await Promise.all([...this.#informers.values()].map((i) => i.waitForSync(signal)));
    return results.every(Boolean);
  }

  /** resolves when every informer has stopped (after the start signal aborted) */
  async stopped(): Promise<void> {
    await Promise.all(this.#runs);
  }
}
