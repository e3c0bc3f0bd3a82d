/**
 * The core validations RuntimeClass borrows: kube's ValidateTolerations (with RuntimeClass's own
 * duplicate check on top) and ValidateResourceRequirements applied to the pod overhead (kube wraps
 * the overhead in the limits of a ResourceRequirements, hence the `limits` in its field paths).
 */
import type { StatusCause } from '../../errors';
import { duplicate, invalid, notSupported } from '../../validation/field-errors';
import { isQualifiedName, isValidLabelValue } from '../../validation/names';
import { isObj, str, type Obj } from '../util';

const OPERATORS = ['Equal', 'Exists'];
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** kube's ValidateTolerations */
export function validateTolerations(tolerations: unknown[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  tolerations.forEach((raw, i) => {
    const t: Obj = isObj(raw) ? raw : {};
    const p = `${field}[${i}]`;
    const key = str(t.key);
    const operator = str(t.operator);
    const effect = str(t.effect);
    if (key !== '') for (const msg of isQualifiedName(key)) causes.push(invalid(`${p}.key`, key, msg));
    if (key === '' && operator !== 'Exists') {
      causes.push(invalid(`${p}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== 'NoExecute') {
      causes.push(invalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === 'Equal' || operator === '') {
      const errs = isValidLabelValue(str(t.value));
      if (errs.length) causes.push(invalid(`${p}.operator`, str(t.value), errs.join(';')));
    } else if (operator === 'Exists') {
      if (str(t.value) !== '') causes.push(invalid(`${p}.operator`, t, "value must be empty when `operator` is 'Exists'"));
    } else {
      causes.push(notSupported(`${p}.operator`, operator, OPERATORS));
    }
    if (effect !== '' && !EFFECTS.includes(effect)) causes.push(notSupported(`${p}.effect`, effect, EFFECTS));
  });
  return causes;
}

/** RuntimeClass's check that no two tolerations share key, operator, value and effect */
export function duplicateTolerations(tolerations: unknown[], field: string): StatusCause[] {
  const seen = new Set<string>();
  const causes: StatusCause[] = [];
  tolerations.forEach((raw, i) => {
    const t: Obj = isObj(raw) ? raw : {};
    const key = JSON.stringify([str(t.key), str(t.operator), str(t.value), str(t.effect)]);
    if (seen.has(key)) causes.push(duplicate(`${field}[${i}]`, t));
    seen.add(key);
  });
  return causes;
}

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

function isNegativeQuantity(q: unknown): boolean {
  if (typeof q === 'number') return q < 0;
  // a quantity string that parses to a value below zero ("-0" is zero)
  return typeof q === 'string' && /^-/.test(q.trim()) && /[1-9]/.test(q.replace(/[eE][-+]?\d+$/, ''));
}

/** kube's ValidateResourceRequirements over `{limits: resources}` at `field` */
export function validateResourceLimits(resources: Obj, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [name, quantity] of Object.entries(resources)) {
    const p = `${field}.limits[${name}]`;
    if (!name.includes('/')) {
      if (!STANDARD_CONTAINER_RESOURCES.has(name) && !name.startsWith('hugepages-')) {
        causes.push(invalid(p, name, 'must be a standard resource for containers'));
        continue;
      }
    } else {
      const errs = isQualifiedName(name);
      if (errs.length) {
        for (const msg of errs) causes.push(invalid(p, name, msg));
        continue;
      }
      if (!name.startsWith('kubernetes.io/') && !name.includes('.kubernetes.io/') && name.startsWith('requests.')) {
        causes.push(invalid(p, name, "doesn't follow extended resource name standard"));
        continue;
      }
    }
    if (isNegativeQuantity(quantity)) causes.push(invalid(p, String(quantity), 'must be greater than or equal to 0'));
  }
  return causes;
}
