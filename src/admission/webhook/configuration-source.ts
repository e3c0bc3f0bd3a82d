/**
 * A live view of the webhooks of one configuration kind (MutatingWebhookConfiguration or
 * ValidatingWebhookConfiguration), read through the registry: a list, then a watch from its
 * resourceVersion; a watch that ends (410, store closing) is followed by a fresh list. As kube's
 * configuration managers do, the webhooks are kept sorted by configuration name and then by their
 * order inside the configuration, which is the order they are called in.
 */
import type { KubeObject } from '../../api/kind';
import type { Scheme } from '../../api/scheme';
import type { Registry, Target, WatchHandle } from '../../api/registry/types';
import { arrAt, isObj, str, type Obj } from '../../api/kinds/util';

export type WebhookConfigurationKind = 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';

/** one webhook of a configuration, with where it comes from */
export interface WebhookEntry {
  configurationName: string;
  /** position inside its configuration */
  index: number;
  /** the webhook as stored (admissionregistration.k8s.io/v1, defaults applied) */
  hook: Obj;
}

export interface WebhookConfigurationSourceOptions {
  registry: Registry;
  scheme: Scheme;
  kind: WebhookConfigurationKind;
  /** how long to wait before listing again after a failed list or an ended watch (ms) */
  retryMs?: number;
  onError?: (err: unknown) => void;
}

export class WebhookConfigurationSource {
  readonly #opts: WebhookConfigurationSourceOptions;
  readonly #target: Target;
  #configurations = new Map<string, KubeObject>();
  #sorted: WebhookEntry[] | undefined = [];
  #watch: WatchHandle | undefined;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #ready: Promise<void>;
  #markReady!: () => void;

  constructor(opts: WebhookConfigurationSourceOptions) {
    this.#opts = opts;
    const resource = `${opts.kind.toLowerCase()}s`;
    const kind = opts.scheme.byResource('admissionregistration.k8s.io', 'v1', resource);
    if (!kind) throw new TypeError(`admissionregistration.k8s.io/v1 ${resource} is not served`);
    this.#target = { kind };
    this.#ready = new Promise((resolve) => (this.#markReady = resolve));
    void this.#sync();
  }

  /** resolves once the first list has been read */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** the webhooks in call order */
  webhooks(): readonly WebhookEntry[] {
    if (!this.#sorted) {
      const names = [...this.#configurations.keys()].sort();
      this.#sorted = names.flatMap((name) =>
        arrAt(this.#configurations.get(name), 'webhooks')
          .filter(isObj)
          .map((hook, index) => ({ configurationName: name, index, hook })),
      );
    }
    return this.#sorted;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#watch?.cancel();
    this.#watch = undefined;
  }

  async #sync(): Promise<void> {
    if (this.#closed) return;
    try {
      const list = await this.#opts.registry.list(this.#target, {});
      if (this.#closed) return;
      this.#configurations = new Map(list.items.map((o) => [str(o.metadata?.name), o]));
      this.#sorted = undefined;
      this.#markReady();
      this.#watch = await this.#opts.registry.watch(this.#target, { resourceVersion: list.metadata.resourceVersion }, {
        send: (event) => {
          if (this.#closed) return false;
          const obj = event.object as KubeObject;
          const name = str(obj.metadata?.name);
          if (event.type === 'ADDED' || event.type === 'MODIFIED') this.#configurations.set(name, obj);
          else if (event.type === 'DELETED') this.#configurations.delete(name);
          else return true;
          this.#sorted = undefined;
          return true;
        },
        end: () => this.#retry(),
      });
      if (this.#closed) this.#watch.cancel();
    } catch (err) {
      this.#opts.onError?.(err);
      this.#retry();
    }
  }

  #retry(): void {
    if (this.#closed) return;
    this.#watch = undefined;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#sync(), this.#opts.retryMs ?? 1000);
    this.#timer.unref?.();
  }
}
