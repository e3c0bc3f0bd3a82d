/**
 * Per-key single flight for the aggregator's downloads (remote discovery and OpenAPI): one run per
 * key at a time; a refresh asked for while a run is under way joins it and runs once more after it,
 * so a change seen mid-download is never lost.
 */
export class SingleFlight {
  readonly #run: (key: string) => Promise<void>;
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #dirty = new Set<string>();

  constructor(run: (key: string) => Promise<void>) {
    this.#run = run;
  }

  refresh(key: string): Promise<void> {
    const running = this.#inFlight.get(key);
    if (running) {
      this.#dirty.add(key);
      return running;
    }
    const p = this.#run(key).finally(() => {
      this.#inFlight.delete(key);
      if (this.#dirty.delete(key)) void this.refresh(key);
    });
    this.#inFlight.set(key, p);
    return p;
  }
}
