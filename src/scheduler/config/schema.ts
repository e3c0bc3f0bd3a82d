/**
 * A strict decoder for the v1beta1 configuration, its plugin args and the v1 Policy: kube decodes
 * them with a strict codec, so an unknown field or a value of the wrong type is an error naming
 * the field. Durations are checked with Go's syntax and rewritten in Go's form (`15s`).
 */
import { formatDuration, parseDuration } from '../../options/duration';
import { ConfigError } from './types';

export type Shape =
  | 'string'
  | 'int'
  | 'float'
  | 'bool'
  | 'duration'
  /** any JSON value, taken as is (embedded core types such as NodeAffinity) */
  | 'any'
  | { readonly fields: Readonly<Record<string, Shape>> }
  | { readonly items: Shape };

const obj = (fields: Record<string, Shape>): Shape => ({ fields });
const list = (items: Shape): Shape => ({ items });
const strings = list('string');

const pluginSet = obj({ enabled: list(obj({ name: 'string', weight: 'int' })), disabled: list(obj({ name: 'string', weight: 'int' })) });

const resources = list(obj({ name: 'string', weight: 'int' }));

export const EXTENDER_SHAPE = obj({
  urlPrefix: 'string',
  filterVerb: 'string',
  preemptVerb: 'string',
  prioritizeVerb: 'string',
  weight: 'int',
  bindVerb: 'string',
  enableHTTPS: 'bool',
  tlsConfig: obj({
    insecure: 'bool',
    serverName: 'string',
    certFile: 'string',
    keyFile: 'string',
    caFile: 'string',
    certData: 'string',
    keyData: 'string',
    caData: 'string',
  }),
  httpTimeout: 'duration',
  nodeCacheCapable: 'bool',
  managedResources: list(obj({ name: 'string', ignoredByScheduler: 'bool' })),
  ignorable: 'bool',
});

export const CONFIG_SHAPE = obj({
  apiVersion: 'string',
  kind: 'string',
  parallelism: 'int',
  leaderElection: obj({
    leaderElect: 'bool',
    leaseDuration: 'duration',
    renewDeadline: 'duration',
    retryPeriod: 'duration',
    resourceLock: 'string',
    resourceName: 'string',
    resourceNamespace: 'string',
  }),
  clientConnection: obj({ kubeconfig: 'string', acceptContentTypes: 'string', contentType: 'string', qps: 'float', burst: 'int' }),
  healthzBindAddress: 'string',
  metricsBindAddress: 'string',
  enableProfiling: 'bool',
  enableContentionProfiling: 'bool',
  percentageOfNodesToScore: 'int',
  podInitialBackoffSeconds: 'int',
  podMaxBackoffSeconds: 'int',
  profiles: list(
    obj({
      schedulerName: 'string',
      plugins: obj({
        queueSort: pluginSet,
        preFilter: pluginSet,
        filter: pluginSet,
        postFilter: pluginSet,
        preScore: pluginSet,
        score: pluginSet,
        reserve: pluginSet,
        permit: pluginSet,
        preBind: pluginSet,
        bind: pluginSet,
        postBind: pluginSet,
      }),
      // args are checked per plugin (ARGS_SHAPES) once the plugin's name is known
      pluginConfig: list(obj({ name: 'string', args: 'any' })),
    }),
  ),
  extenders: list(EXTENDER_SHAPE),
});

/** the v1beta1 args types, by plugin name (kind `<name>Args`) */
export const ARGS_SHAPES: Readonly<Record<string, Shape>> = Object.freeze({
  DefaultPreemption: obj({ minCandidateNodesPercentage: 'int', minCandidateNodesAbsolute: 'int' }),
  InterPodAffinity: obj({ hardPodAffinityWeight: 'int' }),
  NodeAffinity: obj({ addedAffinity: 'any' }),
  NodeLabel: obj({ presentLabels: strings, absentLabels: strings, presentLabelsPreference: strings, absentLabelsPreference: strings }),
  NodeResourcesFit: obj({ ignoredResources: strings, ignoredResourceGroups: strings }),
  NodeResourcesLeastAllocated: obj({ resources }),
  NodeResourcesMostAllocated: obj({ resources }),
  PodTopologySpread: obj({ defaultConstraints: list('any'), defaultingType: 'string' }),
  RequestedToCapacityRatio: obj({ shape: list(obj({ utilization: 'int', score: 'int' })), resources }),
  ServiceAffinity: obj({ affinityLabels: strings, antiAffinityLabelsPreference: strings }),
  VolumeBinding: obj({ bindTimeoutSeconds: 'int' }),
});

export const POLICY_SHAPE = obj({
  kind: 'string',
  apiVersion: 'string',
  predicates: list(
    obj({
      name: 'string',
      argument: obj({
        serviceAffinity: obj({ labels: strings }),
        labelsPresence: obj({ labels: strings, presence: 'bool' }),
      }),
    }),
  ),
  priorities: list(
    obj({
      name: 'string',
      weight: 'int',
      argument: obj({
        serviceAntiAffinity: obj({ label: 'string' }),
        labelPreference: obj({ label: 'string', presence: 'bool' }),
        requestedToCapacityRatioArguments: obj({
          shape: list(obj({ utilization: 'int', score: 'int' })),
          resources,
        }),
      }),
    }),
  ),
  // the legacy v1 extender: enableHttps and an httpTimeout in nanoseconds
  extenders: list(
    obj({
      urlPrefix: 'string',
      filterVerb: 'string',
      preemptVerb: 'string',
      prioritizeVerb: 'string',
      weight: 'int',
      bindVerb: 'string',
      enableHttps: 'bool',
      tlsConfig: (EXTENDER_SHAPE as { fields: Record<string, Shape> }).fields.tlsConfig,
      httpTimeout: 'int',
      nodeCacheCapable: 'bool',
      managedResources: list(obj({ name: 'string', ignoredByScheduler: 'bool' })),
      ignorable: 'bool',
    }),
  ),
  hardPodAffinitySymmetricWeight: 'int',
  alwaysCheckAllPredicates: 'bool',
});

/**
 * Check `value` against `shape` and return a copy with nulls dropped and durations normalised.
 * Throws ConfigError naming the field (`profiles[0].plugins.score.enabled[1].weight`).
 */
export function decodeShape(value: unknown, shape: Shape, path: string, extraFields: readonly string[] = []): unknown {
  if (typeof shape === 'string') return decodeScalar(value, shape, path);
  if ('items' in shape) {
    if (!Array.isArray(value)) throw wrongType(path, value, 'array');
    return value.map((v, i) => decodeShape(v, shape.items, `${path}[${i}]`));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw wrongType(path, value, 'object');
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const fieldPath = path ? `${path}.${key}` : key;
    const sub = shape.fields[key];
    if (sub === undefined) {
      if (extraFields.includes(key)) {
        out[key] = v;
        continue;
      }
      throw new ConfigError(`unknown field "${fieldPath}"`);
    }
    if (v === null || v === undefined) continue;
    out[key] = decodeShape(v, sub, fieldPath);
  }
  return out;
}

function decodeScalar(value: unknown, shape: Exclude<Shape, object>, path: string): unknown {
  switch (shape) {
    case 'any':
      return value;
    case 'string':
      if (typeof value !== 'string') throw wrongType(path, value, 'string');
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw wrongType(path, value, 'bool');
      return value;
    case 'float':
      if (typeof value !== 'number') throw wrongType(path, value, 'number');
      return value;
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw wrongType(path, value, 'integer');
      if (Math.abs(value) > Number.MAX_SAFE_INTEGER) throw wrongType(path, value, 'integer');
      return value;
    case 'duration':
      if (typeof value !== 'string') throw wrongType(path, value, 'duration string (e.g. "15s")');
      try {
        return formatDuration(parseDuration(value));
      } catch (err) {
        throw new ConfigError(`${path}: ${(err as Error).message}`);
      }
  }
}

function wrongType(path: string, value: unknown, want: string): ConfigError {
  const got = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  return new ConfigError(`${path || 'document'}: cannot decode ${got} ${JSON.stringify(value)} as ${want}`);
}
