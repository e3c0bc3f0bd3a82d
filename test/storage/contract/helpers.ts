import type { KeyValue, Revision, Store, StorageError, StoreEvent, WatchOptions } from '../../../src/storage/store';

/** what makeStore gives each contract test: a fresh, empty store and how to dispose of it */
export interface StoreFixture {
  store: Store;
  cleanup(): Promise<void>;
}
export type MakeStore = () => Promise<StoreFixture>;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** poll until cond() holds or timeoutMs passes; returns whether it held */
export async function until(cond: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) return false;
    await sleep(5);
  }
  return true;
}

/** a watch whose events, errors and progress reports are recorded */
export function recordWatch(store: Store, opts: Pick<WatchOptions, 'prefix' | 'afterRevision'>) {
  const events: StoreEvent[] = [];
  const errors: StorageError[] = [];
  const progress: Revision[] = [];
  const watch = store.watch({
    ...opts,
    onEvent: (e) => events.push(e),
    onError: (e) => errors.push(e),
    onProgress: (r) => progress.push(r),
  });
  return { events, errors, progress, watch };
}

/** a mutation of a history script */
export type Step = ['create' | 'update', string, string] | ['delete', string];

/**
 * Runs steps one by one and records, per revision, the whole state (key -> KeyValue) as a model
 * to compare historical reads against.
 */
export async function runHistory(store: Store, steps: Step[]): Promise<Map<Revision, Map<string, KeyValue>>> {
  const states = new Map<Revision, Map<string, KeyValue>>();
  let state = new Map<string, KeyValue>();
  states.set(store.currentRevision(), new Map(state));
  for (const step of steps) {
    state = new Map(state);
    if (step[0] === 'create') state.set(step[1], await store.create(step[1], step[2]));
    else if (step[0] === 'update') state.set(step[1], await store.update(step[1], step[2]));
    else {
      const kv = await store.delete(step[1]);
      state.delete(step[1]);
      states.set(kv.modRevision, state);
      continue;
    }
    states.set(store.currentRevision(), state);
  }
  return states;
}

/** the model's keys under prefix in ascending (byte) order */
export function modelList(state: Map<string, KeyValue>, prefix: string): KeyValue[] {
  return [...state.values()].filter((kv) => kv.key.startsWith(prefix)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** read every page of a list with page size `limit` */
export async function listAllPages(store: Store, prefix: string, revision: Revision | undefined, limit: number) {
  const items: KeyValue[] = [];
  let startKey: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await store.list(prefix, { revision, startKey, limit });
    pages++;
    items.push(...page.items);
    if (!page.more) return { items, pages, revision: page.revision };
    revision = page.revision;
    startKey = page.items[page.items.length - 1].key + '\u0000';
  }
}
