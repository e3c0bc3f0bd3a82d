/**
 * An in-process informer: list then watch one kind through the Registry (never storage), keeping
 * the objects by `namespace/name` and telling a listener which key changed. A watch that ends or
 * reports an ERROR (410 Gone, fallen behind) is followed by a fresh list, as client-go's reflector
 * relists. Used by the aggregator for APIServices, Services and Endpoints.
 */
import type { KindDefinition, KubeObject } from '../api/kind';
import type { Registry, WatchHandle } from '../api/registry/types';

export interface RegistryInformerOptions {
  registry: Registry;
  kind: KindDefinition;
  /** called after the store changed, with the key `namespace/name` (or `name` when cluster-scoped) */
  onChange?: (key: string, obj: KubeObject | undefined) => void;
  /** failures of list or watch; the informer retries after retryMs */
  onError?: (err: unknown) => void;
  retryMs?: number;
}

export function keyOf(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${obj.metadata?.name ?? ''}` : String(obj.metadata?.name ?? '');
}

export class RegistryInformer<T extends KubeObject = KubeObject> {
  readonly #opts: RegistryInformerOptions;
  readonly #items = new Map<string, T>();
  #handle: WatchHandle | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #synced: Promise<void>;
  #markSynced!: () => void;

  constructor(opts: RegistryInformerOptions) {
    this.#opts = opts;
    this.#synced = new Promise((resolve) => (this.#markSynced = resolve));
  }

  /** resolves after the first list */
  get synced(): Promise<void> {
    return this.#synced;
  }

  start(): void {
    void this.#run();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#handle?.cancel();
    this.#handle = undefined;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  async #run(): Promise<void> {
    if (this.#stopped) return;
    const { registry, kind } = this.#opts;
    try {
      const list = await registry.list({ kind }, {});
      if (this.#stopped) return;
      const seen = new Set<string>();
      for (const item of list.items) {
        const key = keyOf(item);
        seen.add(key);
        this.#set(key, item as T);
      }
      for (const key of [...this.#items.keys()]) if (!seen.has(key)) this.#delete(key);
      this.#markSynced();
      let ended = false;
      const restart = (): void => {
        if (ended) return;
        ended = true;
        this.#handle?.cancel();
        this.#handle = undefined;
        this.#schedule(0);
      };
      this.#handle = await registry.watch({ kind }, { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true }, {
        send: (event) => {
          if (this.#stopped) return false;
          const obj = event.object as T;
          if (event.type === 'ERROR') restart();
          else if (event.type === 'DELETED') this.#delete(keyOf(obj));
          else if (event.type === 'ADDED' || event.type === 'MODIFIED') this.#set(keyOf(obj), obj);
          return !ended;
        },
        end: restart,
      });
      if (this.#stopped) this.#handle.cancel();
    } catch (err) {
      this.#opts.onError?.(err);
      this.#schedule(this.#opts.retryMs ?? 1000);
    }
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#run(), ms);
  }

  #set(key: string, obj: T): void {
    const old = this.#items.get(key);
    if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) return;
    this.#items.set(key, obj);
    this.#opts.onChange?.(key, obj);
  }

  #delete(key: string): void {
    if (!this.#items.delete(key)) return;
    this.#opts.onChange?.(key, undefined);
  }
}
