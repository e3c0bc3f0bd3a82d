/**
 * The v1beta1 plugin args types of kube 1.20: their defaults (v1beta1 SetDefaults_*Args) and their
 * checks (validation_pluginargs.go), with kube's messages. Field paths are relative to the args;
 * the caller prefixes `profiles[i].pluginConfig[j].args`.
 */
import { isQualifiedName } from '../../api/validation/names';
import type { FeatureGates } from '../../options/feature-gates';
import { invalid, forbidden, notSupported, required, duplicate } from './field-errors';

export type Args = Record<string, unknown>;

/** plugins with an args type; their args decode strictly and get defaults */
export const PLUGINS_WITH_ARGS: readonly string[] = Object.freeze([
  'DefaultPreemption',
  'InterPodAffinity',
  'NodeAffinity',
  'NodeLabel',
  'NodeResourcesFit',
  'NodeResourcesLeastAllocated',
  'NodeResourcesMostAllocated',
  'PodTopologySpread',
  'RequestedToCapacityRatio',
  'ServiceAffinity',
  'VolumeBinding',
]);

export const hasArgsType = (plugin: string): boolean => PLUGINS_WITH_ARGS.includes(plugin);

const defaultResources = (): Array<{ name: string; weight: number }> => [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

/** a fresh copy of `given` (or of nothing) with kube 1.20's v1beta1 defaults filled in */
export function defaultArgs(plugin: string, given: Args | undefined, gates: FeatureGates): Args {
  const a: Args = structuredClone(given ?? {});
  delete a.apiVersion;
  delete a.kind;
  switch (plugin) {
    case 'DefaultPreemption':
      a.minCandidateNodesPercentage ??= 10;
      a.minCandidateNodesAbsolute ??= 100;
      break;
    case 'InterPodAffinity':
      a.hardPodAffinityWeight ??= 1;
      break;
    case 'NodeResourcesLeastAllocated':
    case 'NodeResourcesMostAllocated':
      if (!Array.isArray(a.resources) || a.resources.length === 0) a.resources = defaultResources();
      break;
    case 'RequestedToCapacityRatio': {
      if (!Array.isArray(a.resources) || a.resources.length === 0) a.resources = defaultResources();
      // an unset or zero weight means 1 here (and only here)
      for (const r of a.resources as Array<{ weight?: number }>) if (!r.weight) r.weight = 1;
      break;
    }
    case 'PodTopologySpread': {
      if (!a.defaultingType) {
        const constraints = Array.isArray(a.defaultConstraints) ? a.defaultConstraints : [];
        // with the DefaultPodTopologySpread gate on, no constraints means the system defaults
        a.defaultingType = gates.enabled('DefaultPodTopologySpread') && constraints.length === 0 ? 'System' : 'List';
      }
      break;
    }
    case 'VolumeBinding':
      a.bindTimeoutSeconds ??= 600;
      break;
  }
  return a;
}

type Check = (a: Args, p: string) => string[];

const at = (p: string, child: string): string => (p ? `${p}.${child}` : child);

function resourceWeights(a: Args): string[] {
  for (const r of (a.resources as Array<{ name: string; weight?: number }> | undefined) ?? []) {
    const w = r.weight ?? 0;
    if (w <= 0) return [`resource Weight of ${r.name} should be a positive value, got ${w}`];
    if (w > 100) return [`resource Weight of ${r.name} should be less than 100, got ${w}`];
  }
  return [];
}

function functionShape(a: Args): string[] {
  const shape = (a.shape as Array<{ utilization?: number; score?: number }> | undefined) ?? [];
  if (shape.length === 0) return ['at least one point must be specified'];
  for (let i = 1; i < shape.length; i++) {
    const prev = shape[i - 1].utilization ?? 0;
    const cur = shape[i].utilization ?? 0;
    if (prev >= cur) return [`utilization values must be sorted. Utilization[${i - 1}]==${prev} >= Utilization[${i}]==${cur}`];
  }
  for (const [i, pt] of shape.entries()) {
    const u = pt.utilization ?? 0;
    const s = pt.score ?? 0;
    if (u < 0) return [`utilization values must not be less than 0. Utilization[${i}]==${u}`];
    if (u > 100) return [`utilization values must not be greater than 100. Utilization[${i}]==${u}`];
    if (s < 0) return [`score values must not be less than 0. Score[${i}]==${s}`];
    if (s > 10) return [`score values must not be greater than 10. Score[${i}]==${s}`];
  }
  return [];
}

function noConflict(present: unknown, absent: unknown): string[] {
  const p = (present as string[] | undefined) ?? [];
  const ab = (absent as string[] | undefined) ?? [];
  const hit = ab.find((l) => p.includes(l));
  return hit === undefined ? [] : [`detecting at least one label (e.g., "${hit}") that exist in both the present([${p.join(' ')}]) and absent([${ab.join(' ')}]) label list`];
}

function labelName(value: string, p: string): string[] {
  return isQualifiedName(value).map((msg) => invalid(p, value, msg));
}

function topologySpread(a: Args, p: string): string[] {
  const errs: string[] = [];
  const constraints = (a.defaultConstraints as Array<Record<string, unknown>> | undefined) ?? [];
  const base = at(p, 'defaultConstraints');
  constraints.forEach((c, i) => {
    const cp = `${base}[${i}]`;
    const maxSkew = typeof c.maxSkew === 'number' ? c.maxSkew : 0;
    if (maxSkew <= 0) errs.push(invalid(`${cp}.maxSkew`, maxSkew, 'must be greater than zero'));
    const key = typeof c.topologyKey === 'string' ? c.topologyKey : '';
    if (key === '') errs.push(required(`${cp}.topologyKey`, 'can not be empty'));
    else errs.push(...labelName(key, `${cp}.topologyKey`));
    const when = typeof c.whenUnsatisfiable === 'string' ? c.whenUnsatisfiable : '';
    if (when === '') errs.push(required(`${cp}.whenUnsatisfiable`, 'can not be empty'));
    else if (when !== 'DoNotSchedule' && when !== 'ScheduleAnyway') errs.push(notSupported(`${cp}.whenUnsatisfiable`, when, ['DoNotSchedule', 'ScheduleAnyway']));
    if (c.labelSelector != null) errs.push(forbidden(`${cp}.labelSelector`, 'constraint must not define a selector, as they deduced for each pod'));
    const repeat = constraints.slice(0, i).some((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable);
    if (repeat) errs.push(duplicate(cp, `{${key}, ${when}}`));
  });
  const type = a.defaultingType;
  if (type !== 'System' && type !== 'List') errs.push(notSupported(at(p, 'defaultingType'), type, ['List', 'System']));
  else if (type === 'System' && constraints.length > 0) errs.push(invalid(at(p, 'defaultingType'), type, 'when .defaultConstraints are not empty'));
  return errs;
}

const CHECKS: Readonly<Record<string, Check>> = {
  DefaultPreemption: (a, p) => {
    const pct = a.minCandidateNodesPercentage as number;
    const abs = a.minCandidateNodesAbsolute as number;
    const pp = at(p, 'minCandidateNodesPercentage');
    const ap = at(p, 'minCandidateNodesAbsolute');
    const errs: string[] = [];
    if (pct < 0 || pct > 100) errs.push(invalid(pp, pct, 'not in valid range [0, 100]'));
    if (abs < 0) errs.push(invalid(ap, abs, 'not in valid range [0, inf)'));
    if (pct === 0 && abs === 0) {
      errs.push(invalid(pp, pct, 'cannot be zero at the same time as minCandidateNodesAbsolute'));
      errs.push(invalid(ap, abs, 'cannot be zero at the same time as minCandidateNodesPercentage'));
    }
    return errs;
  },
  InterPodAffinity: (a, p) => hardPodAffinityWeightErrors(a.hardPodAffinityWeight as number, at(p, 'hardPodAffinityWeight')),
  NodeLabel: (a) => [...noConflict(a.presentLabels, a.absentLabels), ...noConflict(a.presentLabelsPreference, a.absentLabelsPreference)],
  NodeResourcesFit: (a, p) => {
    const errs: string[] = [];
    ((a.ignoredResources as string[] | undefined) ?? []).forEach((r, i) => errs.push(...labelName(r, `${at(p, 'ignoredResources')}[${i}]`)));
    ((a.ignoredResourceGroups as string[] | undefined) ?? []).forEach((g, i) => {
      const gp = `${at(p, 'ignoredResourceGroups')}[${i}]`;
      if (g.includes('/')) errs.push(invalid(gp, g, "resource group name can't contain '/'"));
      errs.push(...labelName(g, gp));
    });
    return errs;
  },
  NodeResourcesLeastAllocated: (a) => resourceWeights(a),
  NodeResourcesMostAllocated: (a) => resourceWeights(a),
  PodTopologySpread: topologySpread,
  RequestedToCapacityRatio: (a) => [...functionShape(a), ...resourceWeights(a)],
  VolumeBinding: (a, p) =>
    (a.bindTimeoutSeconds as number) < 0 ? [invalid(at(p, 'bindTimeoutSeconds'), a.bindTimeoutSeconds, 'invalid BindTimeoutSeconds, should not be a negative value')] : [],
};

/** kube's ValidateHardPodAffinityWeight */
export function hardPodAffinityWeightErrors(weight: number, path: string): string[] {
  return weight < 0 || weight > 100 ? [invalid(path, weight, 'not in valid range [0-100]')] : [];
}

/**
 * Check defaulted args; messages that kube gives without a field path are prefixed with `path`
 * so a start-up error still names the plugin's entry.
 */
export function validateArgs(plugin: string, args: Args, path: string): string[] {
  const check = CHECKS[plugin];
  if (!check) return [];
  return check(args, path).map((msg) => (msg.startsWith(`${path}.`) ? msg : `${path}: ${msg}`));
}
