import type { Logger } from 'pino';
import type { Revision, Store } from './store';

export interface CompactorOptions {
  store: Store;
  /** time between compactions; 0 (or less) disables the compactor */
  intervalMs: number;
  logger?: Logger;
}

export interface Compactor {
  stop(): void;
}

/**
 * Compacts periodically. Like kube-apiserver with etcd, each tick compacts up to the revision that
 * was current at the previous tick, so at least one interval of history always stays for watches
 * and continue tokens. A failed compaction is logged and the next tick tries again (compaction
 * resumes where its last committed batch stopped).
 */
export function startCompactor(options: CompactorOptions): Compactor {
  const { store, intervalMs, logger } = options;
  if (!(intervalMs > 0)) return { stop() {} };
  let previous: Revision = store.currentRevision();
  let running = false;
  let stopped = false;
  /** the last compaction failed part-way: resume it even if no revision was added since */
  let resume = false;
  const tick = async (): Promise<void> => {
    const target = previous;
    previous = store.currentRevision();
    if (running || (target <= store.compactRevision() && !resume)) return;
    running = true;
    const started = Date.now();
    try {
      const removed = await store.compact(Math.max(target, store.compactRevision()));
      resume = false;
      logger?.info({ revision: target, removed, ms: Date.now() - started }, 'compacted storage history');
    } catch (err) {
      resume = true;
      if (!stopped) logger?.warn({ err, revision: target }, 'storage compaction failed; retrying at the next interval');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
