/**
 * Evictions for local storage limits (kubelet 1.20's localStorageEviction, with the
 * LocalStorageCapacityIsolation feature on by default): a pod whose emptyDir holds more than its
 * sizeLimit, whose ephemeral storage use is above the sum of its containers' limits, or one of whose
 * containers writes more than its own limit (logs, plus the writable layer without a dedicated image
 * filesystem). The first such reason per pod is its eviction message.
 */
import { parseQuantity } from '../../api/kinds/core/quantity';
import type { PodStats } from '../server/stats';
import type { Pod } from '../types';
import { bytesText, podDiskUsage, type FsStatsType } from './rank';

type Container = { name: string; resources?: { limits?: Record<string, unknown> } };
type Volume = { name: string; emptyDir?: { sizeLimit?: unknown } };

function text(v: unknown): string {
  return typeof v === 'string' ? v : String(v);
}

/** why the pod must go for its local storage limits, or undefined */
export function localStorageViolation(pod: Pod, stats: PodStats, dedicatedImageFs: boolean): string | undefined {
  const spec = (pod.spec ?? {}) as { containers?: Container[]; initContainers?: Container[]; volumes?: Volume[] };
  const used = new Map((stats.volume ?? []).map((v) => [v.name, v.usedBytes ?? 0]));
  for (const v of spec.volumes ?? []) {
    const size = parseQuantity(v.emptyDir?.sizeLimit);
    const u = used.get(v.name);
    if (v.emptyDir && size !== undefined && size > 0 && u !== undefined && u > size) return `Usage of EmptyDir volume "${v.name}" exceeds the limit "${text(v.emptyDir.sizeLimit)}". `;
  }
  const limited = (spec.containers ?? []).filter((c) => c.resources?.limits?.['ephemeral-storage'] !== undefined);
  const inits = (spec.initContainers ?? []).filter((c) => c.resources?.limits?.['ephemeral-storage'] !== undefined);
  if (limited.length > 0 || inits.length > 0) {
    const value = (c: Container) => parseQuantity(c.resources?.limits?.['ephemeral-storage']) ?? 0;
    let limit = limited.reduce((n, c) => n + value(c), 0);
    for (const c of inits) limit = Math.max(limit, value(c));
    const parts: FsStatsType[] = dedicatedImageFs ? ['logs', 'localVolumeSource'] : ['root', 'logs', 'localVolumeSource'];
    if (podDiskUsage(pod, stats, parts, false) > limit) {
      const shown = limited.length === 1 && inits.length === 0 ? text(limited[0].resources!.limits!['ephemeral-storage']) : bytesText(limit);
      return `Pod ephemeral local storage usage exceeds the total limit of containers ${shown}. `;
    }
  }
  for (const cs of stats.containers) {
    const container = (spec.containers ?? []).find((c) => c.name === cs.name);
    const limit = parseQuantity(container?.resources?.limits?.['ephemeral-storage']) ?? 0;
    if (!container || limit === 0) continue;
    const usage = (cs.logs?.usedBytes ?? 0) + (dedicatedImageFs ? 0 : cs.rootfs?.usedBytes ?? 0);
    if (usage > limit) return `Container ${cs.name} exceeded its local ephemeral storage limit "${text(container.resources!.limits!['ephemeral-storage'])}". `;
  }
  return undefined;
}
