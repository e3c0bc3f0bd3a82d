/** Latency samples and their summaries (milliseconds). */

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** the q-quantile (0..1) of sorted values, nearest rank */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

export function summarize(samples: readonly number[]): LatencySummary {
  const s = [...samples].sort((a, b) => a - b);
  const sum = s.reduce((a, b) => a + b, 0);
  return {
    count: s.length,
    p50: round(quantile(s, 0.5)),
    p90: round(quantile(s, 0.9)),
    p99: round(quantile(s, 0.99)),
    max: round(s[s.length - 1] ?? NaN),
    mean: round(s.length ? sum / s.length : NaN),
  };
}

export function round(n: number, digits = 3): number {
  if (!Number.isFinite(n)) return n;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** milliseconds since an hrtime origin */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** run `worker(i)` for i in [0, count) with `concurrency` in flight; returns per-call latencies and the wall time */
export async function runConcurrent(count: number, concurrency: number, worker: (i: number) => Promise<void>, onDone?: () => void): Promise<{ latencies: number[]; elapsedMs: number }> {
  const latencies: number[] = [];
  let next = 0;
  const start = nowMs();
  const lane = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const t0 = nowMs();
      await worker(i);
      latencies.push(nowMs() - t0);
      onDone?.();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return { latencies, elapsedMs: nowMs() - start };
}
