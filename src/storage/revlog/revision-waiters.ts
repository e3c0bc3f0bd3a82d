import type { Revision } from '../store';

/** callers of Store.waitForRevision, woken when the store reaches their revision or their time is up */
export class RevisionWaiters {
  #waiters: { revision: Revision; resolve: (reached: boolean) => void }[] = [];

  /** resolves true once reached(r) is told some r >= revision, false after timeoutMs or at close */
  wait(revision: Revision, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter = {
        revision,
        resolve: (reached: boolean) => {
          clearTimeout(timer);
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          resolve(reached);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** the store has reached revision */
  reached(revision: Revision): void {
    if (this.#waiters.length === 0) return;
    for (const w of this.#waiters.filter((w) => w.revision <= revision)) w.resolve(true);
  }

  /** every waiter gives up (the store is closing) */
  close(): void {
    for (const w of [...this.#waiters]) w.resolve(false);
  }
}
