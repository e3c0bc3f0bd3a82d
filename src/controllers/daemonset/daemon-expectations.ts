/**
 * The DaemonSet controller's expectations (kube's ControllerExpectations.SetExpectations): one
 * sync both creates and deletes, so it waits for both counts at once. Expired after five minutes,
 * as the shared ones (a lost watch event must not stall the DaemonSet).
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../util/expectations';

export class DaemonExpectations {
  readonly #items = new Map<string, { add: number; del: number; at: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  satisfied(key: string): boolean {
    const e = this.#items.get(key);
    if (!e || (e.add <= 0 && e.del <= 0)) return true;
    return this.#now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  expect(key: string, add: number, del: number): void {
    this.#items.set(key, { add, del, at: this.#now() });
  }

  creationObserved(key: string): void {
    const e = this.#items.get(key);
    if (e) e.add -= 1;
  }

  deletionObserved(key: string): void {
    const e = this.#items.get(key);
    if (e) e.del -= 1;
  }

  forget(key: string): void {
    this.#items.delete(key);
  }
}
