/**
 * A binary heap keyed by string, with removal and update by key (kube's scheduler heap): the
 * active queue orders pods by the profile's QueueSort plugin, the backoff queue by backoff expiry.
 */
export class KeyedHeap<T> {
  readonly #items: T[] = [];
  readonly #index = new Map<string, number>();
  readonly #keyOf: (item: T) => string;
  readonly #less: (a: T, b: T) => boolean;

  constructor(keyOf: (item: T) => string, less: (a: T, b: T) => boolean) {
    this.#keyOf = keyOf;
    this.#less = less;
  }

  get size(): number {
    return this.#items.length;
  }

  has(key: string): boolean {
    return this.#index.has(key);
  }

  get(key: string): T | undefined {
    const i = this.#index.get(key);
    return i === undefined ? undefined : this.#items[i];
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  /** add, or replace the item with the same key and reposition it */
  upsert(item: T): void {
    const key = this.#keyOf(item);
    const at = this.#index.get(key);
    if (at !== undefined) {
      this.#items[at] = item;
      this.#fix(at);
      return;
    }
    this.#items.push(item);
    this.#index.set(key, this.#items.length - 1);
    this.#up(this.#items.length - 1);
  }

  pop(): T | undefined {
    if (this.#items.length === 0) return undefined;
    const top = this.#items[0];
    this.#removeAt(0);
    return top;
  }

  delete(key: string): T | undefined {
    const at = this.#index.get(key);
    if (at === undefined) return undefined;
    const item = this.#items[at];
    this.#removeAt(at);
    return item;
  }

  values(): readonly T[] {
    return this.#items;
  }

  #removeAt(at: number): void {
    const last = this.#items.length - 1;
    this.#index.delete(this.#keyOf(this.#items[at]));
    if (at !== last) {
      this.#items[at] = this.#items[last];
      this.#index.set(this.#keyOf(this.#items[at]), at);
    }
    this.#items.pop();
    if (at < this.#items.length) this.#fix(at);
  }

  #fix(at: number): void {
    if (!this.#up(at)) this.#down(at);
  }

  #swap(i: number, j: number): void {
    const a = this.#items[i];
    this.#items[i] = this.#items[j];
    this.#items[j] = a;
    this.#index.set(this.#keyOf(this.#items[i]), i);
    this.#index.set(this.#keyOf(this.#items[j]), j);
  }

  #up(at: number): boolean {
    let i = at;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#items[i], this.#items[parent])) break;
      this.#swap(i, parent);
      i = parent;
    }
    return i !== at;
  }

  #down(at: number): void {
    let i = at;
    const n = this.#items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      let child = l;
      if (l + 1 < n && this.#less(this.#items[l + 1], this.#items[l])) child = l + 1;
      if (!this.#less(this.#items[child], this.#items[i])) return;
      this.#swap(i, child);
      i = child;
    }
  }
}
