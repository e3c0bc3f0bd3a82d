/**
 * Resource quantities as node status writes them: kube's canonical text of resource.NewQuantity for
 * byte counts (BinarySI: the largest exact binary suffix, `16393988Ki`) and counts (DecimalSI).
 */
import { parseQuantity } from '../../api/kinds/core/quantity';

export { parseQuantity };

const BINARY: Array<[string, number]> = [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]];
const DECIMAL: Array<[string, number]> = [['E', 1e18], ['P', 1e15], ['T', 1e12], ['G', 1e9], ['M', 1e6], ['k', 1e3]];

/** a whole number of bytes, as a BinarySI quantity */
export function binaryQuantity(bytes: number): string {
  const v = Math.max(0, Math.floor(bytes));
  if (v === 0) return '0';
  for (const [suffix, size] of BINARY) if (v >= size && v % size === 0) return `${v / size}${suffix}`;
  return String(v);
}

/** a count (pods, cpu cores), as a DecimalSI quantity; fractions in milli-units (cpu `1500m`) */
export function decimalQuantity(value: number): string {
  const v = Math.max(0, value);
  if (!Number.isInteger(v)) return `${Math.round(v * 1000)}m`;
  if (v === 0) return '0';
  for (const [suffix, size] of DECIMAL) if (v >= size && v % size === 0) return `${v / size}${suffix}`;
  return String(v);
}

/** a resource's value in its unit (cpu in cores, the rest as counts or bytes) */
export function quantityValue(text: string | undefined): number {
  return parseQuantity(text) ?? 0;
}

/** write a value back in the form kube uses for that resource */
export function formatResource(name: string, value: number): string {
  if (name === 'cpu' || name === 'pods') return decimalQuantity(value);
  if (name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-')) return binaryQuantity(value);
  return decimalQuantity(value);
}
