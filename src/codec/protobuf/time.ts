/**
 * kube's time types between JSON and the wire: metav1.Time and MicroTime travel as {seconds, nanos}
 * and read in JSON as RFC 3339 in UTC (Time to the second, MicroTime with exactly six fraction
 * digits); metav1.Duration travels as nanoseconds and reads in JSON as Go's duration string.
 */

export interface Timestamp {
  seconds: number;
  nanos: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** parse an RFC 3339 timestamp (any fraction, any offset) as Go's time.Parse(RFC3339) does */
export function parseTimestamp(text: string): Timestamp {
  const m = RFC3339.exec(text);
  if (!m) throw new Error(`parsing time "${text}" as RFC3339`);
  const [, y, mo, d, h, mi, s, frac, , sign, oh, om] = m;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 into the 1900s
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  let seconds = date.getTime() / 1000;
  if (sign) seconds -= (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const nanos = frac ? Number(frac.padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

function isoSeconds(seconds: number): string {
  // toISOString always writes milliseconds; kube's layouts decide the fraction themselves
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

/** metav1.Time in JSON: `2006-01-02T15:04:05Z` (the fraction is dropped, as kube's JSON does) */
export function formatTime(ts: Timestamp): string {
  return isoSeconds(ts.seconds) + 'Z';
}

/** metav1.MicroTime in JSON: `2006-01-02T15:04:05.000000Z` */
export function formatMicroTime(ts: Timestamp): string {
  const micros = Math.floor(ts.nanos / 1000);
  return `${isoSeconds(ts.seconds)}.${String(micros).padStart(6, '0')}Z`;
}

const UNIT_NANOS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration: `1h2m3.5s`, `-300ms`, `0` */
export function parseDuration(text: string): number {
  const m = /^([+-]?)(.*)$/.exec(text)!;
  const sign = m[1] === '-' ? -1 : 1;
  if (m[2] === '0') return 0;
  const partRe = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let part = partRe.exec(m[2]); part; part = partRe.exec(m[2])) {
    total += Number(part[1]) * UNIT_NANOS[part[2]];
    consumed = partRe.lastIndex;
  }
  if (consumed === 0 || consumed !== m[2].length) throw new Error(`time: invalid duration "${text}"`);
  return sign * Math.round(total);
}

function trimFraction(whole: number, frac: number, digits: number): string {
  if (frac === 0) return String(whole);
  return `${whole}.${String(frac).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** Go's time.Duration.String: `1h0m0s`, `1.5s`, `300ms`, `0s` */
export function formatDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  const neg = nanos < 0;
  let n = Math.abs(nanos);
  let out: string;
  if (n < 1e3) out = `${n}ns`;
  else if (n < 1e6) out = `${trimFraction(Math.floor(n / 1e3), n % 1e3, 3)}µs`;
  else if (n < 1e9) out = `${trimFraction(Math.floor(n / 1e6), n % 1e6, 6)}ms`;
  else {
    const h = Math.floor(n / 3600e9);
    n -= h * 3600e9;
    const mi = Math.floor(n / 60e9);
    n -= mi * 60e9;
    const s = trimFraction(Math.floor(n / 1e9), n % 1e9, 9) + 's';
    out = h > 0 ? `${h}h${mi}m${s}` : mi > 0 ? `${mi}m${s}` : s;
  }
  return neg ? '-' + out : out;
}
