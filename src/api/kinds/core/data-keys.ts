/** data-key rules and the `immutable: true` rule shared by ConfigMap and Secret */
import type { StatusCause } from '../../errors';
import { forbidden, invalid } from '../../validation/field-errors';
import { isConfigMapKey } from '../../validation/names';
import { isObj } from '../util';
import { jsonEqual } from '../../json-value';

/** kube's MaxSecretSize, also the ConfigMap limit: 1 MiB */
export const MAX_DATA_SIZE = 1024 * 1024;

export function validateDataKeys(data: unknown, field: string): StatusCause[] {
  if (!isObj(data)) return [];
  const causes: StatusCause[] = [];
  for (const key of Object.keys(data)) {
    for (const msg of isConfigMapKey(key)) causes.push(invalid(`${field}[${key}]`, key, msg));
  }
  return causes;
}

/** once `immutable: true`, neither the flag nor the listed data fields may change */
export function validateImmutableData(obj: Record<string, unknown>, old: Record<string, unknown>, fields: string[]): StatusCause[] {
  if (old.immutable !== true) return [];
  const causes: StatusCause[] = [];
  if (!jsonEqual(obj.immutable, old.immutable)) causes.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) {
    if (!jsonEqual(obj[f] ?? {}, old[f] ?? {})) causes.push(forbidden(f, 'field is immutable when `immutable` is set'));
  }
  return causes;
}
