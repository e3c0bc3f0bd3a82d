/**
 * Duplicate keys in request bodies, which kube's strict decoding reports (fieldValidation Strict
 * fails the request, Warn sends a warning, Ignore keeps the last value silently):
 * - JSON: `duplicate field "metadata.name"`, one per repeated key, paths as kube's field paths
 *   (`spec.template.spec.containers[0].name`);
 * - YAML: one `yaml: unmarshal errors:\n  line 4: key "name" already set in map` listing every
 *   repeated key by the line of its repetition, as the strict YAML-to-JSON conversion words it.
 * The decoders keep the last value, as Go's do. A decoded object carries its findings in a hidden
 * property, read with strictDecodingErrorsOf().
 */
import type * as Yaml from 'yaml';
import { lazy } from '../../util/lazy';

/** the `yaml` parser (0.3 MB of JavaScript) on the first YAML body, not at every start */
const yamlLib = lazy(() => require('yaml') as typeof Yaml);

const STRICT_ERRORS = Symbol('ballast.strictDecodingErrors');

/** attach the findings to a decoded body (not enumerable: they never reach JSON or copies) */
export function withStrictDecodingErrors<T>(value: T, found: string[]): T {
  if (found.length && value !== null && typeof value === 'object') {
    Object.defineProperty(value, STRICT_ERRORS, { value: found, enumerable: false });
  }
  return value;
}

/** the duplicate-key findings of a decoded body; empty when none (or not decoded by our codecs) */
export function strictDecodingErrorsOf(value: unknown): string[] {
  if (value === null || typeof value !== 'object') return [];
  return (value as { [STRICT_ERRORS]?: string[] })[STRICT_ERRORS] ?? [];
}

/** receives each number literal written with a fraction or exponent, with the keys/indices leading to it */
export type NumberLiteralSink = (segments: string[], literal: string) => void;

type Frame = { kind: 'object'; path: string; seen: Set<string> } | { kind: 'array'; path: string; index: number };

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * paths of repeated keys in a JSON text that JSON.parse accepted. Iterative (an explicit stack), so
 * a deeply nested body cannot overflow the call stack.
 */
export function jsonDuplicateFields(text: string, onNumber?: NumberLiteralSink): string[] {
  const found: string[] = [];
  const frames: Frame[] = [];
  // the key or index of each open container's current member, for onNumber (one mutable stack)
  const segs: string[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  };
  /** the string starting at i (a quote); leaves i after the closing quote */
  const readString = (): string => {
    const start = i++;
    let escaped = false;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else if (c === 0x22) {
        break;
      } else {
        i++;
      }
    }
    i++;
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };
  let path = '';
  let mode: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    skipSpace();
    if (i >= text.length) return found;
    const c = text[i];
    if (mode === 'value') {
      if (c === '{' || c === '[') {
        i++;
        skipSpace();
        if (text[i] === '}' || text[i] === ']') {
          i++;
          mode = 'after';
        } else if (c === '{') {
          frames.push({ kind: 'object', path, seen: new Set() });
          mode = 'key';
        } else {
          frames.push({ kind: 'array', path, index: 0 });
          segs[frames.length - 1] = '0';
          path = `${path}[0]`;
        }
      } else {
        const start = i;
        if (c === '"') readString();
        else while (i < text.length && !',]}'.includes(text[i]) && !isSpace(text.charCodeAt(i))) i++;
        if (onNumber && c !== '"' && /[.eE]/.test(text.slice(start, i))) onNumber(segs.slice(0, frames.length), text.slice(start, i));
        mode = 'after';
      }
    } else if (mode === 'key') {
      const frame = frames[frames.length - 1] as Extract<Frame, { kind: 'object' }>;
      const key = readString();
      skipSpace();
      i++; // the colon
      path = frame.path ? `${frame.path}.${key}` : key;
      segs[frames.length - 1] = key;
      if (frame.seen.has(key)) found.push(path);
      else frame.seen.add(key);
      mode = 'value';
    } else {
      const frame = frames[frames.length - 1];
      if (!frame) return found;
      i++;
      if (c === ',') {
        if (frame.kind === 'object') mode = 'key';
        else {
          frame.index++;
          segs[frames.length - 1] = String(frame.index);
          path = `${frame.path}[${frame.index}]`;
          mode = 'value';
        }
      } else {
        frames.pop();
      }
    }
  }
}

/** the strict JSON decoder's messages for a JSON text: `duplicate field "metadata.name"` */
export function jsonStrictErrors(text: string): string[] {
  return jsonDuplicateFields(text).map((p) => `duplicate field ${JSON.stringify(p)}`);
}

/** the strict YAML decoder's one message for every repeated mapping key of a YAML text, if any */
export function yamlStrictErrors(text: string): string[] {
  const { isMap, isScalar, LineCounter, parseDocument, visit } = yamlLib();
  const lines = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  if (doc.errors.length) return [];
  const repeats: string[] = [];
  visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return;
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (!seen.has(key)) {
          seen.add(key);
          continue;
        }
        const offset = isScalar(pair.key) && pair.key.range ? pair.key.range[0] : 0;
        const shown = typeof key === 'string' ? JSON.stringify(key) : String(key);
        repeats.push(`  line ${lines.linePos(offset).line}: key ${shown} already set in map`);
      }
    },
  });
  return repeats.length ? [`yaml: unmarshal errors:\n${repeats.join('\n')}`] : [];
}
