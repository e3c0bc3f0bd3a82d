/** kube's IntOrString checks used by rolling-update strategies (ValidatePositiveIntOrPercent and friends) */
import type { StatusCause } from '../../errors';
import { invalid } from '../../validation/field-errors';
import { isValidPercent } from '../../validation/names';

export function validatePositiveIntOrPercent(value: unknown, field: string): StatusCause[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return isValidPercent(value).map((msg) => invalid(field, value, msg));
  if (typeof value === 'number' && Number.isInteger(value)) return value < 0 ? [invalid(field, value, 'must be greater than or equal to 0')] : [];
  return [invalid(field, value, 'must be an integer or percentage (e.g \'5%\')')];
}

/** the number or percentage number of an IntOrString ('25%' -> 25); NaN when malformed */
export function intOrPercentValue(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^[0-9]+%$/.test(value)) return Number(value.slice(0, -1));
  if (value === undefined || value === null) return 0;
  return NaN;
}

export function notMoreThan100Percent(value: unknown, field: string): StatusCause[] {
  if (typeof value !== 'string' || !/^[0-9]+%$/.test(value)) return [];
  return intOrPercentValue(value) > 100 ? [invalid(field, value, 'must not be greater than 100%')] : [];
}
