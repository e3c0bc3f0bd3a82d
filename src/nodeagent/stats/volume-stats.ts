/**
 * A pod's volume usage for the summary (kubelet's volume stats calculator, every
 * --volume-stats-agg-period): the bytes and inodes under each of the pod's local volume
 * directories (<root-dir>/pods/<uid>/volumes/kubernetes.io~<plugin>/<name>), measured with a walk
 * like du and cached for the period; capacity and free space are nodefs'.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { VolumeStats } from '../server/stats';
import { kubeTime } from '../node/setters';
import type { NodeStatsSource } from './node-stats';

/** the plugins whose volumes live on the node's disk under the pod's directory */
const LOCAL_PLUGINS = ['kubernetes.io~empty-dir', 'kubernetes.io~configmap', 'kubernetes.io~secret', 'kubernetes.io~downward-api', 'kubernetes.io~projected'];

/** bytes (of regular files) and inodes (files and directories) under a directory, not following links */
export async function dirUsage(dir: string): Promise<{ bytes: number; inodes: number }> {
  let bytes = 0;
  let inodes = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return { bytes, inodes };
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    inodes++;
    if (e.isDirectory()) {
      const sub = await dirUsage(p);
      bytes += sub.bytes;
      inodes += sub.inodes;
    } else if (e.isFile()) {
      bytes += await fs.lstat(p).then((s) => s.size, () => 0);
    }
  }
  return { bytes, inodes };
}

export interface PodVolumeStatsOptions {
  /** --root-dir */
  rootDir: string;
  node: Pick<NodeStatsSource, 'fsOf'>;
  /** --volume-stats-agg-period (1 m); 0 measures on every call */
  cacheMs?: number;
  now?: () => number;
}

export class PodVolumeStats {
  readonly #o: PodVolumeStatsOptions;
  readonly #now: () => number;
  readonly #cache = new Map<string, { at: number; stats: VolumeStats[] }>();

  constructor(opts: PodVolumeStatsOptions) {
    this.#o = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** the pod's local volumes, measured at most once per period */
  async forPod(uid: string): Promise<VolumeStats[]> {
    const now = this.#now();
    const cached = this.#cache.get(uid);
    if (cached && now - cached.at < (this.#o.cacheMs ?? 60_000)) return cached.stats;
    const base = path.join(this.#o.rootDir, 'pods', uid, 'volumes');
    const nodefs = await this.#o.node.fsOf(this.#o.rootDir);
    const stats: VolumeStats[] = [];
    for (const plugin of LOCAL_PLUGINS) {
      let names: string[];
      try {
        names = await fs.readdir(path.join(base, plugin));
      } catch {
        continue;
      }
      for (const name of names) {
        const usage = await dirUsage(path.join(base, plugin, name));
        stats.push({
          name,
          time: kubeTime(now),
          availableBytes: nodefs.availableBytes,
          capacityBytes: nodefs.capacityBytes,
          usedBytes: usage.bytes,
          inodesFree: nodefs.inodesFree,
          inodes: nodefs.inodes,
          inodesUsed: usage.inodes,
        });
      }
    }
    this.#cache.set(uid, { at: now, stats });
    // pods gone long ago drop out
    for (const [key, entry] of this.#cache) if (now - entry.at > 10 * (this.#o.cacheMs ?? 60_000)) this.#cache.delete(key);
    return stats;
  }
}
