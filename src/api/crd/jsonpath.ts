/**
 * The JSONPath dialect of kube's client-go jsonpath package, as the printer columns of custom
 * resources use it (with missing keys allowed): fields `.a` and `['a']`, recursive descent `..a`,
 * wildcards `.*` / `[*]`, indices and slices `[0]`, `[-1]`, `[1:3]`, and filters
 * `[?(@.type=="Ready")]` with ==, !=, <, <=, >, >= or a bare existence test. `compile` throws on
 * a path it cannot read; `evaluate` returns every value the path reaches, in order.
 */
type Step =
  | { kind: 'field'; name: string }
  | { kind: 'recursive'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'index'; start?: number; end?: number; step?: number; single: boolean }
  | { kind: 'filter'; path: Step[]; op?: string; value?: unknown };

export class JsonPathError extends Error {}

export interface CompiledPath {
  readonly source: string;
  evaluate(root: unknown): unknown[];
}

function parseLiteral(text: string): unknown {
  const t = text.trim();
  if (/^(['"]).*\1$/.test(t)) return t.slice(1, -1);
  if (t === 'true' || t === 'false') return t === 'true';
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  throw new JsonPathError(`unrecognized literal ${t}`);
}

function parse(path: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const ident = (): string => {
    const m = /^[^.[\]\s]+/.exec(path.slice(i));
    if (!m) throw new JsonPathError(`unrecognized character in action: ${path.slice(i, i + 1) || 'end'}`);
    i += m[0].length;
    return m[0];
  };
  while (i < path.length) {
    const c = path[i];
    if (c === '@' || c === '$') {
      i++;
    } else if (path.startsWith('..', i)) {
      i += 2;
      steps.push({ kind: 'recursive', name: path[i] === '*' ? (i++, '*') : ident() });
    } else if (c === '.') {
      i++;
      if (i >= path.length) break;
      if (path[i] === '*') {
        i++;
        steps.push({ kind: 'wildcard' });
      } else steps.push({ kind: 'field', name: ident() });
    } else if (c === '[') {
      const close = matchingBracket(path, i);
      const inner = path.slice(i + 1, close).trim();
      i = close + 1;
      steps.push(bracket(inner));
    } else if (/\s/.test(c)) {
      i++;
    } else {
      steps.push({ kind: 'field', name: ident() });
    }
  }
  return steps;
}

function matchingBracket(path: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let j = open; j < path.length; j++) {
    const c = path[j];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return j;
  }
  throw new JsonPathError('unclosed array expect ]');
}

function bracket(inner: string): Step {
  if (inner === '*') return { kind: 'wildcard' };
  if (/^(['"]).*\1$/.test(inner)) return { kind: 'field', name: inner.slice(1, -1) };
  if (inner.startsWith('?')) {
    const m = /^\?\s*\((.*)\)$/.exec(inner);
    if (!m) throw new JsonPathError(`unrecognized filter ${inner}`);
    const cmp = /^(.*?)\s*(==|!=|<=|>=|<|>)\s*(.*)$/.exec(m[1].trim());
    if (!cmp) return { kind: 'filter', path: parse(m[1].trim()) };
    return { kind: 'filter', path: parse(cmp[1].trim()), op: cmp[2], value: parseLiteral(cmp[3]) };
  }
  const slice = /^(-?\d*)\s*(?::\s*(-?\d*)\s*(?::\s*(-?\d*))?)?$/.exec(inner);
  if (!slice) throw new JsonPathError(`invalid array index ${inner}`);
  const n = (s: string | undefined) => (s === undefined || s === '' ? undefined : Number(s));
  return { kind: 'index', start: n(slice[1]), end: n(slice[2]), step: n(slice[3]), single: slice[2] === undefined && !inner.includes(':') };
}

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v && typeof v === 'object') return Object.values(v as object);
  return [];
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    default:
      if (typeof a !== 'number' || typeof b !== 'number') return false;
      return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
  }
}

function apply(steps: Step[], values: unknown[]): unknown[] {
  let cur = values;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      switch (step.kind) {
        case 'field':
          if (v && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, step.name)) next.push((v as Record<string, unknown>)[step.name]);
          break;
        case 'wildcard':
          next.push(...children(v));
          break;
        case 'recursive': {
          const walk = (x: unknown): void => {
            if (x && typeof x === 'object') {
              if (!Array.isArray(x)) {
                if (step.name === '*') next.push(...Object.values(x));
                else if (Object.prototype.hasOwnProperty.call(x, step.name)) next.push((x as Record<string, unknown>)[step.name]);
              }
              for (const c of children(x)) walk(c);
            }
          };
          walk(v);
          break;
        }
        case 'index': {
          if (!Array.isArray(v)) break;
          const len = v.length;
          const norm = (n: number) => (n < 0 ? n + len : n);
          if (step.single) {
            const idx = norm(step.start ?? 0);
            if (idx >= 0 && idx < len) next.push(v[idx]);
            break;
          }
          const stepBy = step.step ?? 1;
          const start = Math.max(0, Math.min(len, norm(step.start ?? 0)));
          const end = Math.max(0, Math.min(len, norm(step.end ?? len)));
          for (let i = start; i < end; i += stepBy > 0 ? stepBy : 1) next.push(v[i]);
          break;
        }
        case 'filter':
          for (const item of children(v)) {
            const found = apply(step.path, [item]);
            if (step.op === undefined ? found.length > 0 : found.some((f) => compare(f, step.op!, step.value))) next.push(item);
          }
          break;
      }
    }
    cur = next;
  }
  return cur;
}

/** compile a path as written in a CRD (`.spec.replicas`, optionally wrapped in `{...}`) */
export function compile(source: string): CompiledPath {
  let text = source.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  const steps = parse(text);
  return { source, evaluate: (root) => apply(steps, [root]) };
}
