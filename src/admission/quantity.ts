/**
 * Resource quantities as the plugins add and compare them (numbers; a double is exact enough for
 * the sums of requests and limits), and written back in a form kube would print.
 */
import { parseQuantity } from '../api/kinds/core/quantity';

export { parseQuantity };

const BINARY: Array<[string, number]> = [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]];
const DECIMAL: Array<[string, number]> = [['E', 1e18], ['P', 1e15], ['T', 1e12], ['G', 1e9], ['M', 1e6], ['k', 1e3]];

/** a quantity text: whole numbers with the largest exact suffix (binary first), fractions in milli-units */
export function formatQuantity(value: number): string {
  if (value === 0) return '0';
  if (!Number.isInteger(value)) {
    const milli = Math.round(value * 1000);
    if (Math.abs(milli - value * 1000) < 1e-6) return `${milli}m`;
    return String(value);
  }
  for (const [suffix, size] of BINARY) if (Math.abs(value) >= size && value % size === 0) return `${value / size}${suffix}`;
  for (const [suffix, size] of DECIMAL) if (Math.abs(value) >= size && value % size === 0) return `${value / size}${suffix}`;
  return String(value);
}

/** the value of a resource list entry, 0 when absent or unparsable */
export function quantityOf(list: Record<string, unknown> | undefined, name: string): number {
  return parseQuantity(list?.[name]) ?? 0;
}
