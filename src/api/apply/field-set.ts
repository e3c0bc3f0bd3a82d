/**
 * A set of field paths, as structured-merge-diff's fieldpath.Set: at each level the path elements
 * that are members (owned leaves, or items/maps owned as a whole) and the children (sets below an
 * element). An element may be both: FieldsV1 then writes `".": {}` inside it.
 *
 * Path elements are kept in their FieldsV1 spelling: `f:<field>`, `k:<json key fields>` (items of a
 * map list), `v:<json value>` (items of a set list), `i:<index>`.
 */
import { boundedMemo } from '../../util/memo';

export type PathElement = string;
export type FieldPath = readonly PathElement[];

const TYPE_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** total order of JSON values as SMD's value.Compare: numbers, strings, booleans, lists, maps, null */
function valueRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

function strCompare(a: string, b: string): number {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return Buffer.compare(ab, bb);
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return Math.sign((a as number) - (b as number));
  if (ra === 1) return strCompare(a as string, b as string);
  if (ra === 2) return Number(a) - Number(b);
  if (ra === 3) {
    const la = a as unknown[];
    const lb = b as unknown[];
    for (let i = 0; i < Math.min(la.length, lb.length); i++) {
      const c = compareValues(la[i], lb[i]);
      if (c) return c;
    }
    return la.length - lb.length;
  }
  if (ra === 4) return compareKeyFields(sortedFields(a as Record<string, unknown>), sortedFields(b as Record<string, unknown>));
  return 0;
}

function sortedFields(o: Record<string, unknown>): Array<[string, unknown]> {
  return Object.keys(o)
    .sort(strCompare)
    .map((k) => [k, o[k]]);
}

function compareKeyFields(a: Array<[string, unknown]>, b: Array<[string, unknown]>): number {
  for (let i = 0; ; i++) {
    if (i >= a.length && i >= b.length) return 0;
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const c = strCompare(a[i][0], b[i][0]) || compareValues(a[i][1], b[i][1]);
    if (c) return c;
  }
}

const parsedPart = boundedMemo(10_000, (pe: PathElement): unknown => JSON.parse(pe.slice(2)));

/** SMD's PathElement.Compare over the FieldsV1 spellings */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ta = TYPE_ORDER[a[0]] ?? 4;
  const tb = TYPE_ORDER[b[0]] ?? 4;
  if (ta !== tb) return ta - tb;
  switch (a[0]) {
    case 'f':
      return strCompare(a.slice(2), b.slice(2));
    case 'k':
      return compareKeyFields(sortedFields(parsedPart(a) as Record<string, unknown>), sortedFields(parsedPart(b) as Record<string, unknown>));
    case 'v':
      return compareValues(parsedPart(a), parsedPart(b));
    case 'i':
      return Number(a.slice(2)) - Number(b.slice(2));
    default:
      return strCompare(a, b);
  }
}

/** `f:<name>` */
export const fieldElement = (name: string): PathElement => `f:${name}`;
/** `k:{"name":"nginx"}`: key fields sorted by name, as SMD's FieldList */
export function keyElement(fields: Record<string, unknown>): PathElement {
  const sorted: Record<string, unknown> = {};
  for (const [k, v] of sortedFields(fields)) sorted[k] = v;
  return `k:${JSON.stringify(sorted)}`;
}
export const valueElement = (value: unknown): PathElement => `v:${JSON.stringify(value)}`;
export const indexElement = (i: number): PathElement => `i:${i}`;

/** Go's %v of a value as SMD's value.ToString prints it in paths */
function valueString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(', ')}]`;
  if (typeof v === 'object') return `{${sortedFields(v as Record<string, unknown>).map(([k, x]) => `${k}=${valueString(x)}`).join(', ')}}`;
  return String(v);
}

/** a path as SMD prints it: `.spec.template.spec.containers[name="nginx"].image` */
export function pathString(path: FieldPath): string {
  return path
    .map((pe) => {
      switch (pe[0]) {
        case 'f':
          return `.${pe.slice(2)}`;
        case 'k':
          return `[${sortedFields(parsedPart(pe) as Record<string, unknown>).map(([k, v]) => `${k}=${valueString(v)}`).join(',')}]`;
        case 'v':
          return `[=${valueString(parsedPart(pe))}]`;
        default:
          return `[${pe.slice(2)}]`;
      }
    })
    .join('');
}

export class FieldSetError extends Error {}

/** validate one FieldsV1 key as SMD's DeserializePathElement does */
function checkPathElement(pe: string): void {
  if (pe.length < 2 || pe[1] !== ':') throw new FieldSetError(`missing colon: ${pe}`);
  if (pe[0] === 'f') return;
  if (pe[0] === 'i') {
    if (!/^-?\d+$/.test(pe.slice(2))) throw new FieldSetError(`invalid index: ${pe}`);
    return;
  }
  if (pe[0] !== 'k' && pe[0] !== 'v') throw new FieldSetError('unknown path element type');
  let v: unknown;
  try {
    v = JSON.parse(pe.slice(2));
  } catch (err) {
    throw new FieldSetError(`invalid path element ${pe}: ${(err as Error).message}`);
  }
  if (pe[0] === 'k' && (v === null || typeof v !== 'object' || Array.isArray(v))) throw new FieldSetError(`invalid key: ${pe}`);
}

export class FieldSet {
  readonly #members = new Set<PathElement>();
  readonly #children = new Map<PathElement, FieldSet>();

  static of(...paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** parse FieldsV1 JSON (already decoded); throws FieldSetError when malformed */
  static fromFieldsV1(json: unknown): FieldSet {
    const s = new FieldSet();
    if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new FieldSetError('FieldsV1 must be a JSON object');
    for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
      if (key === '.') continue;
      checkPathElement(key);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FieldSetError(`value of ${key} must be an object`);
      const entries = Object.keys(value as object);
      if (entries.length === 0 || entries.includes('.')) s.#members.add(key);
      const child = FieldSet.fromFieldsV1(value);
      if (!child.empty()) s.#children.set(key, child);
    }
    return s;
  }

  insert(path: FieldPath): this {
    if (path.length === 0) return this;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      let next = node.#children.get(path[i]);
      if (!next) node.#children.set(path[i], (next = new FieldSet()));
      node = next;
    }
    node.#members.add(path[path.length - 1]);
    return this;
  }

  has(path: FieldPath): boolean {
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.#children.get(path[i]);
    return !!node && path.length > 0 && node.#members.has(path[path.length - 1]);
  }

  /** true when the set has this path as a member or anything below it */
  touches(path: FieldPath): boolean {
    if (this.has(path)) return true;
    const below = this.child(path);
    return !!below && !below.empty();
  }

  /** the set below a path (its children), if any */
  child(path: FieldPath): FieldSet | undefined {
    let node: FieldSet | undefined = this;
    for (const pe of path) {
      node = node.#children.get(pe);
      if (!node) return undefined;
    }
    return node;
  }

  get members(): ReadonlySet<PathElement> {
    return this.#members;
  }

  get children(): ReadonlyMap<PathElement, FieldSet> {
    return this.#children;
  }

  empty(): boolean {
    if (this.#members.size) return false;
    for (const c of this.#children.values()) if (!c.empty()) return false;
    return true;
  }

  union(other: FieldSet): FieldSet {
    const out = this.copy();
    for (const m of other.#members) out.#members.add(m);
    for (const [pe, c] of other.#children) {
      const mine = out.#children.get(pe);
      out.#children.set(pe, mine ? mine.union(c) : c.copy());
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.#members) if (other.#members.has(m)) out.#members.add(m);
    for (const [pe, c] of this.#children) {
      const theirs = other.#children.get(pe);
      if (!theirs) continue;
      const both = c.intersection(theirs);
      if (!both.empty()) out.#children.set(pe, both);
    }
    return out;
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.#members) if (!other.#members.has(m)) out.#members.add(m);
    for (const [pe, c] of this.#children) {
      const theirs = other.#children.get(pe);
      const rest = theirs ? c.difference(theirs) : c.copy();
      if (!rest.empty()) out.#children.set(pe, rest);
    }
    return out;
  }

  /** a copy keeping only the top-level elements the predicate accepts */
  filterTop(keep: (pe: PathElement) => boolean): FieldSet {
    const out = new FieldSet();
    for (const m of this.#members) if (keep(m)) out.#members.add(m);
    for (const [pe, c] of this.#children) if (keep(pe)) out.#children.set(pe, c.copy());
    return out;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const m of this.#members) out.#members.add(m);
    for (const [pe, c] of this.#children) out.#children.set(pe, c.copy());
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).empty() && other.difference(this).empty();
  }

  /** every member path, in SMD's Iterate order: this level's members, then each child's */
  paths(prefix: FieldPath = []): FieldPath[] {
    const out: FieldPath[] = [];
    for (const m of [...this.#members].sort(comparePathElements)) out.push([...prefix, m]);
    for (const pe of [...this.#children.keys()].sort(comparePathElements)) out.push(...this.#children.get(pe)!.paths([...prefix, pe]));
    return out;
  }

  /** the FieldsV1 JSON object (keys in SMD's order) */
  toFieldsV1(): Record<string, unknown> {
    return this.#emit(false) ?? {};
  }

  /**
   * the FieldsV1 object of this set, or undefined when the set is empty; one walk of the tree
   * (a child's emptiness is what its own emit returns, not a separate walk at every level)
   */
  #emit(includeSelf: boolean): Record<string, unknown> | undefined {
    const keys: PathElement[] = [...this.#members];
    const below = new Map<PathElement, Record<string, unknown>>();
    for (const [pe, child] of this.#children) {
      const isMember = this.#members.has(pe);
      const emitted = child.#emit(isMember);
      if (!emitted) continue;
      below.set(pe, emitted);
      if (!isMember) keys.push(pe);
    }
    if (keys.length === 0) return undefined;
    const out: Record<string, unknown> = {};
    if (includeSelf) out['.'] = {};
    for (const pe of keys.sort(comparePathElements)) out[pe] = below.get(pe) ?? {};
    return out;
  }

  toString(): string {
    return this.paths().map(pathString).join('\n');
  }
}
