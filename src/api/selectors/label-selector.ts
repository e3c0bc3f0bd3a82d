/**
 * Label selectors (k8s.io/apimachinery/pkg/labels): the `labelSelector` query parameter, and the
 * metav1.LabelSelector objects of workload specs.
 *
 * Empty and nothing, as kube has them:
 * - `parseLabelSelector('')` and an empty object `{}` select everything (isEmpty() is true);
 * - `labelSelectorFromObject(null | undefined)` selects nothing (metav1.LabelSelectorAsSelector of a
 *   nil selector is labels.Nothing()): matches() is always false, isEmpty() false, toString() ''.
 *   Callers whose kube semantics differ for an absent selector decide before calling.
 */
import { errors } from '../errors';
import { type LabelOperator, type LabelRequirement, compareGoStrings, newLabelRequirement, requirementMatches, requirementString } from './label-requirement';
import { parseLabelRequirements } from './label-parser';

export type { LabelOperator, LabelRequirement } from './label-requirement';

export class LabelSelector {
  readonly #requirements: readonly LabelRequirement[];
  readonly #nothing: boolean;

  private constructor(requirements: LabelRequirement[], nothing: boolean) {
    // kube sorts requirements by key so that the string form is deterministic
    this.#requirements = Object.freeze([...requirements].sort((a, b) => compareGoStrings(a.key, b.key)));
    this.#nothing = nothing;
  }

  /** a selector from already-valid requirements (sorted by key, as kube's Add does) */
  static of(requirements: LabelRequirement[]): LabelSelector {
    return new LabelSelector(requirements, false);
  }

  static everything(): LabelSelector {
    return new LabelSelector([], false);
  }

  static nothing(): LabelSelector {
    return new LabelSelector([], true);
  }

  /** the requirements, sorted by key; all must hold */
  get requirements(): readonly LabelRequirement[] {
    return this.#requirements;
  }

  /** true for the selector that matches no object (from a null metav1.LabelSelector) */
  get matchesNothing(): boolean {
    return this.#nothing;
  }

  matches(labels: Record<string, string> | undefined): boolean {
    if (this.#nothing) return false;
    return this.#requirements.every((r) => requirementMatches(r, labels));
  }

  /** true when the selector does not restrict anything */
  isEmpty(): boolean {
    return !this.#nothing && this.#requirements.length === 0;
  }

  /** kube's canonical form: `app=web,tier in (a,b)`; '' for everything and for nothing */
  toString(): string {
    return this.#requirements.map(requirementString).join(',');
  }

  /** kube's RequiresExactMatch: the single value the first requirement on `key` demands (=, ==, in with one value) */
  requiresExactMatch(key: string): string | undefined {
    const r = this.#requirements.find((req) => req.key === key);
    if (r && (r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
    return undefined;
  }
}

/** parses the `labelSelector` query syntax; throws ApiError 400 BadRequest with kube's message */
export function parseLabelSelector(text: string): LabelSelector {
  try {
    return LabelSelector.of(parseLabelRequirements(text));
  } catch (err) {
    throw errors.badRequest((err as Error).message);
  }
}

export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

const objectOperators: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector: matchLabels become `key=value`, matchExpressions use the
 * operators In, NotIn, Exists, DoesNotExist. null/undefined selects nothing; `{}` everything.
 * Throws ApiError 400 BadRequest on an invalid key, value or operator (kube's message text).
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel === null || sel === undefined) return LabelSelector.nothing();
  const requirements: LabelRequirement[] = [];
  const add = (key: string, op: LabelOperator, values: string[] | undefined): void => {
    const r = newLabelRequirement(key, op, values);
    if ('error' in r) throw errors.badRequest(r.error);
    requirements.push(r);
  };
  // Go iterates matchLabels in random order; sorted keys make the first reported error stable
  for (const key of Object.keys(sel.matchLabels ?? {}).sort(compareGoStrings)) {
    add(key, '=', [String(sel.matchLabels![key])]);
  }
  for (const expr of sel.matchExpressions ?? []) {
    const op = objectOperators[expr.operator];
    if (op === undefined) throw errors.badRequest(`${JSON.stringify(expr.operator ?? '')} is not a valid label selector operator`);
    add(expr.key ?? '', op, expr.values && expr.values.length ? [...expr.values] : undefined);
  }
  return LabelSelector.of(requirements);
}

/**
 * metav1.FormatLabelSelector, the text of table Selector columns (`kubectl get deploy -o wide`):
 * the canonical string, `<none>` when it is empty (or the selector is absent), `<error>` when invalid.
 */
export function formatLabelSelector(sel: LabelSelectorObject | null | undefined): string {
  try {
    return labelSelectorFromObject(sel).toString() || '<none>';
  } catch {
    return '<error>';
  }
}
