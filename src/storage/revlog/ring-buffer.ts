import type { Revision, StoreEvent } from '../store';

export interface RingBufferOptions {
  /** events kept; 0 keeps none (every watch from the past replays from the log) */
  capacity: number;
  /** the revision the buffer starts after (the store's current revision when it opened) */
  startRevision: Revision;
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

  constructor(options: RingBufferOptions) {
    this.#slots = new Array<StoreEvent | undefined>(Math.max(0, options.capacity));
    this.#startRevision = options.startRevision;
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
    if (event.revision !== this.lastRevision + 1) {
      this.#slots.fill(undefined);
      this.#head = 0;
      this.#size = 0;
      this.#startRevision = event.revision - 1;
    }
    if (capacity === 0) {
      this.#startRevision = event.revision;
      return;
    }
    if (this.#size === capacity) {
      this.#slots[this.#head] = event;
      this.#head = (this.#head + 1) % capacity;
      this.#startRevision++;
    } else {
      this.#slots[(this.#head + this.#size) % capacity] = event;
      this.#size++;
    }
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
