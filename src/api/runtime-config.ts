/**
 * `--runtime-config`: which built-in group/versions (and, rarely, resources) are served, resolved as
 * kube-apiserver resolves it (k8s.io/apiserver resourceconfig.MergeAPIResourceConfigs and
 * APIEnablementOptions.Validate):
 *
 * 1. the defaults: GA (`v1`) and beta (`v1beta1`) versions on, alpha (`v1alpha1`) off, as kube 1.20
 *    shipped them (1.20 had no beta switched off by default);
 * 2. then `api/all`, `api/ga`, `api/beta`, `api/alpha`, always in that order whatever the order on
 *    the command line, each turning every matching version on or off;
 * 3. then each `<group>/<version>` key (`v1` and `api/v1` name the core group);
 * 4. then `<group>/<version>/<resource>` keys, for single resources.
 *
 * The stage of a version is read from its name alone, so kinds added anywhere follow the rule.
 * Errors carry kube's wording; the caller names the flag.
 */
import { parseApiVersion } from './scheme';

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** a --runtime-config value the server cannot start with */
export class RuntimeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeConfigError';
  }
}

const MATCHERS: ReadonlyArray<[string, (version: string) => boolean]> = [
  ['api/all', () => true],
  ['api/ga', (v) => /^v\d+$/.test(v)],
  ['api/beta', (v) => /^v\d+beta\d+$/.test(v)],
  ['api/alpha', (v) => /^v\d+alpha\d+$/.test(v)],
];
const MATCHER_KEYS = new Set(MATCHERS.map(([k]) => k));

/** kube's defaults: alpha versions are off until turned on */
export function enabledByDefault(version: string): boolean {
  return !/^v\d+alpha\d+$/.test(version);
}

/** Go's strconv.ParseBool, with kube's "empty means true" */
function parseValue(key: string, value: string): boolean {
  if (value === '') return true;
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  throw new RuntimeConfigError(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

interface ParsedKey {
  group: string;
  version: string;
  resource?: string;
}

/** `v1` and `api/v1` are the core group; otherwise group/version[/resource] */
function parseKey(key: string): ParsedKey {
  if (key === 'v1' || key === 'api/v1') return { group: '', version: 'v1' };
  if (key.startsWith('api/v1/')) return { group: '', version: 'v1', resource: key.slice('api/v1/'.length) };
  const tokens = key.split('/');
  if (tokens.length !== 2 && tokens.length !== 3) throw new RuntimeConfigError(`runtime-config invalid key ${key}`);
  const { group, version } = parseApiVersion(`${tokens[0]}/${tokens[1]}`);
  if (!version) throw new RuntimeConfigError(`runtime-config invalid key ${key}`);
  if (tokens.length === 3 && tokens[2].toLowerCase() !== tokens[2]) {
    throw new RuntimeConfigError(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(tokens[2])}`);
  }
  return { group, version, resource: tokens[2] };
}

/**
 * The checks that need no knowledge of what is served: values and key shapes. Returns kube's
 * message for the first problem, or undefined. (Used by the option table, so bad values fail as
 * flag errors before anything starts.)
 */
export function runtimeConfigSyntaxError(overrides: Readonly<Record<string, string>>): string | undefined {
  try {
    for (const [key, value] of Object.entries(overrides)) {
      if (key === 'api/legacy') continue;
      if (MATCHER_KEYS.has(key)) {
        if (value !== 'true' && value !== 'false') throw new RuntimeConfigError(`invalid value ${key}=${value}`);
        continue;
      }
      parseKey(key);
      parseValue(key, value);
    }
    return undefined;
  } catch (err) {
    if (err instanceof RuntimeConfigError) return err.message;
    throw err;
  }
}

/** what is served after --runtime-config: ask per group/version/resource */
export interface ApiEnablement {
  enabled(gvr: GroupVersionResource): boolean;
}

/**
 * Resolve the overrides against the group/versions Ballast knows (`registered`, from its built-in
 * kinds). Throws RuntimeConfigError with kube's message for unknown groups, unknown versions of a
 * known group, bad values and malformed keys, and for `api/all=false` given alone.
 */
export function resolveRuntimeConfig(
  overrides: Readonly<Record<string, string>>,
  registered: ReadonlyArray<{ group: string; version: string }>,
): ApiEnablement {
  const syntax = runtimeConfigSyntaxError(overrides);
  if (syntax) throw new RuntimeConfigError(syntax);
  const keys = Object.keys(overrides);
  if (overrides['api/all'] === 'false' && keys.length === 1) {
    // kube: starting with nothing served has no meaning
    throw new RuntimeConfigError('invalid key with only api/all=false');
  }

  const groups = new Set(registered.map((gv) => gv.group));
  const versions = new Set(registered.map((gv) => `${gv.group}/${gv.version}`));
  const parsed = keys.filter((k) => !MATCHER_KEYS.has(k) && k !== 'api/legacy').map((k) => ({ key: k, ...parseKey(k) }));
  const unknown = [...new Set(parsed.filter((p) => !groups.has(p.group)).map((p) => p.group))];
  if (unknown.length > 0) throw new RuntimeConfigError(`unknown api groups ${unknown.join(',')}`);
  for (const p of parsed) {
    if (!versions.has(`${p.group}/${p.version}`)) {
      throw new RuntimeConfigError(`group version ${p.group ? `${p.group}/${p.version}` : p.version} that has not been registered`);
    }
  }

  const versionState = new Map<string, boolean>();
  for (const gv of registered) versionState.set(`${gv.group}/${gv.version}`, enabledByDefault(gv.version));
  for (const [key, matches] of MATCHERS) {
    const value = overrides[key];
    if (value === undefined) continue;
    for (const gv of registered) if (matches(gv.version)) versionState.set(`${gv.group}/${gv.version}`, value === 'true');
  }
  const resourceState = new Map<string, boolean>();
  for (const p of parsed) {
    const on = parseValue(p.key, overrides[p.key]);
    if (p.resource) resourceState.set(`${p.group}/${p.version}/${p.resource}`, on);
    else versionState.set(`${p.group}/${p.version}`, on);
  }
  return {
    enabled({ group, version, resource }) {
      return resourceState.get(`${group}/${version}/${resource}`) ?? versionState.get(`${group}/${version}`) ?? enabledByDefault(version);
    },
  };
}

/**
 * The kinds to serve: those whose group/version/resource the resolution enables. Throws
 * RuntimeConfigError as resolveRuntimeConfig does.
 */
export function filterByRuntimeConfig<K extends GroupVersionResource>(kinds: readonly K[], overrides: Readonly<Record<string, string>>): K[] {
  const enablement = resolveRuntimeConfig(overrides, kinds);
  return kinds.filter((k) => enablement.enabled(k));
}
