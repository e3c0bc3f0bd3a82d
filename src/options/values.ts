import { isIP } from 'node:net';
import { parseDuration } from './duration';
import type { OptionSpec, OptionValue } from './types';

/**
 * Convert one textual value of an option into its typed value. `previous` is the value already set
 * by an earlier occurrence of the same flag (list and map types accumulate, like pflag).
 * Throws Error with the reason; the parser wraps it into kube's `invalid argument` message.
 */
export function convertValue(spec: OptionSpec, text: string, previous: OptionValue | undefined): OptionValue {
  switch (spec.type) {
    case 'bool':
      return parseBool(text);
    case 'version':
      if (text === 'raw') return 'raw';
      return parseBool(text);
    case 'string':
    case 'moduleSpec':
    case 'traceLocation':
      return text;
    case 'int':
    case 'level':
      return parseInteger(text, false);
    case 'uint':
      return parseInteger(text, true);
    case 'severity':
      return parseSeverity(text);
    case 'float': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`"${text}" is not a number`);
      return n;
    }
    case 'duration':
      return parseDuration(text);
    case 'ip':
      if (text !== '' && isIP(text) === 0) throw new Error(`failed to parse IP: "${text}"`);
      return text;
    case 'stringSlice':
      return [...asList(previous), ...splitList(text)];
    case 'cidrs': {
      const items = splitList(text);
      for (const c of items) if (!isCidr(c)) throw new Error(`invalid CIDR address: ${c}`);
      return [...asList(previous), ...items];
    }
    case 'stringArray':
    case 'namedCertKey':
      return [...asList(previous), text];
    case 'mapStringString':
      return { ...(previous as Record<string, string> | undefined), ...parseMap(text, (v) => v) };
    case 'mapStringBool':
      return { ...(previous as Record<string, boolean> | undefined), ...parseMap(text, parseBool) };
    case 'portRange':
      return parsePortRange(text);
  }
}

function parseBool(text: string): boolean {
  // Go's strconv.ParseBool spellings
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  throw new Error(`"${text}" is not a boolean`);
}

function parseInteger(text: string, unsigned: boolean): number {
  if (!/^[-+]?\d+$/.test(text.trim())) throw new Error(`"${text}" is not an integer`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`"${text}" is out of range`);
  if (unsigned && n < 0) throw new Error(`"${text}" must not be negative`);
  return n;
}

const SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'FATAL'];

function parseSeverity(text: string): number {
  const byName = SEVERITIES.indexOf(text.toUpperCase());
  if (byName >= 0) return byName;
  const n = parseInteger(text, true);
  if (n >= SEVERITIES.length) throw new Error(`"${text}" is not a severity (0-3 or INFO..FATAL)`);
  return n;
}

function splitList(text: string): string[] {
  if (text === '') return [];
  return text.split(',').map((s) => s.trim());
}

function asList(v: OptionValue | undefined): string[] {
  return Array.isArray(v) ? v : [];
}

function parseMap<T>(text: string, conv: (v: string) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const pair of splitList(text)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`"${pair}" is not a key=value pair`);
    out[pair.slice(0, eq).trim()] = conv(pair.slice(eq + 1).trim());
  }
  return out;
}

function parsePortRange(text: string): string {
  const m = /^(\d+)(?:-(\d+)|\+(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not a port range (base-end or base+size)`);
  const base = Number(m[1]);
  const end = m[2] !== undefined ? Number(m[2]) : m[3] !== undefined ? base + Number(m[3]) - 1 : base;
  if (base < 1 || end > 65535 || end < base) throw new Error(`"${text}" is not a valid port range`);
  return `${base}-${end}`;
}

function isCidr(text: string): boolean {
  const [addr, bits, extra] = text.split('/');
  if (extra !== undefined || bits === undefined || !/^\d+$/.test(bits)) return false;
  const family = isIP(addr);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}
