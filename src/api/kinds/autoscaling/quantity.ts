/**
 * What the autoscaler's validation needs of a resource.Quantity: its sign (kube's
 * Quantity.Sign()), read from the serialized form (`100m`, `1.5Gi`, `-2`, `1e3`).
 */
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|[KMGTPE]i|[numkMGTPE])?$/;

/** -1, 0 or 1; undefined when the value is not a quantity */
export function quantitySign(q: unknown): -1 | 0 | 1 | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? (Math.sign(q) as -1 | 0 | 1) : undefined;
  if (typeof q !== 'string') return undefined;
  const m = QUANTITY.exec(q.trim());
  if (!m) return undefined;
  if (!/[1-9]/.test(m[2])) return 0;
  return m[1] === '-' ? -1 : 1;
}

/** a quantity that is absent or zero (a Go zero resource.Quantity) */
export function isZeroQuantity(q: unknown): boolean {
  return q === undefined || q === null || quantitySign(q) === 0;
}

/** the quantity as kube's printers show it: as stored, `<nil>` for an unset pointer (Quantity.String on nil) */
export function quantityString(q: unknown): string {
  if (typeof q === 'number') return String(q);
  if (q === undefined || q === null) return '<nil>';
  return typeof q === 'string' && q !== '' ? q : '0';
}
