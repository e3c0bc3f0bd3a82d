/**
 * Field errors in apimachinery's wording (`<path>: Invalid value: <value>: <detail>`), so the
 * messages a bad configuration produces read as kube-scheduler's do.
 */

/** Go's rendering of a bad value: strings quoted, numbers and booleans bare, durations as text */
function show(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof GoText) return value.text;
  return JSON.stringify(value);
}

/** a value Go prints through its String() method (durations): shown without quotes */
export class GoText {
  constructor(readonly text: string) {}
}

export const invalid = (path: string, value: unknown, detail: string): string => `${path}: Invalid value: ${show(value)}: ${detail}`;

export const required = (path: string, detail = ''): string => `${path}: Required value${detail ? `: ${detail}` : ''}`;

export const duplicate = (path: string, value: unknown): string => `${path}: Duplicate value: ${show(value)}`;

export const forbidden = (path: string, detail: string): string => `${path}: Forbidden: ${detail}`;

export const notSupported = (path: string, value: unknown, supported: readonly string[]): string =>
  `${path}: Unsupported value: ${show(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`;

/** apimachinery's aggregate: one error as itself, several as `[a, b]` */
export function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}
