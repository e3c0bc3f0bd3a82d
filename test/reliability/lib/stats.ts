/** Small numeric helpers for the reliability tools: a seeded PRNG, percentiles, sizes. */

/** mulberry32: a tiny seeded PRNG, so a failing run reproduces from its printed seed */
export class Prng {
  #s: number;
  constructor(readonly seed: number) {
    this.#s = seed >>> 0;
  }
  /** [0, 1) */
  next(): number {
    let t = (this.#s = (this.#s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** integer in [lo, hi] */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

export function seedFrom(value: string | undefined): number {
  const n = value === undefined ? NaN : Number(value);
  return Number.isFinite(n) ? n >>> 0 : (Date.now() ^ (process.pid << 16)) >>> 0;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const ms = (v: number) => `${v.toFixed(1)} ms`;

/** parse `--name value` / `--name=value` flags into a map */
export function parseFlags(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out.set(a.slice(2, eq), a.slice(eq + 1));
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out.set(a.slice(2), argv[++i]);
    else out.set(a.slice(2), 'true');
  }
  return out;
}
