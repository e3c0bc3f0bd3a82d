/**
 * Reading a --config file as kubelet 1.20 does: YAML or JSON, apiVersion
 * kubelet.config.k8s.io/v1beta1 and kind KubeletConfiguration, decoded strictly (an unknown field
 * or a value of the wrong type stops start-up), relative paths resolved against the file's
 * directory. Errors carry kubelet's wording, naming the file and the field, on one line.
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { parseDuration } from '../../options/duration';
import { KUBELET_CONFIGURATION_FIELDS, OBJECT_PATHS, type FieldSpec, type FieldValue } from './schema';

export const KUBELET_CONFIG_GROUP_VERSION = 'kubelet.config.k8s.io/v1beta1';
export const KUBELET_CONFIG_KIND = 'KubeletConfiguration';

/** a --config file that cannot be used; the message is the one line start-up prints */
export class ConfigFileError extends Error {
  constructor(file: string, detail: string) {
    super(`failed to load Kubelet config file ${file}, error ${detail}`);
    this.name = 'ConfigFileError';
  }
}

const GO_TYPE: Record<FieldSpec['kind'], string> = {
  bool: 'bool',
  string: 'string',
  int: 'int32',
  duration: 'v1.Duration',
  stringMap: 'map[string]string',
  stringList: '[]string',
  headerMap: 'map[string][]string',
  gateMap: 'map[string]bool',
};

/** the fields the file sets (flat dotted paths, durations in ms), paths made absolute */
export function loadKubeletConfigFile(file: string, read: (f: string) => string = (f) => fs.readFileSync(f, 'utf8')): Map<string, FieldValue> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = read(absolute);
  } catch (err) {
    throw new ConfigFileError(file, `failed to read kubelet config file "${absolute}", error: ${(err as Error).message}`);
  }
  if (text.trim() === '') throw new ConfigFileError(file, `kubelet config file "${absolute}" was empty`);
  let doc: unknown;
  try {
    doc = yaml.load(text, { schema: yaml.JSON_SCHEMA });
  } catch (err) {
    throw new ConfigFileError(file, `failed to decode, error: ${oneLine((err as Error).message)}`);
  }
  const values = decodeKubeletConfiguration(doc, file);
  const dir = path.dirname(absolute);
  for (const [p, spec] of KUBELET_CONFIGURATION_FIELDS) {
    const v = values.get(p);
    if (spec.path && typeof v === 'string' && v !== '' && !path.isAbsolute(v)) values.set(p, path.join(dir, v));
  }
  return values;
}

/** a decoded document's fields; `file` names it in errors */
export function decodeKubeletConfiguration(doc: unknown, file: string): Map<string, FieldValue> {
  const fail = (detail: string): never => {
    throw new ConfigFileError(file, `failed to decode, error: ${detail}`);
  };
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) fail(`the file does not hold a ${KUBELET_CONFIG_KIND} object`);
  const obj = doc as Record<string, unknown>;
  const apiVersion = obj.apiVersion;
  const kind = obj.kind;
  if (kind === undefined || kind === '') fail(`Object 'Kind' is missing in '${file}'`);
  if (apiVersion === undefined || apiVersion === '') fail(`Object 'apiVersion' is missing in '${file}'`);
  if (apiVersion !== KUBELET_CONFIG_GROUP_VERSION || kind !== KUBELET_CONFIG_KIND) {
    fail(`no kind "${String(kind)}" is registered for version "${String(apiVersion)}" in scheme "kubelet.config.k8s.io"`);
  }
  const out = new Map<string, FieldValue>();
  const walk = (node: Record<string, unknown>, prefix: string): void => {
    for (const [key, value] of Object.entries(node)) {
      if (prefix === '' && (key === 'apiVersion' || key === 'kind')) continue;
      const p = prefix === '' ? key : `${prefix}.${key}`;
      if (value === null) continue; // JSON null leaves a field unset, as Go's decoder does
      if (OBJECT_PATHS.has(p)) {
        if (typeof value !== 'object' || Array.isArray(value)) fail(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${KUBELET_CONFIG_KIND}.${p} of type object`);
        walk(value as Record<string, unknown>, p);
        continue;
      }
      const spec = KUBELET_CONFIGURATION_FIELDS.get(p);
      if (!spec) fail(`strict decoding error: unknown field "${p}"`);
      const converted = convert(spec!, value);
      if (converted === undefined) fail(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${KUBELET_CONFIG_KIND}.${p} of type ${GO_TYPE[spec!.kind]}`);
      if (typeof converted === 'object' && 'error' in converted) fail(`${(converted as { error: string }).error} in field ${p}`);
      out.set(p, converted as FieldValue);
    }
  };
  walk(obj, '');
  return out;
}

function convert(spec: FieldSpec, v: unknown): FieldValue | { error: string } | undefined {
  const isMap = typeof v === 'object' && v !== null && !Array.isArray(v);
  switch (spec.kind) {
    case 'bool':
      return typeof v === 'boolean' ? v : undefined;
    case 'string':
      return typeof v === 'string' ? v : undefined;
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
    case 'duration':
      if (typeof v !== 'string') return undefined;
      try {
        return parseDuration(v);
      } catch {
        return { error: `time: invalid duration "${v}"` };
      }
    case 'stringList':
      return Array.isArray(v) && v.every((x) => typeof x === 'string') ? [...(v as string[])] : undefined;
    case 'stringMap':
      return isMap && Object.values(v).every((x) => typeof x === 'string') ? { ...(v as Record<string, string>) } : undefined;
    case 'gateMap':
      return isMap && Object.values(v).every((x) => typeof x === 'boolean') ? { ...(v as Record<string, boolean>) } : undefined;
    case 'headerMap':
      return isMap && Object.values(v).every((x) => Array.isArray(x) && x.every((y) => typeof y === 'string'))
        ? Object.fromEntries(Object.entries(v as Record<string, string[]>).map(([k, xs]) => [k, [...xs]]))
        : undefined;
  }
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

function oneLine(s: string): string {
  return s.split('\n')[0].trim();
}
