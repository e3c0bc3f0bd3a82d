/**
 * The scheduler's configuration: `--config` files, providers, profiles, the legacy Policy and
 * `--write-config-to`. `src/options/scheduler.ts` turns flags into a SchedulerConfig with these.
 */
import type { KubeObject } from '../../client/types';
import type { FeatureGates } from '../../options/feature-gates';
import { policyToProfiles, readPolicyConfigMap, readPolicyFile } from './policy';
import { resolveProfile } from './profiles';
import { providerPlugins } from './providers';
import type { AlgorithmSource, KubeSchedulerConfiguration, SchedulerProfile } from './types';

export * from './types';
export { configurationFromText, loadConfigFile } from './config-file';
export { defaultConfiguration } from './defaults';
export { validateConfiguration } from './validation';
export { configurationYaml } from './write-config';
export { decodePolicy, policyToProfiles, readPolicyFile, validatePolicy } from './policy';
export { providerPlugins, PROVIDERS } from './providers';
export { mergePluginSet, resolveProfile } from './profiles';
export { defaultArgs, hasArgsType, PLUGINS_WITH_ARGS, validateArgs } from './plugin-args';

/** what resolving profiles needs and fills in (a subset of the options' SchedulerConfig) */
export interface ProfileInputs {
  componentConfig: KubeSchedulerConfiguration;
  algorithmSource: AlgorithmSource;
  featureGates: FeatureGates;
  /** --hard-pod-affinity-symmetric-weight as given (for a policy without its own weight) */
  hardPodAffinitySymmetricWeight: number;
  profiles: readonly SchedulerProfile[];
  extenders: ReadonlyArray<Record<string, unknown>>;
  alwaysCheckAllPredicates: boolean;
}

/**
 * The profiles of a provider or policy-file source (a ConfigMap source needs the API: see
 * loadPolicyConfigMap). Throws ConfigError with kube's wording.
 */
export function resolveProfiles(inputs: Omit<ProfileInputs, 'profiles' | 'extenders' | 'alwaysCheckAllPredicates'>): Pick<ProfileInputs, 'profiles' | 'extenders' | 'alwaysCheckAllPredicates'> {
  const { componentConfig: cfg, algorithmSource: source, featureGates: gates } = inputs;
  if ('provider' in source) {
    const base = providerPlugins(source.provider, gates);
    return {
      profiles: cfg.profiles.map((p) => resolveProfile(p, base, gates)),
      extenders: (cfg.extenders ?? []) as unknown as Array<Record<string, unknown>>,
      alwaysCheckAllPredicates: false,
    };
  }
  if ('file' in source.policy) {
    return policyToProfiles(readPolicyFile(source.policy.file), cfg.profiles, { gates, cliHardPodAffinityWeight: inputs.hardPodAffinitySymmetricWeight });
  }
  return { profiles: [], extenders: [], alwaysCheckAllPredicates: false };
}

/**
 * With `--policy-configmap` (and without --use-legacy-policy-config): read the Policy from the
 * ConfigMap's `policy.cfg` through `getConfigMap` (the caller's API client) and return the config
 * with its profiles, extenders and alwaysCheckAllPredicates filled in. Other sources pass through.
 */
export async function loadPolicyConfigMap<C extends ProfileInputs>(getConfigMap: (namespace: string, name: string) => Promise<KubeObject>, config: C): Promise<C> {
  const source = config.algorithmSource;
  if (!('policy' in source) || !('configMap' in source.policy)) return config;
  const { namespace, name } = source.policy.configMap;
  const policy = await readPolicyConfigMap(getConfigMap, namespace, name);
  const result = policyToProfiles(policy, config.componentConfig.profiles, {
    gates: config.featureGates,
    cliHardPodAffinityWeight: config.hardPodAffinitySymmetricWeight,
  });
  return { ...config, ...result };
}
