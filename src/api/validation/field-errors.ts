/**
 * Field errors as kube's apimachinery `field.Error` renders them into a Status cause: the reason is
 * the error type (`FieldValueInvalid`), the message is the error body (`Invalid value: "x": detail`)
 * and the field is the path (`spec.template.spec.containers[0].image`).
 */
import type { StatusCause } from '../errors';
import { jsonEqual } from '../json-value';

/**
 * A value as Go's fmt prints a bad value in a field error: strings quoted, numbers and booleans bare,
 * string maps as `map[string]string{"k":"v"}`, anything else as compact JSON.
 */
export function formatValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return `[]string{${value.map((v) => JSON.stringify(v)).join(', ')}}`;
  }
  if (typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.every(([, v]) => typeof v === 'string')) {
      // Go prints map keys sorted
      const body = entries
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
        .join(', ');
      return `map[string]string{${body}}`;
    }
  }
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function withDetail(body: string, detail?: string): string {
  return detail ? `${body}: ${detail}` : body;
}

export function required(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: withDetail('Required value', detail), field };
}

export function invalid(field: string, value: unknown, detail = ''): StatusCause {
  return { reason: 'FieldValueInvalid', message: withDetail(`Invalid value: ${formatValue(value)}`, detail), field };
}

/** kube quotes each supported value and joins them with ", " */
export function notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  const detail = supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : '';
  return { reason: 'FieldValueNotSupported', message: withDetail(`Unsupported value: ${formatValue(value)}`, detail), field };
}

export function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${formatValue(value)}`, field };
}

export function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: withDetail('Forbidden', detail), field };
}

export function notFound(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueNotFound', message: `Not found: ${formatValue(value)}`, field };
}

export function tooLong(field: string, maxLength: number): StatusCause {
  return { reason: 'FieldValueTooLong', message: `Too long: may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}`, field };
}

/** kube's ValidateImmutableField: deep-equal or `field is immutable` */
export function immutable(field: string, next: unknown, prev: unknown): StatusCause[] {
  return jsonEqual(next, prev) ? [] : [invalid(field, next, 'field is immutable')];
}

