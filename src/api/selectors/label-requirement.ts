/**
 * One requirement of a label selector (k8s.io/apimachinery/pkg/labels Requirement): a key, an
 * operator (spelled as kube's selection.Operator values) and values. Built only through
 * newLabelRequirement, which applies kube's NewRequirement checks.
 */
import { aggregateMessage, invalidValue, labelKeyErrors, labelValueErrors } from './label-syntax';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** as given (the parser gives them sorted and deduplicated, as kube's string set does) */
  readonly values: readonly string[];
}

const supportedOperators: LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!'];

/** Go's strconv.ParseInt(s, 10, 64) succeeds */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return undefined;
  return n;
}

/**
 * kube's NewRequirement: returns the requirement or the aggregated error message. `values` of
 * undefined renders as `null` in messages, as a nil Go slice does.
 */
export function newLabelRequirement(key: string, operator: LabelOperator, values: string[] | undefined): LabelRequirement | { error: string } {
  const errs: string[] = [];
  const vals = values ?? [];
  const keyErrs = labelKeyErrors(key);
  if (keyErrs.length) errs.push(invalidValue('key', key, keyErrs.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0) errs.push(invalidValue('values', values ?? null, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) errs.push(invalidValue('values', values ?? null, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) errs.push(invalidValue('values', vals, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) errs.push(invalidValue('values', values ?? null, "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(invalidValue(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push(
        `operator: Unsupported value: ${JSON.stringify(operator)}: supported values: ${supportedOperators.map((o) => JSON.stringify(o)).join(', ')}`,
      );
  }
  vals.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length) errs.push(invalidValue(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  if (errs.length) return { error: aggregateMessage(errs) };
  return Object.freeze({ key, operator, values: Object.freeze([...vals]) });
}

/** kube's Requirement.Matches */
export function requirementMatches(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels![r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value!);
    case 'notin':
    case '!=':
      // a missing key satisfies != and notin
      return !has || !r.values.includes(value!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(value!);
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

const operatorText: Record<LabelOperator, string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

/** kube's Requirement.String: `a=b`, `a in (x,y)` (values sorted), `a`, `!a`, `a>3` */
export function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort(compareGoStrings).join(',');
  const set = r.operator === 'in' || r.operator === 'notin';
  return `${r.key}${operatorText[r.operator]}${set ? `(${values})` : values}`;
}

/** Go's string ordering: by UTF-8 bytes */
export function compareGoStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
