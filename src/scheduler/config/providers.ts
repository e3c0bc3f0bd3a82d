/**
 * kube 1.20's algorithm providers (pkg/scheduler/algorithmprovider/registry.go): the plugins each
 * extension point runs before a profile's own enabled/disabled lists are applied.
 */
import type { FeatureGates } from '../../options/feature-gates';
import { CLUSTER_AUTOSCALER_PROVIDER, ConfigError, DEFAULT_PROVIDER, EXTENSION_POINTS } from './types';
import type { ExtensionPoint, PluginRef } from './types';

export type PluginLists = Record<ExtensionPoint, PluginRef[]>;

export const emptyPluginLists = (): PluginLists =>
  Object.fromEntries(EXTENSION_POINTS.map((p) => [p, [] as PluginRef[]])) as unknown as PluginLists;

const names = (...n: string[]): PluginRef[] => n.map((name) => ({ name }));

function defaultProvider(): PluginLists {
  return {
    ...emptyPluginLists(),
    queueSort: names('PrioritySort'),
    preFilter: names('NodeResourcesFit', 'NodePorts', 'PodTopologySpread', 'InterPodAffinity', 'VolumeBinding'),
    filter: names(
      'NodeUnschedulable',
      'NodeResourcesFit',
      'NodeName',
      'NodePorts',
      'NodeAffinity',
      'VolumeRestrictions',
      'TaintToleration',
      'EBSLimits',
      'GCEPDLimits',
      'NodeVolumeLimits',
      'AzureDiskLimits',
      'VolumeBinding',
      'VolumeZone',
      'PodTopologySpread',
      'InterPodAffinity',
    ),
    postFilter: names('DefaultPreemption'),
    preScore: names('InterPodAffinity', 'PodTopologySpread', 'TaintToleration'),
    score: [
      { name: 'NodeResourcesBalancedAllocation', weight: 1 },
      { name: 'ImageLocality', weight: 1 },
      { name: 'InterPodAffinity', weight: 1 },
      { name: 'NodeResourcesLeastAllocated', weight: 1 },
      { name: 'NodeAffinity', weight: 1 },
      { name: 'NodePreferAvoidPods', weight: 10000 },
      // doubled: a user preference, comparable with NodeResourcesLeastAllocated
      { name: 'PodTopologySpread', weight: 2 },
      { name: 'TaintToleration', weight: 1 },
    ],
    reserve: names('VolumeBinding'),
    preBind: names('VolumeBinding'),
    bind: names('DefaultBinder'),
  };
}

/** with DefaultPodTopologySpread off, SelectorSpread does the default spreading */
function applyFeatureGates(lists: PluginLists, gates: FeatureGates): PluginLists {
  if (!gates.enabled('DefaultPodTopologySpread')) {
    lists.preScore.push({ name: 'SelectorSpread' });
    lists.score.push({ name: 'SelectorSpread', weight: 1 });
  }
  return lists;
}

export const PROVIDERS: readonly string[] = Object.freeze([CLUSTER_AUTOSCALER_PROVIDER, DEFAULT_PROVIDER]);

/** the plugins of a named provider; throws kube's error for an unknown name */
export function providerPlugins(provider: string, gates: FeatureGates): PluginLists {
  if (provider === DEFAULT_PROVIDER) return applyFeatureGates(defaultProvider(), gates);
  if (provider === CLUSTER_AUTOSCALER_PROVIDER) {
    const lists = defaultProvider();
    // bin-packing: most instead of least allocated
    lists.score = lists.score.map((p) => (p.name === 'NodeResourcesLeastAllocated' ? { ...p, name: 'NodeResourcesMostAllocated' } : p));
    return applyFeatureGates(lists, gates);
  }
  throw new ConfigError(`couldn't create scheduler using provider "${provider}": algorithm provider "${provider}" is not registered`);
}
