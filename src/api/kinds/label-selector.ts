/**
 * metav1.LabelSelector: kube's validation (ValidateLabelSelector), matching against a label set,
 * and the string form kube prints (`app=web,tier in (a,b)`).
 */
import type { StatusCause } from '../errors';
import { invalid, required, forbidden } from '../validation/field-errors';
import { isQualifiedName, isValidLabelValue } from '../validation/names';
import { validateLabels } from '../validation/object-meta';
import { arrAt, isObj, str, stringMap } from './util';

export function validateLabelSelector(selector: unknown, field: string): StatusCause[] {
  if (selector === undefined || selector === null) return [];
  if (!isObj(selector)) return [invalid(field, selector, 'must be a label selector')];
  const causes = validateLabels(selector.matchLabels, `${field}.matchLabels`);
  arrAt(selector, 'matchExpressions').forEach((e, i) => {
    const p = `${field}.matchExpressions[${i}]`;
    const expr = isObj(e) ? e : {};
    const op = str(expr.operator);
    const values = Array.isArray(expr.values) ? expr.values : [];
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) causes.push(required(`${p}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0) causes.push(forbidden(`${p}.values`, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
    } else {
      causes.push(invalid(`${p}.operator`, op, 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(str(expr.key))) causes.push(invalid(`${p}.key`, str(expr.key), msg));
    values.forEach((v, j) => {
      for (const msg of isValidLabelValue(str(v))) causes.push(invalid(`${p}.values[${j}]`, v, msg));
    });
  });
  return causes;
}

/** true when the selector has neither matchLabels nor matchExpressions (kube: selects nothing for controllers) */
export function isEmptySelector(selector: unknown): boolean {
  if (!isObj(selector)) return true;
  return Object.keys(stringMap(selector.matchLabels)).length === 0 && arrAt(selector, 'matchExpressions').length === 0;
}

/** kube's LabelSelectorAsSelector(...).Matches(labels); a nil selector matches nothing, an empty one everything */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  if (!isObj(selector)) return false;
  for (const [k, v] of Object.entries(stringMap(selector.matchLabels))) if (labels[k] !== v) return false;
  for (const e of arrAt(selector, 'matchExpressions')) {
    if (!isObj(e)) return false;
    const key = str(e.key);
    const values = (Array.isArray(e.values) ? e.values : []).map(str);
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(labels[key])) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** kube's selector String(): requirements sorted by key, values sorted */
export function selectorString(selector: unknown): string {
  if (!isObj(selector)) return '';
  const reqs: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(stringMap(selector.matchLabels))) reqs.push([k, `${k}=${v}`]);
  for (const e of arrAt(selector, 'matchExpressions')) {
    if (!isObj(e)) continue;
    const key = str(e.key);
    const values = (Array.isArray(e.values) ? e.values : []).map(str).sort();
    switch (e.operator) {
      case 'In':
        reqs.push([key, values.length === 1 ? `${key} in (${values[0]})` : `${key} in (${values.join(',')})`]);
        break;
      case 'NotIn':
        reqs.push([key, `${key} notin (${values.join(',')})`]);
        break;
      case 'Exists':
        reqs.push([key, key]);
        break;
      case 'DoesNotExist':
        reqs.push([key, `!${key}`]);
        break;
    }
  }
  return reqs
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map((r) => r[1])
    .join(',');
}
