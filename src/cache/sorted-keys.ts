/**
 * Keys in ascending order with prefix scans, for lists served from the watch cache in the order the
 * store returns them. Storage keys are ASCII (names are DNS labels/subdomains), where JavaScript's
 * UTF-16 comparison equals the store's byte order. Insert and delete are a binary search plus a
 * splice (a memmove: fine at 100k keys); scans are a binary search and a walk.
 */
export class SortedKeys {
  #keys: string[] = [];

  get size(): number {
    return this.#keys.length;
  }

  clear(): void {
    this.#keys = [];
  }

  /** replace the contents with keys already in ascending order */
  reset(sorted: string[]): void {
    this.#keys = sorted.slice();
  }

  /** the first index whose key is >= key */
  #lowerBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(key: string): void {
    const i = this.#lowerBound(key);
    if (this.#keys[i] !== key) this.#keys.splice(i, 0, key);
  }

  delete(key: string): void {
    const i = this.#lowerBound(key);
    if (this.#keys[i] === key) this.#keys.splice(i, 1);
  }

  /** how many keys k satisfy from <= k < to */
  countBetween(from: string, to: string): number {
    return Math.max(0, this.#lowerBound(to) - this.#lowerBound(from));
  }

  /** every key beginning with prefix, in order */
  *withPrefix(prefix: string): Generator<string> {
    for (let i = this.#lowerBound(prefix); i < this.#keys.length; i++) {
      const k = this.#keys[i];
      if (!k.startsWith(prefix)) return;
      yield k;
    }
  }
}
