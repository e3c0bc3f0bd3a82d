import type { Revision, StoreEvent } from '../store';

export interface RingBufferOptions {
  /** events kept; 0 keeps none (every watch from the past replays from the log) */
  capacity: number;
  /** the revision the buffer starts after (the store's current revision when it opened) */
  startRevision: Revision;
  /**
   * most characters of values (and previous values) held; the oldest events are dropped beyond it,
   * so a burst of large objects cannot hold memory without bound. Default 64 Mi.
   */
  maxBytes?: number;
}

/** memory an event holds, roughly: its value and its previous value (a delete repeats the same string) */
function weight(e: StoreEvent): number {
  return e.value.length + (e.prevValue !== undefined && e.prevValue !== e.value ? e.prevValue.length : 0) + e.key.length;
}

/**
 * The most recent committed events, in revision order, with no gaps: it holds every event with a
 * revision in (startRevision, lastRevision]. Older events are overwritten as new ones arrive.
 */
export class RingBuffer {
  readonly #slots: (StoreEvent | undefined)[];
  #head = 0;
  #size = 0;
  #startRevision: Revision;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(options: RingBufferOptions) {
    this.#slots = new Array<StoreEvent | undefined>(Math.max(0, options.capacity));
    this.#startRevision = options.startRevision;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  /** characters held (see maxBytes) */
  get bytes(): number {
    return this.#bytes;
  }

  /** every event after this revision is in the buffer */
  get startRevision(): Revision {
    return this.#startRevision;
  }

  get lastRevision(): Revision {
    return this.#startRevision + this.#size;
  }

  get size(): number {
    return this.#size;
  }

  /** append the next committed event; a revision that does not follow the last one restarts the buffer */
  push(event: StoreEvent): void {
    const capacity = this.#slots.length;
    if (event.revision !== this.lastRevision + 1) this.reset(event.revision - 1);
    if (capacity === 0) {
      this.#startRevision = event.revision;
      return;
    }
    if (this.#size === capacity) this.#dropOldest();
    this.#slots[(this.#head + this.#size) % capacity] = event;
    this.#size++;
    this.#bytes += weight(event);
    // keep at least the newest event, however large
    while (this.#bytes > this.#maxBytes && this.#size > 1) this.#dropOldest();
  }

  /** forget every event: the buffer starts again after revision */
  reset(revision: Revision): void {
    this.#slots.fill(undefined);
    this.#head = 0;
    this.#size = 0;
    this.#bytes = 0;
    this.#startRevision = revision;
  }

  #dropOldest(): void {
    const capacity = this.#slots.length;
    const old = this.#slots[this.#head];
    if (old) this.#bytes -= weight(old);
    this.#slots[this.#head] = undefined;
    this.#head = (this.#head + 1) % capacity;
    this.#size--;
    this.#startRevision++;
  }

  /** true when every event after `after` is held (so a watch from there needs no log replay) */
  covers(after: Revision): boolean {
    return after >= this.#startRevision;
  }

  /** the held events with revision > after, oldest first */
  since(after: Revision): StoreEvent[] {
    const capacity = this.#slots.length;
    const skip = Math.max(0, after - this.#startRevision);
    const out: StoreEvent[] = [];
    for (let i = skip; i < this.#size; i++) out.push(this.#slots[(this.#head + i) % capacity] as StoreEvent);
    return out;
  }
}
