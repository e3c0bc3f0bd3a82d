/**
 * Label key and value syntax as the selector parser checks it: kube's IsQualifiedName and
 * IsValidLabelValue (the same checks metadata validation uses, so they live in one place), plus the
 * way kube's selector errors render bad values and aggregate messages.
 */
import { isQualifiedName, isValidLabelValue } from '../validation/names';

/** problems with a label key (`[prefix/]name`); empty when valid */
export const labelKeyErrors: (value: string) => string[] = isQualifiedName;

/** problems with a label value; empty when valid ('' is a valid value) */
export const labelValueErrors: (value: string) => string[] = isValidLabelValue;

/** how Go's field.Invalid renders its bad value: strings quoted, other values as JSON */
export function renderBadValue(value: unknown): string {
  if (value === undefined) return 'null';
  return JSON.stringify(value);
}

/** a field.Error of type Invalid as Go prints it: `<path>: Invalid value: <value>: <detail>` */
export function invalidValue(path: string, value: unknown, detail: string): string {
  return `${path}: Invalid value: ${renderBadValue(value)}: ${detail}`;
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated inside brackets */
export function aggregateMessage(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
