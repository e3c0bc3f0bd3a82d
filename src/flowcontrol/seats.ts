/**
 * kube 1.20's seat arithmetic: the server's concurrency limit (--max-requests-inflight plus
 * --max-mutating-requests-inflight) is shared among the Limited priority levels in proportion to
 * their assured concurrency shares, rounding up: ceil(limit * shares / sum of shares).
 */

export interface LevelShares {
  name: string;
  shares: number;
}

export function concurrencyLimits(serverLimit: number, levels: readonly LevelShares[]): Map<string, number> {
  const total = levels.reduce((sum, l) => sum + Math.max(0, l.shares), 0);
  const limits = new Map<string, number>();
  for (const l of levels) {
    limits.set(l.name, total > 0 ? Math.ceil((serverLimit * Math.max(0, l.shares)) / total) : 0);
  }
  return limits;
}
