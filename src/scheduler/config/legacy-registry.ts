/**
 * kube 1.20's legacy registry (framework/plugins/legacy_registry.go): which plugins, at which
 * extension points and with which args, stand for each predicate and priority of a Policy.
 */
import type { FeatureGates } from '../../options/feature-gates';
import type { Args } from './plugin-args';
import type { PluginLists } from './providers';
import type { ExtensionPoint } from './types';

/** what the policy's arguments contribute to the producers (kube's ConfigProducerArgs) */
export interface ProducerArgs {
  weight: number;
  nodeLabel?: { presentLabels: string[]; absentLabels: string[]; presentLabelsPreference: string[]; absentLabelsPreference: string[] };
  serviceAffinity?: { affinityLabels: string[]; antiAffinityLabelsPreference: string[] };
  requestedToCapacityRatio?: Args;
  interPodAffinity?: Args;
}

/** the plugin lists and args being built, in kube's order */
export interface LegacyOutput {
  plugins: PluginLists;
  pluginConfig: Array<{ name: string; args: Args }>;
}

type Producer = (args: ProducerArgs, out: LegacyOutput, gates: FeatureGates) => void;

/**
 * kube's appendToPluginSet: a plugin already at the point is left as it is (kube means to keep
 * the larger weight, but updates a copy, so the first weight stays).
 */
function add(out: LegacyOutput, point: ExtensionPoint, name: string, weight?: number): void {
  const list = out.plugins[point];
  if (list.some((p) => p.name === name)) return;
  list.push(weight === undefined ? { name } : { name, weight });
}

const filterOnly = (name: string): Producer => (_a, out) => add(out, 'filter', name);
const scoreOnly = (name: string): Producer => (a, out) => add(out, 'score', name, a.weight);
const config = (out: LegacyOutput, name: string, args: Args | undefined): void => {
  if (args) out.pluginConfig.push({ name, args });
};

export const PREDICATES: Readonly<Record<string, Producer>> = {
  GeneralPredicates: (_a, out) => {
    // a combination of predicates
    add(out, 'filter', 'NodeResourcesFit');
    add(out, 'preFilter', 'NodeResourcesFit');
    add(out, 'filter', 'NodeName');
    add(out, 'filter', 'NodePorts');
    add(out, 'preFilter', 'NodePorts');
    add(out, 'filter', 'NodeAffinity');
  },
  PodToleratesNodeTaints: filterOnly('TaintToleration'),
  PodFitsResources: (_a, out) => {
    add(out, 'filter', 'NodeResourcesFit');
    add(out, 'preFilter', 'NodeResourcesFit');
  },
  HostName: filterOnly('NodeName'),
  PodFitsHostPorts: (_a, out) => {
    add(out, 'filter', 'NodePorts');
    add(out, 'preFilter', 'NodePorts');
  },
  MatchNodeSelector: filterOnly('NodeAffinity'),
  CheckNodeUnschedulable: filterOnly('NodeUnschedulable'),
  CheckVolumeBinding: (_a, out) => {
    for (const point of ['preFilter', 'filter', 'reserve', 'preBind'] as const) add(out, point, 'VolumeBinding');
  },
  NoDiskConflict: filterOnly('VolumeRestrictions'),
  NoVolumeZoneConflict: filterOnly('VolumeZone'),
  MaxCSIVolumeCountPred: filterOnly('NodeVolumeLimits'),
  MaxEBSVolumeCount: filterOnly('EBSLimits'),
  MaxGCEPDVolumeCount: filterOnly('GCEPDLimits'),
  MaxAzureDiskVolumeCount: filterOnly('AzureDiskLimits'),
  MaxCinderVolumeCount: filterOnly('CinderLimits'),
  MatchInterPodAffinity: (_a, out) => {
    add(out, 'filter', 'InterPodAffinity');
    add(out, 'preFilter', 'InterPodAffinity');
  },
  CheckNodeLabelPresence: (a, out) => {
    add(out, 'filter', 'NodeLabel');
    config(out, 'NodeLabel', a.nodeLabel);
  },
  CheckServiceAffinity: (a, out) => {
    add(out, 'filter', 'ServiceAffinity');
    config(out, 'ServiceAffinity', a.serviceAffinity);
    add(out, 'preFilter', 'ServiceAffinity');
  },
  EvenPodsSpread: (_a, out) => {
    add(out, 'preFilter', 'PodTopologySpread');
    add(out, 'filter', 'PodTopologySpread');
  },
};

export const PRIORITIES: Readonly<Record<string, Producer>> = {
  SelectorSpreadPriority: (a, out, gates) => {
    if (!gates.enabled('DefaultPodTopologySpread')) {
      add(out, 'score', 'SelectorSpread', a.weight);
      add(out, 'preScore', 'SelectorSpread');
      return;
    }
    // with the gate on, PodTopologySpread's system defaults do the selector spreading
    add(out, 'score', 'PodTopologySpread', a.weight);
    add(out, 'preScore', 'PodTopologySpread');
    const existing = out.pluginConfig.find((pc) => pc.name === 'PodTopologySpread');
    if (existing) existing.args = { defaultingType: 'System' };
    else out.pluginConfig.push({ name: 'PodTopologySpread', args: { defaultingType: 'System' } });
  },
  TaintTolerationPriority: (a, out) => {
    add(out, 'preScore', 'TaintToleration');
    add(out, 'score', 'TaintToleration', a.weight);
  },
  NodeAffinityPriority: scoreOnly('NodeAffinity'),
  ImageLocalityPriority: scoreOnly('ImageLocality'),
  InterPodAffinityPriority: (a, out) => {
    add(out, 'preScore', 'InterPodAffinity');
    add(out, 'score', 'InterPodAffinity', a.weight);
    config(out, 'InterPodAffinity', a.interPodAffinity);
  },
  NodePreferAvoidPodsPriority: scoreOnly('NodePreferAvoidPods'),
  MostRequestedPriority: scoreOnly('NodeResourcesMostAllocated'),
  BalancedResourceAllocation: scoreOnly('NodeResourcesBalancedAllocation'),
  LeastRequestedPriority: scoreOnly('NodeResourcesLeastAllocated'),
  RequestedToCapacityRatio: (a, out) => {
    add(out, 'score', 'RequestedToCapacityRatio', a.weight);
    config(out, 'RequestedToCapacityRatio', a.requestedToCapacityRatio);
  },
  NodeLabel: (a, out) => {
    // n label preferences of one weight (validation makes them equal) score as one plugin of n*weight
    const n = (a.nodeLabel?.presentLabelsPreference.length ?? 0) + (a.nodeLabel?.absentLabelsPreference.length ?? 0);
    add(out, 'score', 'NodeLabel', a.weight * n);
    config(out, 'NodeLabel', a.nodeLabel);
  },
  ServiceAffinity: (a, out) => {
    const n = a.serviceAffinity?.antiAffinityLabelsPreference.length ?? 0;
    add(out, 'score', 'ServiceAffinity', a.weight * n);
    config(out, 'ServiceAffinity', a.serviceAffinity);
  },
  EvenPodsSpreadPriority: (a, out, gates) => {
    add(out, 'preScore', 'PodTopologySpread');
    add(out, 'score', 'PodTopologySpread', a.weight);
    if (gates.enabled('DefaultPodTopologySpread') && !out.pluginConfig.some((pc) => pc.name === 'PodTopologySpread')) {
      // only the pods' own constraints: system defaults stay off unless SelectorSpreadPriority asks
      out.pluginConfig.push({ name: 'PodTopologySpread', args: { defaultingType: 'List' } });
    }
  },
};

/** the order predicates ran in, kept for the filters they became */
export const PREDICATE_ORDERING: readonly string[] = [
  'CheckNodeUnschedulable',
  'GeneralPredicates',
  'HostName',
  'PodFitsHostPorts',
  'MatchNodeSelector',
  'PodFitsResources',
  'NoDiskConflict',
  'PodToleratesNodeTaints',
  'CheckNodeLabelPresence',
  'CheckServiceAffinity',
  'MaxEBSVolumeCount',
  'MaxGCEPDVolumeCount',
  'MaxCSIVolumeCountPred',
  'MaxAzureDiskVolumeCount',
  'MaxCinderVolumeCount',
  'CheckVolumeBinding',
  'NoVolumeZoneConflict',
  'EvenPodsSpread',
  'MatchInterPodAffinity',
];

/** configured whatever the policy lists */
export const MANDATORY_PREDICATES: readonly string[] = ['PodToleratesNodeTaints', 'CheckNodeUnschedulable'];

/** used when a policy has no `predicates` field at all */
export const DEFAULT_PREDICATES: readonly string[] = [
  'NoVolumeZoneConflict',
  'MaxEBSVolumeCount',
  'MaxGCEPDVolumeCount',
  'MaxAzureDiskVolumeCount',
  'MaxCSIVolumeCountPred',
  'MatchInterPodAffinity',
  'NoDiskConflict',
  'GeneralPredicates',
  'PodToleratesNodeTaints',
  'CheckVolumeBinding',
  'CheckNodeUnschedulable',
  'EvenPodsSpread',
];

/** used when a policy has no `priorities` field at all */
export const DEFAULT_PRIORITIES: Readonly<Record<string, number>> = {
  SelectorSpreadPriority: 1,
  InterPodAffinityPriority: 1,
  LeastRequestedPriority: 1,
  BalancedResourceAllocation: 1,
  NodePreferAvoidPodsPriority: 10000,
  NodeAffinityPriority: 1,
  TaintTolerationPriority: 1,
  ImageLocalityPriority: 1,
  EvenPodsSpreadPriority: 2,
};
