/**
 * kube's resource.Quantity read as a number, for the comparisons validation makes (a claim may
 * grow, never shrink; a capacity must be positive). Precision beyond a double is not needed there.
 */

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** the value of a quantity (`1Gi`, `500m`, `1e3`, 2), or undefined when it does not parse */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$/.exec(value.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const suffix = m[2];
  if (suffix in BINARY) return n * BINARY[suffix];
  if (suffix in DECIMAL) return n * DECIMAL[suffix];
  const exp = /^[eE]([+-]?[0-9]+)$/.exec(suffix);
  return exp ? n * 10 ** Number(exp[1]) : undefined;
}

/** the text kube prints for a quantity cell: the stored string, `0` for none */
export function quantityText(value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return '0';
}
