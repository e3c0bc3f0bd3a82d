/**
 * The option tables of `ballast scheduler` (spec 3, sections 1.2, 1.1's leader election and 5),
 * with kube-scheduler 1.20's names, defaults and --help sections. Shared groups are reused with
 * the scheduler's defaults; the neutral spec's --svc-api-* are kube's --kube-api-*.
 */
import { genericControllerManagerOptions, delegatedAuthOptions, featureGateOptions } from './controller-manager-flags';
import { between, oneOf, option } from './define';
import { generalOptions } from './logging';
import type { OptionGroup, OptionSpec } from './types';

const pick = (group: OptionGroup, names: readonly string[]): OptionSpec[] =>
  names.map((n) => {
    const spec = group.options.find((o) => o.name === n);
    if (!spec) throw new TypeError(`no option --${n} in ${group.title}`);
    return spec;
  });

/** a shared option with the scheduler's own default */
const withDefault = (spec: OptionSpec, value: string): OptionSpec => Object.freeze({ ...spec, default: value });

export const schedulerMiscOptions: OptionGroup = Object.freeze({
  title: 'Misc flags',
  options: [
    option('config', 'string', 'KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1beta1, YAML or JSON); when given, only --address, --port and the policy and provider flags override its fields, the other deprecated flags are ignored', { supported: true }),
    option('master', 'string', 'address of the API server (overrides the kubeconfig\'s server)', { supported: true }),
    option('write-config-to', 'string', 'write the effective configuration to this file (YAML) and exit', { supported: true }),
  ],
});

export const schedulerInsecureServingOptions: OptionGroup = Object.freeze({
  title: 'Insecure serving flags',
  options: [
    option('address', 'ip', 'DEPRECATED: address of the plain-HTTP health and metrics server (see --bind-address)', { default: '0.0.0.0', supported: true }),
    option('port', 'int', 'DEPRECATED: port of the plain-HTTP health and metrics server, without authentication or authorization; 0 means none (see --secure-port)', {
      default: '10251',
      supported: true,
      validate: between(0, 65535),
    }),
  ],
});

export const schedulerDeprecatedOptions: OptionGroup = Object.freeze({
  title: 'Deprecated flags',
  options: [
    option('algorithm-provider', 'string', 'DEPRECATED: the provider of the default plugins: ClusterAutoscalerProvider | DefaultProvider', { supported: true }),
    option('contention-profiling', 'bool', 'DEPRECATED: also profile lock contention when profiling is on (Node has none: no effect)', { default: 'true' }),
    option('hard-pod-affinity-symmetric-weight', 'int', 'DEPRECATED: weight (0-100) of the preferred affinity term implied by each required pod affinity term of existing pods; becomes InterPodAffinity\'s hardPodAffinityWeight', {
      default: '1',
      supported: true,
    }),
    option('kube-api-burst', 'int', 'DEPRECATED: burst of queries to the API server', { default: '100', supported: true }),
    option('kube-api-content-type', 'string', 'DEPRECATED: content type of requests to the API server', {
      default: 'application/vnd.kubernetes.protobuf',
      supported: true,
      validate: oneOf('application/vnd.kubernetes.protobuf', 'application/json'),
    }),
    option('kube-api-qps', 'float', 'DEPRECATED: queries per second to the API server', { default: '50', supported: true }),
    option('kubeconfig', 'string', 'DEPRECATED: kubeconfig file naming the API server and the scheduler\'s credentials', { supported: true }),
    option('lock-object-name', 'string', 'DEPRECATED: name of the leader election lock object (use --leader-elect-resource-name)', { default: 'kube-scheduler', supported: true }),
    option('lock-object-namespace', 'string', 'DEPRECATED: namespace of the lock object (use --leader-elect-resource-namespace)', { default: 'kube-system', supported: true }),
    option('policy-config-file', 'string', 'DEPRECATED: file holding a scheduler Policy; used when --policy-configmap is not given or --use-legacy-policy-config is true; an error together with plugin configuration', { supported: true }),
    option('policy-configmap', 'string', 'DEPRECATED: ConfigMap holding a scheduler Policy under the key policy.cfg; must exist before the scheduler starts unless --use-legacy-policy-config', { supported: true }),
    option('policy-configmap-namespace', 'string', 'DEPRECATED: namespace of --policy-configmap', { default: 'kube-system', supported: true }),
    option('profiling', 'bool', 'DEPRECATED: serve profiling data under /debug/pprof/', { default: 'true', supported: true }),
    option('scheduler-name', 'string', 'DEPRECATED: the profile\'s name; the scheduler places pods whose spec.schedulerName is this', { default: 'default-scheduler', supported: true }),
    option('use-legacy-policy-config', 'bool', 'DEPRECATED: read the Policy from --policy-config-file and ignore --policy-configmap', { supported: true }),
  ],
});

/** 1.1's leader election options, naming the scheduler's lock */
export const schedulerLeaderElectionOptions: OptionGroup = Object.freeze({
  title: 'Leader election flags',
  options: pick(genericControllerManagerOptions, [
    'leader-elect',
    'leader-elect-lease-duration',
    'leader-elect-renew-deadline',
    'leader-elect-resource-lock',
    'leader-elect-resource-name',
    'leader-elect-resource-namespace',
    'leader-elect-retry-period',
  ]).map((o) => (o.name === 'leader-elect-resource-name' ? withDefault(o, 'kube-scheduler') : o)),
});

/** spec 3 section 5 with the scheduler's defaults: lookup failures tolerated, only /healthz always allowed */
export const schedulerAuthOptions: readonly OptionGroup[] = Object.freeze(
  delegatedAuthOptions.map((g) =>
    Object.freeze({
      title: g.title,
      options: g.options.map((o) => {
        if (o.name === 'authentication-tolerate-lookup-failure') return withDefault(o, 'true');
        if (o.name === 'authorization-always-allow-paths') return withDefault(o, '/healthz');
        return o;
      }),
    }),
  ),
);

export const schedulerFeatureGateOptions: OptionGroup = Object.freeze({
  title: featureGateOptions.title,
  options: featureGateOptions.options.map((o) =>
    Object.freeze({
      ...o,
      description: 'feature gates as Name=true|false pairs (kube 1.32 and 1.20 gates); DefaultPodTopologySpread (on by default) chooses PodTopologySpread over SelectorSpread for default spreading',
    }),
  ),
});

export const schedulerMetricsOptions: OptionGroup = Object.freeze({
  title: 'Metrics flags',
  options: pick(generalOptions, ['show-hidden-metrics-for-version']),
});

export const schedulerGeneralOptions: OptionGroup = Object.freeze({
  title: 'General flags',
  options: pick(generalOptions, ['http2-max-streams-per-connection', 'permit-port-sharing']),
});
