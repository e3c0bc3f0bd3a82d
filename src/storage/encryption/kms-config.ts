/**
 * The `kms` entry of an EncryptionConfiguration provider list (KMS v1), checked as kube checks it:
 * `name` (no colons: it is part of the stored prefix), `endpoint` (`unix:///path/to.sock`, the
 * only transport kube allows), `cachesize` (default 1000; negative turns the DEK cache off, 0 is
 * refused), `timeout` (a Go duration, default 3s) and `apiVersion` (v1 when given; KMS v2 is not
 * served by Ballast).
 */
import { parseDuration } from '../../options/duration';
import type { KmsProvider } from './kms-provider';
import { kmsProvider } from './kms-provider';
import { lazy } from '../../util/lazy';

/** the gRPC client (and its 0.7 MB of JavaScript) only when a KMS provider is configured */
const grpcKmsService = lazy(() => (require('./kms-service') as typeof import('./kms-service')).GrpcKmsService);

const DEFAULT_CACHE_SIZE = 1000;
const DEFAULT_TIMEOUT_MS = 3000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface KmsSettings {
  name: string;
  endpoint: string;
  cacheSize: number;
  timeoutMs: number;
}

/** the settings of a kms entry; `fail` throws the configuration error for a field */
export function kmsSettings(spec: unknown, at: string, fail: (why: string) => never): KmsSettings {
  if (!isObj(spec)) return fail(`${at}: must be an object`);
  const apiVersion = spec.apiVersion ?? 'v1';
  if (apiVersion !== 'v1') {
    return fail(
      apiVersion === 'v2'
        ? `${at}.apiVersion: Unsupported value: "v2": KMS v2 is not available in Ballast; use apiVersion v1`
        : `${at}.apiVersion: Unsupported value: ${JSON.stringify(apiVersion)}: supported values: "v1", "v2"`,
    );
  }
  const name = spec.name;
  if (typeof name !== 'string' || name === '') return fail(`${at}.name: Required value`);
  if (name.includes(':')) fail(`${at}.name: Invalid value: ${JSON.stringify(name)}: should not contain ':'`);
  const endpoint = spec.endpoint;
  if (typeof endpoint !== 'string' || endpoint === '') return fail(`${at}.endpoint: Required value`);
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(endpoint)?.[1];
  if (scheme !== 'unix') {
    fail(`${at}.endpoint: Invalid value: ${JSON.stringify(endpoint)}: unsupported scheme ${JSON.stringify(scheme ?? '')} for KMS provider, only unix is supported`);
  }
  if (endpoint.slice('unix://'.length) === '') fail(`${at}.endpoint: Invalid value: ${JSON.stringify(endpoint)}: the socket path is empty`);
  let cacheSize = DEFAULT_CACHE_SIZE;
  if (spec.cachesize !== undefined && spec.cachesize !== null) {
    if (typeof spec.cachesize !== 'number' || !Number.isInteger(spec.cachesize)) fail(`${at}.cachesize: Invalid value: ${JSON.stringify(spec.cachesize)}: must be an integer`);
    cacheSize = spec.cachesize as number;
    if (cacheSize === 0) fail(`${at}.cachesize: Invalid value: 0: cachesize should be a positive value, or negative to disable`);
  }
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (spec.timeout !== undefined && spec.timeout !== null) {
    try {
      timeoutMs = parseDuration(String(spec.timeout));
    } catch (err) {
      fail(`${at}.timeout: Invalid value: ${JSON.stringify(spec.timeout)}: ${(err as Error).message}`);
    }
    if (timeoutMs <= 0) fail(`${at}.timeout: Invalid value: ${JSON.stringify(spec.timeout)}: timeout should be a positive value`);
  }
  return { name, endpoint, cacheSize, timeoutMs };
}

/** a kms provider talking to its plugin over gRPC; the connection is made on first use */
export function kmsFromConfig(spec: unknown, at: string, fail: (why: string) => never): KmsProvider {
  const s = kmsSettings(spec, at, fail);
  return kmsProvider({ name: s.name, cacheSize: s.cacheSize, service: new (grpcKmsService())({ endpoint: s.endpoint, timeoutMs: s.timeoutMs }) });
}
