/** the inter-pod plugins, by kube name, for the lead to register */
import type { PluginFactory } from '../../framework/types';
import { INTER_POD_AFFINITY_NAME, newInterPodAffinity } from './inter-pod-affinity';
import { POD_TOPOLOGY_SPREAD_NAME, newPodTopologySpread } from './pod-topology-spread';
import { SELECTOR_SPREAD_NAME, newSelectorSpread } from './selector-spread';
import { SERVICE_AFFINITY_NAME, newServiceAffinity } from './service-affinity';

export { INTER_POD_AFFINITY_NAME, POD_TOPOLOGY_SPREAD_NAME, SELECTOR_SPREAD_NAME, SERVICE_AFFINITY_NAME };

export const POD_PLUGINS: Record<string, PluginFactory> = {
  [INTER_POD_AFFINITY_NAME]: newInterPodAffinity,
  [POD_TOPOLOGY_SPREAD_NAME]: newPodTopologySpread,
  [SELECTOR_SPREAD_NAME]: newSelectorSpread,
  [SERVICE_AFFINITY_NAME]: newServiceAffinity,
};
