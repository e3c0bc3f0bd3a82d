/**
 * Reading a patch body as JSON the way Go's encoding/json does for kube: the same nesting limit
 * (10000) and messages shaped like Go's (`invalid character 'x' looking for beginning of value`,
 * `unexpected end of JSON input`). The parse itself is JSON.parse, which is not recursive.
 */
import { maxJsonDepth } from './patch-errors';

export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** the opening bracket that first goes past Go's nesting limit, if any */
function tooDeep(text: string): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      if (++depth > maxJsonDepth) return c;
    } else if (c === '}' || c === ']') {
      depth--;
    }
  }
  return undefined;
}

/** Go's quoteChar: 'x', with a quote character escaped */
function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  return `'${c}'`;
}

function goSyntaxMessage(text: string, err: Error): string {
  if (text.trim() === '') return 'unexpected end of JSON input';
  const at = /position (\d+)/.exec(err.message);
  if (/Unexpected end of JSON input|Unterminated string|Expected .* after/.test(err.message) && !at) return 'unexpected end of JSON input';
  if (at) {
    const pos = Number(at[1]);
    if (pos >= text.length) return 'unexpected end of JSON input';
    if (/after JSON/.test(err.message)) return `invalid character ${quoteChar(text[pos])} after top-level value`;
    return `invalid character ${quoteChar(text[pos])} looking for beginning of value`;
  }
  const token = /Unexpected token '?(.)'?/.exec(err.message);
  if (token) return `invalid character ${quoteChar(token[1])} looking for beginning of value`;
  return err.message;
}

/** parses JSON; throws JsonSyntaxError with a Go-like message */
export function parseJsonBody(text: string): unknown {
  const deep = tooDeep(text);
  if (deep !== undefined) throw new JsonSyntaxError(`invalid character ${quoteChar(deep)} exceeded max depth`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new JsonSyntaxError(goSyntaxMessage(text, err as Error));
  }
}

/** Go's name for the JSON type of a value in "cannot unmarshal X into Go value of type Y" */
export function jsonTypeWord(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
