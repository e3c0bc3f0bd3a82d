/**
 * Field selectors (k8s.io/apimachinery/pkg/fields): `f=v`, `f==v`, `f!=v`, comma-separated, with
 * `\`, `,` and `=` escaped by a backslash in values. Field names are not checked here: the
 * registry checks them against the kind's selectable fields with checkFieldSelectorFields.
 */
import { errors } from '../errors';
import { compareGoStrings } from './label-requirement';

export interface FieldRequirement {
  readonly field: string;
  /** `==` is read as `=`, as kube's hasTerm does */
  readonly operator: '=' | '!=';
  readonly value: string;
}

export class FieldSelector {
  readonly #requirements: readonly FieldRequirement[];

  constructor(requirements: FieldRequirement[]) {
    this.#requirements = Object.freeze(requirements.map((r) => Object.freeze({ ...r })));
  }

  static everything(): FieldSelector {
    return new FieldSelector([]);
  }

  /** the terms in kube's order (sorted by their text) */
  get requirements(): readonly FieldRequirement[] {
    return this.#requirements;
  }

  /** a missing field reads as '' (kube's Fields.Get) */
  matches(fields: Record<string, string>): boolean {
    return this.#requirements.every((r) => {
      const actual = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field] : '';
      return r.operator === '=' ? actual === r.value : actual !== r.value;
    });
  }

  isEmpty(): boolean {
    return this.#requirements.length === 0;
  }

  /** the value an `=` term demands of `field` (fast path for `metadata.name=x`) */
  exactValue(field: string): string | undefined {
    return this.#requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }

  /** the distinct field names the selector uses */
  fieldNames(): string[] {
    return [...new Set(this.#requirements.map((r) => r.field))];
  }

  /** kube's String(): terms joined by ',', values escaped */
  toString(): string {
    return this.#requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

/** kube's fields.EscapeValue */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** kube's fields.UnescapeValue; throws Error with kube's message */
function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw new Error(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go prints the rune with %v, i.e. as its number
      throw new Error(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new Error('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** splits on commas not escaped by a backslash */
function splitTerms(text: string): string[] {
  if (text.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

/** the first operator in the term, trying `!=`, `==`, `=` at each position */
function splitTerm(term: string): { lhs: string; op: '!=' | '==' | '='; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** parses the `fieldSelector` query syntax; throws ApiError 400 BadRequest with kube's message */
export function parseFieldSelector(text: string): FieldSelector {
  const terms = splitTerms(text).sort(compareGoStrings);
  const requirements: FieldRequirement[] = [];
  for (const term of terms) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw errors.badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    let value: string;
    try {
      value = unescapeValue(parts.rhs);
    } catch (err) {
      throw errors.badRequest((err as Error).message);
    }
    // kube drops a term whose field and value are both empty ("=")
    if (parts.lhs === '' && value === '') continue;
    requirements.push({ field: parts.lhs, operator: parts.op === '!=' ? '!=' : '=', value });
  }
  return new FieldSelector(requirements);
}

const defaultFields = ['metadata.name', 'metadata.namespace'];

/**
 * Rejects a selector that uses a field outside `allowed` with ApiError 400 BadRequest, checking
 * terms in order as kube's field label conversion does. Kinds whose allowed set is only
 * metadata.name and metadata.namespace get the message of kube's default conversion
 * (`"x" is not a known field selector: only "metadata.name", "metadata.namespace"`); kinds with
 * their own selectable fields get `field label not supported: x`. `kindLabel` is accepted for the
 * caller's convenience: kube's messages do not name the kind.
 */
export function checkFieldSelectorFields(sel: FieldSelector, allowed: ReadonlySet<string>, kindLabel?: string): void {
  void kindLabel;
  const defaultOnly = allowed.size === defaultFields.length && defaultFields.every((f) => allowed.has(f));
  for (const r of sel.requirements) {
    if (allowed.has(r.field)) continue;
    if (defaultOnly) {
      throw errors.badRequest(`${JSON.stringify(r.field)} is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    throw errors.badRequest(`field label not supported: ${r.field}`);
  }
}
