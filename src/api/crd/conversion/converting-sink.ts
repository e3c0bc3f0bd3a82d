/**
 * A watch sink that converts events before passing them on: events queue in arrival order, and
 * every run of object events waiting at once is converted by one call (one ConversionReview), so
 * the initial ADDED events of a watch cost one webhook call, not one each. BOOKMARKs get the
 * requested apiVersion; a conversion failure ends the watch with an ERROR event (500), as a
 * decode failure ends a kube watch.
 */
import type { Status } from '../../errors';
import { isApiError, errors } from '../../errors';
import type { KubeObject } from '../../kind';
import type { ApiWatchEvent, WatchSink } from '../../registry/types';

export interface ConvertingSinkOptions {
  downstream: WatchSink;
  apiVersion: string;
  /** objects in the requested version, in order */
  convert(objects: KubeObject[]): Promise<KubeObject[]>;
  /** stop the watch underneath (after a failure or when the downstream is gone) */
  cancel(): void;
}

type Item = ApiWatchEvent | 'END';

export class ConvertingSink implements WatchSink {
  readonly #o: ConvertingSinkOptions;
  readonly #queue: Item[] = [];
  #pumping = false;
  #done = false;

  constructor(options: ConvertingSinkOptions) {
    this.#o = options;
  }

  send(event: ApiWatchEvent): boolean {
    if (this.#done) return false;
    this.#queue.push(event);
    void this.#pump();
    return true;
  }

  end(): void {
    if (this.#done) return;
    this.#queue.push('END');
    void this.#pump();
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#queue.length = 0;
    this.#o.cancel();
    this.#o.downstream.end();
  }

  #deliver(event: ApiWatchEvent): void {
    if (!this.#o.downstream.send(event)) {
      this.#done = true;
      this.#queue.length = 0;
      this.#o.cancel();
    }
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queue.length && !this.#done) {
        const head = this.#queue[0];
        if (head === 'END') {
          this.#queue.shift();
          this.#finish();
          return;
        }
        if (head.type === 'BOOKMARK' || head.type === 'ERROR') {
          this.#queue.shift();
          if (head.type === 'BOOKMARK') {
            const o = head.object as KubeObject;
            this.#deliver({ type: 'BOOKMARK', object: { ...o, apiVersion: this.#o.apiVersion } });
          } else this.#deliver(head);
          continue;
        }
        // the run of object events waiting now, converted together
        let n = 0;
        while (n < this.#queue.length && this.#queue[n] !== 'END' && !['BOOKMARK', 'ERROR'].includes((this.#queue[n] as ApiWatchEvent).type)) n++;
        const run = this.#queue.splice(0, n) as ApiWatchEvent[];
        let converted: KubeObject[];
        try {
          converted = await this.#o.convert(run.map((e) => e.object as KubeObject));
        } catch (err) {
          const status: Status = isApiError(err) ? err.status : errors.internal(String(err)).status;
          this.#deliver({ type: 'ERROR', object: status });
          this.#finish();
          return;
        }
        for (let i = 0; i < run.length && !this.#done; i++) this.#deliver({ type: run[i].type, object: converted[i] });
      }
    } finally {
      this.#pumping = false;
    }
  }
}
