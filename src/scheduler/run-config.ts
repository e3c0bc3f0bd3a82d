/**
 * The scheduler's run configuration from its checked flags: the plain-HTTP addresses to serve on,
 * and the profiles of a Policy ConfigMap (--policy-configmap), read once the client exists.
 */
import type { SchedulerConfig } from '../options/scheduler';
import { loadPolicyConfigMap } from './config';
import type { RunSchedulerOptions } from './run';

export function schedulerRunConfig(config: SchedulerConfig): RunSchedulerOptions['config'] {
  const source = config.algorithmSource;
  const fromConfigMap = 'policy' in source && 'configMap' in source.policy;
  return {
    ...config,
    insecureAddresses: [config.healthzBindAddress, config.metricsBindAddress],
    loadProfiles: fromConfigMap ? async (get) => (await loadPolicyConfigMap(get, config)).profiles : undefined,
  };
}
