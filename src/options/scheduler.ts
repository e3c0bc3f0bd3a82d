/**
 * `ballast scheduler`'s options: the groups in --help order, and `schedulerConfig`, which builds
 * what the command acts on as kube-scheduler 1.20 does: without --config the (deprecated) flags
 * fill a v1beta1 configuration; with --config the file is the configuration and only --address,
 * --port and the policy/provider flags override it.
 */
import path from 'node:path';
import { LOCK_KINDS, type LockKind } from '../client/leader-election';
import type { LoggingConfig } from '../server/logging/config';
import {
  ConfigError,
  DEFAULT_PROVIDER,
  defaultConfiguration,
  loadConfigFile,
  resolveProfiles,
  validateConfiguration,
} from '../scheduler/config';
import type { AlgorithmSource, KubeSchedulerConfiguration, SchedulerProfile } from '../scheduler/config';
import { joinHostPort } from '../scheduler/config/defaults';
import { aggregate, required } from '../scheduler/config/field-errors';
import { hardPodAffinityWeightErrors } from '../scheduler/config/plugin-args';
import { delegatedAuth, servingConfig, type DelegatedAuthConfig, type LeaderElectionConfig, type ServingConfig } from './controller-manager';
import { formatDuration, parseDuration } from './duration';
import { FeatureGates } from './feature-gates';
import { globalOptions, loggingConfig, loggingOptions } from './logging';
import type { ParsedOptions } from './parse';
import {
  schedulerAuthOptions,
  schedulerDeprecatedOptions,
  schedulerFeatureGateOptions,
  schedulerGeneralOptions,
  schedulerInsecureServingOptions,
  schedulerLeaderElectionOptions,
  schedulerMetricsOptions,
  schedulerMiscOptions,
} from './scheduler-flags';
import { secureServingOptions } from './serving';
import { FlagError } from './types';
import type { OptionGroup } from './types';

export const schedulerOptionGroups: readonly OptionGroup[] = Object.freeze([
  globalOptions,
  schedulerMiscOptions,
  secureServingOptions({
    securePort: '10259',
    certDirText: '(none: in memory)',
    portZeroDisables: true,
    certDirDescription: 'directory for the self-signed serving certificate and key made when --tls-cert-file and --tls-private-key-file are not given (kept in memory when empty); ignored when they are',
  }),
  schedulerInsecureServingOptions,
  ...schedulerAuthOptions,
  schedulerDeprecatedOptions,
  schedulerLeaderElectionOptions,
  schedulerFeatureGateOptions,
  schedulerMetricsOptions,
  schedulerGeneralOptions,
  loggingOptions,
]);

/** what `ballast scheduler` acts on */
export interface SchedulerConfig {
  /** --config, absolute */
  configFile?: string;
  /** the effective v1beta1 configuration: what --write-config-to writes */
  componentConfig: KubeSchedulerConfiguration;
  kubeconfig?: string;
  master?: string;
  contentType: 'application/vnd.kubernetes.protobuf' | 'application/json';
  qps: number;
  burst: number;
  leaderElection: LeaderElectionConfig;
  serving: ServingConfig;
  auth: DelegatedAuthConfig;
  /** plain-HTTP health and metrics servers, host:port; empty means off */
  healthzBindAddress: string;
  metricsBindAddress: string;
  enableProfiling: boolean;
  parallelism: number;
  /** 0 = adaptive */
  percentageOfNodesToScore: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  algorithmSource: AlgorithmSource;
  /** resolved profiles; empty until loadPolicyConfigMap when the source is a ConfigMap */
  profiles: readonly SchedulerProfile[];
  /** extenders of the configuration or policy: kept, never called by Ballast's scheduler */
  extenders: ReadonlyArray<Record<string, unknown>>;
  alwaysCheckAllPredicates: boolean;
  hardPodAffinitySymmetricWeight: number;
  writeConfigTo?: string;
  featureGates: FeatureGates;
  logging: LoggingConfig;
  ignoredFlags: readonly string[];
}

const resolved = (v: string | undefined): string | undefined => (v ? path.resolve(v) : undefined);

/** kube's DeprecatedOptions.Validate */
function deprecatedErrors(parsed: ParsedOptions): string[] {
  const errs: string[] = [];
  if (parsed.bool('use-legacy-policy-config') && !parsed.string('policy-config-file')) {
    errs.push(required('policyConfigFile', 'required when --use-legacy-policy-config is true'));
  }
  errs.push(...hardPodAffinityWeightErrors(parsed.number('hard-pod-affinity-symmetric-weight') ?? 1, 'hardPodAffinitySymmetricWeight'));
  return errs;
}

/** the insecure server's address from --address and --port (port 0: off) */
function insecureAddress(parsed: ParsedOptions): string {
  const port = parsed.number('port') ?? 10251;
  return port === 0 ? '' : joinHostPort(parsed.string('address') || '0.0.0.0', port);
}

/** without --config: the deprecated flags and leader election flags fill the configuration */
function configurationFromFlags(parsed: ParsedOptions, gates: FeatureGates): KubeSchedulerConfiguration {
  const ms = (flag: string): string => formatDuration(parsed.number(flag) ?? 0);
  // --lock-object-* write the same fields as --leader-elect-resource-*
  const name = parsed.isSet('leader-elect-resource-name') || !parsed.isSet('lock-object-name') ? 'leader-elect-resource-name' : 'lock-object-name';
  const ns = parsed.isSet('leader-elect-resource-namespace') || !parsed.isSet('lock-object-namespace') ? 'leader-elect-resource-namespace' : 'lock-object-namespace';
  const weight = parsed.number('hard-pod-affinity-symmetric-weight') ?? 1;
  const cfg = defaultConfiguration(
    {
      leaderElection: {
        leaderElect: parsed.bool('leader-elect'),
        leaseDuration: ms('leader-elect-lease-duration'),
        renewDeadline: ms('leader-elect-renew-deadline'),
        retryPeriod: ms('leader-elect-retry-period'),
        resourceLock: parsed.string('leader-elect-resource-lock') ?? 'leases',
        resourceName: parsed.string(name) ?? '',
        resourceNamespace: parsed.string(ns) ?? '',
      },
      clientConnection: {
        kubeconfig: parsed.string('kubeconfig') ?? '',
        contentType: parsed.string('kube-api-content-type'),
        qps: parsed.number('kube-api-qps'),
        burst: parsed.number('kube-api-burst'),
      },
      enableProfiling: parsed.bool('profiling'),
      enableContentionProfiling: parsed.bool('contention-profiling'),
      profiles: [
        {
          schedulerName: parsed.string('scheduler-name') || undefined,
          // kube turns a non-default weight into the lone profile's InterPodAffinity args
          ...(weight !== 1 && { pluginConfig: [{ name: 'InterPodAffinity', args: { hardPodAffinityWeight: weight } }] }),
        },
      ],
    },
    gates,
  );
  // the resource lock, name and namespace may be set empty on purpose: validation reports it
  cfg.leaderElection.resourceLock = parsed.string('leader-elect-resource-lock') ?? 'leases';
  cfg.leaderElection.resourceName = parsed.string(name) ?? '';
  cfg.leaderElection.resourceNamespace = parsed.string(ns) ?? '';
  cfg.healthzBindAddress = insecureAddress(parsed);
  cfg.metricsBindAddress = cfg.healthzBindAddress;
  return cfg;
}

/** kube's ApplyAlgorithmSourceTo: legacy file, then ConfigMap, then provider */
function algorithmSource(parsed: ParsedOptions): AlgorithmSource | undefined {
  const file = parsed.string('policy-config-file') ?? '';
  const configMap = parsed.string('policy-configmap') ?? '';
  if (parsed.bool('use-legacy-policy-config') || (file !== '' && configMap === '')) return { policy: { file: path.resolve(file) } };
  if (configMap !== '') return { policy: { configMap: { namespace: parsed.string('policy-configmap-namespace') ?? 'kube-system', name: configMap } } };
  const provider = parsed.string('algorithm-provider') ?? '';
  return provider !== '' ? { provider } : undefined;
}

/**
 * Flags a loaded --config makes kube ignore: the deprecated ones that fill the configuration and
 * the leader election ones (the policy and provider flags, --address and --port still apply).
 */
const OVERRIDDEN_BY_CONFIG: readonly string[] = [
  ...schedulerDeprecatedOptions.options.map((o) => o.name).filter((n) => !n.startsWith('policy-') && n !== 'use-legacy-policy-config' && n !== 'algorithm-provider'),
  ...schedulerLeaderElectionOptions.options.map((o) => o.name),
];

/** a lone profile with neither plugins nor plugin configs: what a Policy may replace */
const emptyProfiles = (cfg: KubeSchedulerConfiguration): boolean =>
  cfg.profiles.length === 1 && (cfg.profiles[0].pluginConfig ?? []).length === 0 && cfg.profiles[0].plugins === undefined;

/**
 * Check the flags (and --config) and build the configuration; throws FlagError with one line.
 * A `--policy-configmap` source leaves `profiles` empty: call loadPolicyConfigMap once a client exists.
 */
export function schedulerConfig(parsed: ParsedOptions): SchedulerConfig {
  try {
    return build(parsed);
  } catch (err) {
    if (err instanceof ConfigError) throw new FlagError(err.message);
    throw err;
  }
}

function build(parsed: ParsedOptions): SchedulerConfig {
  const featureGates = new FeatureGates((parsed.value('feature-gates') as Record<string, boolean> | undefined) ?? {});
  const deprecated = deprecatedErrors(parsed);
  if (deprecated.length > 0) throw new FlagError(aggregate(deprecated));

  const configFile = resolved(parsed.string('config'));
  let cfg: KubeSchedulerConfiguration;
  if (configFile) {
    cfg = loadConfigFile(configFile, featureGates);
    // only --address and --port reach a loaded configuration (when given)
    if (parsed.isSet('address') || parsed.isSet('port')) {
      cfg.healthzBindAddress = insecureAddress(parsed);
      cfg.metricsBindAddress = cfg.healthzBindAddress;
    }
  } else {
    cfg = configurationFromFlags(parsed, featureGates);
    const errs = validateConfiguration(cfg);
    if (errs.length > 0) throw new FlagError(aggregate(errs));
  }

  const source = algorithmSource(parsed) ?? { provider: DEFAULT_PROVIDER };
  if (configFile && 'policy' in source && !emptyProfiles(cfg)) throw new FlagError('cannot set a Plugin config and Policy config');

  const certFile = parsed.string('tls-cert-file') || undefined;
  const keyFile = parsed.string('tls-private-key-file') || undefined;
  if (Boolean(certFile) !== Boolean(keyFile)) throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');

  const writeConfigTo = resolved(parsed.string('write-config-to'));
  const master = parsed.string('master') || undefined;
  const kubeconfig = resolved(cfg.clientConnection.kubeconfig || undefined);
  // --write-config-to exits before any client is made, as kube's does
  if (!writeConfigTo && !kubeconfig && !master) throw new FlagError('neither --kubeconfig nor --master was specified');

  const hardWeight = configFile ? 1 : parsed.number('hard-pod-affinity-symmetric-weight') ?? 1;
  // kube reads the policy file when it builds the scheduler, which --write-config-to never does
  const resolvedProfiles =
    writeConfigTo && 'policy' in source
      ? { profiles: [], extenders: [], alwaysCheckAllPredicates: false }
      : resolveProfiles({ componentConfig: cfg, algorithmSource: source, featureGates, hardPodAffinitySymmetricWeight: hardWeight });

  const le = cfg.leaderElection;
  if (le.leaderElect && !(LOCK_KINDS as readonly string[]).includes(le.resourceLock)) {
    throw new FlagError(`couldn't create resource lock: Invalid lock-type ${le.resourceLock}`);
  }
  return {
    configFile,
    componentConfig: cfg,
    kubeconfig,
    master,
    contentType: cfg.clientConnection.contentType === 'application/json' ? 'application/json' : 'application/vnd.kubernetes.protobuf',
    qps: cfg.clientConnection.qps,
    burst: cfg.clientConnection.burst,
    leaderElection: {
      enabled: le.leaderElect,
      lock: le.resourceLock as LockKind,
      name: le.resourceName,
      namespace: le.resourceNamespace,
      leaseDurationMs: parseDuration(le.leaseDuration),
      renewDeadlineMs: parseDuration(le.renewDeadline),
      retryPeriodMs: parseDuration(le.retryPeriod),
    },
    serving: servingConfig(parsed, 10259),
    auth: delegatedAuth(parsed),
    healthzBindAddress: cfg.healthzBindAddress,
    metricsBindAddress: cfg.metricsBindAddress,
    enableProfiling: cfg.enableProfiling,
    parallelism: cfg.parallelism,
    percentageOfNodesToScore: cfg.percentageOfNodesToScore,
    podInitialBackoffSeconds: cfg.podInitialBackoffSeconds,
    podMaxBackoffSeconds: cfg.podMaxBackoffSeconds,
    algorithmSource: source,
    ...resolvedProfiles,
    hardPodAffinitySymmetricWeight: hardWeight,
    writeConfigTo,
    featureGates,
    logging: loggingConfig(parsed),
    ignoredFlags: Object.freeze([
      ...parsed.acceptedButIgnored(),
      ...(configFile ? OVERRIDDEN_BY_CONFIG.filter((n) => parsed.isSet(n) && !parsed.acceptedButIgnored().includes(n)) : []),
    ]),
  };
}
