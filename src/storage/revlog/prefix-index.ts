/**
 * Items registered under key prefixes, found by key: a lookup costs one map probe per distinct
 * prefix length (a handful in practice: `/registry/pods/`, `/registry/pods/<ns>/`, ...), not one
 * test per registered item.
 */
export class PrefixIndex<T> {
  readonly #byPrefix = new Map<string, Set<T>>();
  /** distinct prefix lengths in ascending order, with how many prefixes have each */
  #lengths: number[] = [];
  readonly #lengthUse = new Map<number, number>();

  add(prefix: string, item: T): void {
    let set = this.#byPrefix.get(prefix);
    if (!set) {
      set = new Set();
      this.#byPrefix.set(prefix, set);
      const n = this.#lengthUse.get(prefix.length) ?? 0;
      this.#lengthUse.set(prefix.length, n + 1);
      if (n === 0) this.#lengths = [...this.#lengths, prefix.length].sort((a, b) => a - b);
    }
    set.add(item);
  }

  delete(prefix: string, item: T): void {
    const set = this.#byPrefix.get(prefix);
    if (!set?.delete(item) || set.size > 0) return;
    this.#byPrefix.delete(prefix);
    const n = (this.#lengthUse.get(prefix.length) ?? 1) - 1;
    if (n > 0) {
      this.#lengthUse.set(prefix.length, n);
    } else {
      this.#lengthUse.delete(prefix.length);
      this.#lengths = this.#lengths.filter((l) => l !== prefix.length);
    }
  }

  /** every item whose prefix begins key */
  *match(key: string): Generator<T> {
    for (const len of this.#lengths) {
      if (len > key.length) return;
      const set = this.#byPrefix.get(key.slice(0, len));
      if (set) yield* set;
    }
  }

  /** every item */
  *all(): Generator<T> {
    for (const set of this.#byPrefix.values()) yield* set;
  }
}
