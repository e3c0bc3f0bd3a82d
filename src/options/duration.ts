/**
 * Durations in the notation Kubernetes components accept on their command lines (Go's
 * time.ParseDuration): a sequence of decimal numbers each followed by a unit, such as `5m0s`,
 * `1h30m`, `300ms`, `1.5h`, optionally signed; a bare `0` is allowed. Values are milliseconds here.
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/** parse a duration such as `5m0s` into milliseconds; throws Error with a readable reason */
export function parseDuration(text: string): number {
  let rest = text.trim();
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new Error(`invalid duration "${text}"`);
  let total = 0;
  while (rest.length > 0) {
    const m = PART.exec(rest);
    if (!m) {
      // Go distinguishes a number without a unit from garbage; both are refused.
      const reason = /^\d+(\.\d*)?$/.test(rest) ? 'missing unit in duration' : 'invalid duration';
      throw new Error(`${reason} "${text}"`);
    }
    total += Number(m[1]) * UNIT_MS[m[2]];
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

/** format milliseconds the way Go prints a time.Duration (`1m0s`, `1h0m0s`, `500ms`, `0s`) */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  let out: string;
  if (rest < 1000) {
    out = `${trimNumber(rest)}ms`;
  } else {
    const h = Math.floor(rest / 3_600_000);
    rest -= h * 3_600_000;
    const m = Math.floor(rest / 60_000);
    rest -= m * 60_000;
    const s = `${trimNumber(rest / 1000)}s`;
    out = h > 0 ? `${h}h${m}m${s}` : m > 0 ? `${m}m${s}` : s;
  }
  return neg ? `-${out}` : out;
}

function trimNumber(n: number): string {
  return String(Number(n.toFixed(6)));
}
