/**
 * --encryption-provider-config: kube's EncryptionConfiguration (apiserver.config.k8s.io/v1, and the
 * older `kind: EncryptionConfig, apiVersion: v1`), YAML or JSON. Each entry names resources
 * (`secrets`, `deployments.apps`; `*.apps`, `*.` for the core group and `*.*` for everything) and
 * an ordered list of providers: new writes use the first, reads try each by prefix. Any problem is
 * an EncryptionConfigError naming the file and the field.
 */
import { fileErrorWords } from '../../util/files';
import fs from 'node:fs';
import yaml from 'js-yaml';
import type { Provider } from './providers';
import { aescbcProvider, aesgcmProvider, identityProvider, secretboxProvider } from './providers';
import { kmsFromConfig } from './kms-config';

export class EncryptionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncryptionConfigError';
  }
}

export interface EncryptionRule {
  /** as written: `secrets`, `deployments.apps`, `*.apps`, `*.`, `*.*` */
  resources: string[];
  /** in order; the first encrypts new writes */
  providers: Provider[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function loadEncryptionConfig(file: string): EncryptionRule[] {
  const fail = (why: string): never => {
    throw new EncryptionConfigError(`--encryption-provider-config ${file}: ${why}`);
  };
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    fail(fileErrorWords(err));
  }
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    fail(`not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) return fail('not an EncryptionConfiguration object');
  const known = (doc.kind === 'EncryptionConfiguration' && doc.apiVersion === 'apiserver.config.k8s.io/v1') || (doc.kind === 'EncryptionConfig' && doc.apiVersion === 'v1');
  if (!known) fail(`kind ${JSON.stringify(doc.kind ?? '')} of apiVersion ${JSON.stringify(doc.apiVersion ?? '')} is not an EncryptionConfiguration (apiserver.config.k8s.io/v1)`);
  if (!Array.isArray(doc.resources) || doc.resources.length === 0) fail('resources: Required value: at least one entry');
  const seen = new Set<string>();
  return (doc.resources as unknown[]).map((entry, i) => {
    const at = `resources[${i}]`;
    if (!isObj(entry)) return fail(`${at}: must be an object`);
    const resources = entry.resources;
    if (!Array.isArray(resources) || resources.length === 0 || !resources.every((r) => typeof r === 'string' && r !== '')) {
      return fail(`${at}.resources: Required value: a list of resource names`);
    }
    for (const r of resources as string[]) {
      if (seen.has(r)) fail(`${at}.resources: Duplicate value: ${JSON.stringify(r)}`);
      seen.add(r);
      if (r.includes('*') && !/^\*\.([a-z0-9.-]*|\*)$/.test(r)) fail(`${at}.resources: Invalid value: ${JSON.stringify(r)}: wildcards are *.<group>, *. (core) or *.*`);
    }
    if (!Array.isArray(entry.providers) || entry.providers.length === 0) return fail(`${at}.providers: Required value: at least one provider`);
    const providers = (entry.providers as unknown[]).map((p, j) => provider(p, `${at}.providers[${j}]`, fail));
    return { resources: resources as string[], providers };
  });
}

function provider(p: unknown, at: string, fail: (why: string) => never): Provider {
  if (!isObj(p)) return fail(`${at}: must be an object`);
  const types = Object.keys(p).filter((k) => p[k] !== undefined && p[k] !== null);
  if (types.length !== 1) return fail(`${at}: exactly one provider must be given, found ${types.length === 0 ? 'none' : types.join(', ')}`);
  const type = types[0];
  const spec = p[type];
  switch (type) {
    case 'identity':
      return identityProvider();
    case 'aescbc':
    case 'aesgcm':
    case 'secretbox': {
      const keys = isObj(spec) ? spec.keys : undefined;
      if (!Array.isArray(keys) || keys.length === 0) return fail(`${at}.${type}.keys: Required value: at least one key`);
      // only the first key encrypts; the others decrypt what earlier keys wrote (rotation)
      const names = new Set<string>();
      const built = keys.map((k: unknown, n: number) => {
        const where = `${at}.${type}.keys[${n}]`;
        if (!isObj(k) || typeof k.name !== 'string' || k.name === '') return fail(`${where}.name: Required value`);
        if (names.has(k.name)) fail(`${where}.name: Duplicate value: ${JSON.stringify(k.name)}`);
        names.add(k.name);
        if (typeof k.secret !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(k.secret) || k.secret === '') {
          return fail(`${where}.secret: Invalid value: REDACTED: secrets must be base64 encoded`);
        }
        const key = Buffer.from(k.secret, 'base64');
        const sizes = type === 'secretbox' ? [32] : [16, 24, 32];
        if (!sizes.includes(key.length)) {
          fail(`${where}.secret: Invalid value: REDACTED: secret is not of the expected length, got ${key.length}, expected one of ${JSON.stringify(sizes)}`);
        }
        return type === 'aescbc' ? aescbcProvider(k.name, key) : type === 'aesgcm' ? aesgcmProvider(k.name, key) : secretboxProvider(k.name, key);
      });
      return keyRing(built);
    }
    case 'kms':
      return kmsFromConfig(spec, `${at}.kms`, fail);
    default:
      return fail(`${at}: unknown provider ${JSON.stringify(type)} (aescbc, aesgcm, secretbox, identity or kms)`);
  }
}

/** several keys of one provider: the first seals, any opens by its prefix */
export interface KeyRing extends Provider {
  readonly keys: readonly Provider[];
}

function keyRing(keys: Provider[]): KeyRing {
  return { prefix: keys[0].prefix, seal: keys[0].seal, open: keys[0].open, keys };
}
