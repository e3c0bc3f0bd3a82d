/**
 * PodTopologySpread (kube 1.20): the pod's topologySpreadConstraints, DoNotSchedule ones as a
 * filter and ScheduleAnyway ones as a score. Pods without constraints get the plugin's default
 * constraints (args.defaultConstraints, or the system defaults while the DefaultPodTopologySpread
 * gate is on) with the selector of the services, controllers and sets that select them.
 */
import { isQualifiedName } from '../../../api/validation/names';
import { formatValue } from '../../../api/validation/field-errors';
import { errorStatus } from '../../framework/status';
import type { FrameworkHandle, Plugin, PluginFactory, PreFilterExtensions } from '../../framework/types';
import { POD_TOPOLOGY_SPREAD_NAME, computePreFilterState, filterNode, preFilterStateOrError, writePreFilterState } from './pod-topology-spread-filter';
import { computePreScoreState, normalize, scoreNode, writePreScoreState } from './pod-topology-spread-score';
import { constraintsFor, type TopologySpreadConstraintObject } from './spread-constraints';
import { LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE, fieldErrors } from './topology';

export { POD_TOPOLOGY_SPREAD_NAME } from './pod-topology-spread-filter';

export const SYSTEM_DEFAULTING = 'System';
export const LIST_DEFAULTING = 'List';

/** kube 1.20's systemDefaultConstraints */
export const SYSTEM_DEFAULT_CONSTRAINTS: readonly TopologySpreadConstraintObject[] = Object.freeze([
  { topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: LABEL_TOPOLOGY_ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
]);

export interface PodTopologySpreadArgs {
  defaultConstraints: TopologySpreadConstraintObject[];
  defaultingType: string;
}

/** v1beta1 defaulting: with the gate on, no constraints mean the system defaults */
export function podTopologySpreadArgs(raw: unknown, gateOn: boolean): PodTopologySpreadArgs {
  const given = (raw ?? {}) as { defaultConstraints?: TopologySpreadConstraintObject[] | null; defaultingType?: string };
  const defaultConstraints = given.defaultConstraints ?? [];
  let defaultingType = given.defaultingType ?? '';
  if (defaultingType === '') defaultingType = gateOn && defaultConstraints.length === 0 ? SYSTEM_DEFAULTING : LIST_DEFAULTING;
  const args = { defaultConstraints, defaultingType };
  const err = validatePodTopologySpreadArgs(args);
  if (err) throw err;
  return args;
}

const SUPPORTED_ACTIONS = ['DoNotSchedule', 'ScheduleAnyway'];

/** kube 1.20's ValidatePodTopologySpreadArgs */
export function validatePodTopologySpreadArgs(args: PodTopologySpreadArgs): Error | undefined {
  const errs: string[] = [];
  const t = args.defaultingType;
  if (t !== SYSTEM_DEFAULTING && t !== LIST_DEFAULTING) {
    errs.push(`defaultingType: Unsupported value: ${formatValue(t)}: supported values: "${SYSTEM_DEFAULTING}", "${LIST_DEFAULTING}"`);
  } else if (t === SYSTEM_DEFAULTING && args.defaultConstraints.length > 0) {
    errs.push(`defaultingType: Invalid value: ${formatValue(t)}: when .defaultConstraints are not empty`);
  }
  args.defaultConstraints.forEach((c, i) => {
    const p = `defaultConstraints[${i}]`;
    const maxSkew = c.maxSkew ?? 0;
    if (maxSkew <= 0) errs.push(`${p}.maxSkew: Invalid value: ${formatValue(maxSkew)}: must be greater than zero`);
    const key = c.topologyKey ?? '';
    if (key === '') errs.push(`${p}.topologyKey: Required value: can not be empty`);
    else for (const msg of isQualifiedName(key)) errs.push(`${p}.topologyKey: Invalid value: ${formatValue(key)}: ${msg}`);
    const action = c.whenUnsatisfiable ?? '';
    if (action === '') errs.push(`${p}.whenUnsatisfiable: Required value: can not be empty`);
    else if (!SUPPORTED_ACTIONS.includes(action)) {
      errs.push(`${p}.whenUnsatisfiable: Unsupported value: ${formatValue(action)}: supported values: ${SUPPORTED_ACTIONS.map((a) => `"${a}"`).join(', ')}`);
    }
    if (c.labelSelector !== undefined && c.labelSelector !== null) {
      errs.push(`${p}.labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod`);
    }
    const repeated = args.defaultConstraints.slice(0, i).some((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable);
    if (repeated) errs.push(`${p}: Duplicate value: ${formatValue(`{${key}, ${action}}`)}`);
  });
  return fieldErrors(errs);
}

export const newPodTopologySpread: PluginFactory = (rawArgs: unknown, handle: FrameworkHandle): Plugin => {
  const args = podTopologySpreadArgs(rawArgs, handle.featureGates.enabled('DefaultPodTopologySpread'));
  const defaults = args.defaultingType === SYSTEM_DEFAULTING ? SYSTEM_DEFAULT_CONSTRAINTS : args.defaultConstraints;
  const extensions: PreFilterExtensions = {
    addPod(state, pod, podToAdd, nodeInfo) {
      const s = preFilterStateOrError(state);
      if (s instanceof Error) return errorStatus(s);
      s.updateWithPod(podToAdd.pod, pod, nodeInfo.node, 1);
      return undefined;
    },
    removePod(state, pod, podToRemove, nodeInfo) {
      const s = preFilterStateOrError(state);
      if (s instanceof Error) return errorStatus(s);
      s.updateWithPod(podToRemove.pod, pod, nodeInfo.node, -1);
      return undefined;
    },
  };
  return {
    name: POD_TOPOLOGY_SPREAD_NAME,
    preFilter(state, pod) {
      try {
        const constraints = constraintsFor(pod, 'DoNotSchedule', defaults, handle);
        writePreFilterState(state, computePreFilterState(pod, constraints, handle.snapshot()));
        return undefined;
      } catch (err) {
        return errorStatus(err);
      }
    },
    preFilterExtensions: () => extensions,
    filter: (state, pod, nodeInfo) => filterNode(state, pod, nodeInfo),
    preScore(state, pod, nodes) {
      const lister = handle.snapshot();
      if (nodes.length === 0 || lister.list().length === 0) return undefined;
      let constraints;
      try {
        constraints = constraintsFor(pod, 'ScheduleAnyway', defaults, handle);
      } catch (err) {
        return errorStatus(new Error(`calculating preScoreState: ${(err as Error).message}`));
      }
      writePreScoreState(state, computePreScoreState(pod, constraints, nodes, lister));
      return undefined;
    },
    score(state, pod, nodeInfo) {
      const score = scoreNode(state, pod, nodeInfo);
      return score instanceof Error ? errorStatus(score) : score;
    },
    normalizeScore: (state, _pod, scores) => normalize(state, scores),
  };
};
