/**
 * The deprecated Policy (kind Policy, apiVersion v1) from `--policy-config-file` or the
 * `policy.cfg` key of `--policy-configmap`: decoded strictly, validated (ValidatePolicy) and mapped
 * onto plugins through the legacy registry, as kube 1.20's createFromConfig does.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { KubeObject } from '../../client/types';
import type { FeatureGates } from '../../options/feature-gates';
import { checkTypeMeta, parseDocument } from './config-file';
import { aggregate, invalid } from './field-errors';
import { DEFAULT_PREDICATES, DEFAULT_PRIORITIES, MANDATORY_PREDICATES, PREDICATE_ORDERING, PREDICATES, PRIORITIES } from './legacy-registry';
import type { LegacyOutput, ProducerArgs } from './legacy-registry';
import { pluginArgs } from './profiles';
import { emptyPluginLists } from './providers';
import { POLICY_SHAPE, decodeShape } from './schema';
import { ConfigError, POLICY_CONFIGMAP_KEY } from './types';
import type { KubeSchedulerProfile, Policy, PriorityPolicy, SchedulerProfile } from './types';
import { extenderErrors } from './validation';

/** what a policy turns into */
export interface PolicyResult {
  profiles: SchedulerProfile[];
  /** the policy's extenders (kept; Ballast does not call extenders) */
  extenders: Array<Record<string, unknown>>;
  alwaysCheckAllPredicates: boolean;
}

export function decodePolicy(text: string): Policy {
  const doc = parseDocument(text);
  checkTypeMeta(doc, 'v1', 'Policy');
  const p = decodeShape(doc, POLICY_SHAPE, '') as Policy & { kind?: string; apiVersion?: string };
  delete p.kind;
  delete p.apiVersion;
  return p;
}

/** kube's ValidatePolicy: every problem, aggregated */
export function validatePolicy(policy: Policy): string[] {
  const errs: string[] = [];
  const custom = new Map<string, PriorityPolicy>();
  for (const pr of policy.priorities ?? []) {
    if ((pr.weight ?? 0) <= 0 || pr.weight >= Math.floor(Number.MAX_SAFE_INTEGER / 100)) {
      errs.push(`Priority ${pr.name} should have a positive weight applied to it or it has overflown`);
    }
    const arg = pr.argument;
    if (!arg) continue;
    const sameWeight = (type: string): void => {
      const prev = custom.get(type);
      if (prev && prev.weight !== pr.weight) errs.push(`${type}  priority "${pr.name}" has a different weight with "${prev.name}"`);
      custom.set(type, pr);
    };
    if (arg.labelPreference) sameWeight('LabelPreference');
    else if (arg.serviceAntiAffinity) sameWeight('ServiceAntiAffinity');
    else if (arg.requestedToCapacityRatioArguments) {
      const prev = custom.get('RequestedToCapacityRatio');
      if (prev) errs.push(`Priority "${pr.name}" redeclares custom priority "RequestedToCapacityRatio", from:"${prev.name}"`);
      else custom.set('RequestedToCapacityRatio', pr);
    } else errs.push(`No priority arguments set for priority ${pr.name}`);
  }
  const legacyExtenders = (policy.extenders ?? []) as unknown as Parameters<typeof extenderErrors>[0];
  errs.push(...extenderErrors(legacyExtenders));
  const w = policy.hardPodAffinitySymmetricWeight ?? 0;
  if (w < 0 || w > 100) errs.push(invalid('hardPodAffinitySymmetricWeight', w, 'not in valid range [0-100]'));
  return errs;
}

/** kube's ProcessPredicatePolicy: the registry key, with custom arguments folded into `args` */
function predicateKey(pred: NonNullable<Policy['predicates']>[number], args: ProducerArgs): string {
  const a = pred.argument;
  if (a && Number(Boolean(a.serviceAffinity)) + Number(Boolean(a.labelsPresence)) !== 1) {
    throw new ConfigError(`exactly 1 predicate argument is required, numArgs: ${Number(Boolean(a.serviceAffinity)) + Number(Boolean(a.labelsPresence))}, predicate ${pred.name}`);
  }
  // "PodFitsPorts" is still accepted for compatibility
  const name = pred.name === 'PodFitsPorts' ? 'PodFitsHostPorts' : pred.name;
  if (name in PREDICATES) return name;
  if (!a) throw new ConfigError(`predicate type not found for "${name}"`);
  if (a.serviceAffinity) {
    args.serviceAffinity ??= { affinityLabels: [], antiAffinityLabelsPreference: [] };
    args.serviceAffinity.affinityLabels.push(...(a.serviceAffinity.labels ?? []));
    return 'CheckServiceAffinity';
  }
  const lp = a.labelsPresence!;
  args.nodeLabel ??= { presentLabels: [], absentLabels: [], presentLabelsPreference: [], absentLabelsPreference: [] };
  (lp.presence ? args.nodeLabel.presentLabels : args.nodeLabel.absentLabels).push(...(lp.labels ?? []));
  return 'CheckNodeLabelPresence';
}

/** kube's ProcessPriorityPolicy */
function priorityKey(pr: PriorityPolicy, args: ProducerArgs): string {
  const a = pr.argument;
  const count = a ? [a.serviceAntiAffinity, a.labelPreference, a.requestedToCapacityRatioArguments].filter(Boolean).length : 1;
  if (count !== 1) throw new ConfigError(`exactly 1 priority argument is required, numArgs: ${count}, priority ${pr.name}`);
  // "ServiceSpreadingPriority" is still accepted for compatibility
  const name = pr.name === 'ServiceSpreadingPriority' ? 'SelectorSpreadPriority' : pr.name;
  if (name in PRIORITIES) return name;
  if (!a) throw new ConfigError(`priority type not found for "${name}"`);
  if (a.serviceAntiAffinity) {
    args.serviceAffinity ??= { affinityLabels: [], antiAffinityLabelsPreference: [] };
    args.serviceAffinity.antiAffinityLabelsPreference.push(a.serviceAntiAffinity.label);
    return 'ServiceAffinity';
  }
  if (a.labelPreference) {
    args.nodeLabel ??= { presentLabels: [], absentLabels: [], presentLabelsPreference: [], absentLabelsPreference: [] };
    (a.labelPreference.presence ? args.nodeLabel.presentLabelsPreference : args.nodeLabel.absentLabelsPreference).push(a.labelPreference.label);
    return 'NodeLabel';
  }
  const r = a.requestedToCapacityRatioArguments!;
  args.requestedToCapacityRatio = {
    shape: (r.shape ?? []).map((s) => ({ utilization: s.utilization ?? 0, score: s.score ?? 0 })),
    resources: (r.resources ?? []).map((x) => ({ name: x.name, weight: x.weight ?? 0 })),
  };
  // custom names are not allowed for this one (kube #83472)
  return 'RequestedToCapacityRatio';
}

/**
 * Map a policy onto every profile, replacing their plugins and plugin configs. `cliHardPodAffinityWeight`
 * is --hard-pod-affinity-symmetric-weight; the policy's own non-zero weight takes precedence.
 */
export function policyToProfiles(
  policy: Policy,
  profiles: readonly KubeSchedulerProfile[],
  opts: { gates: FeatureGates; cliHardPodAffinityWeight?: number },
): PolicyResult {
  const errs = validatePolicy(policy);
  if (errs.length > 0) throw new ConfigError(`couldn't create scheduler from policy: ${aggregate(errs)}`);
  try {
    const args: ProducerArgs = { weight: 0 };
    const predicates = new Set(policy.predicates === undefined ? DEFAULT_PREDICATES : policy.predicates.map((p) => predicateKey(p, args)));
    const priorities = new Map<string, number>(
      policy.priorities === undefined
        ? Object.entries(DEFAULT_PRIORITIES)
        : policy.priorities.filter((p) => p.name !== 'EqualPriority').map((p) => [priorityKey(p, args), p.weight ?? 0] as [string, number]),
    );
    const weight = policy.hardPodAffinitySymmetricWeight || (opts.cliHardPodAffinityWeight !== undefined && opts.cliHardPodAffinityWeight !== 1 ? opts.cliHardPodAffinityWeight : 0);
    if (weight) args.interPodAffinity = { hardPodAffinityWeight: weight };

    // queue sort, preemption and binding were never predicates or priorities: always there
    const out: LegacyOutput = { plugins: emptyPluginLists(), pluginConfig: [] };
    out.plugins.queueSort.push({ name: 'PrioritySort' });
    out.plugins.postFilter.push({ name: 'DefaultPreemption' });
    out.plugins.bind.push({ name: 'DefaultBinder' });

    for (const m of MANDATORY_PREDICATES) predicates.add(m);
    const ordered = [...PREDICATE_ORDERING.filter((p) => predicates.has(p)), ...[...predicates].filter((p) => !PREDICATE_ORDERING.includes(p)).sort()];
    for (const key of ordered) {
      const producer = PREDICATES[key];
      if (!producer) throw new ConfigError(`no framework config producer registered for "${key}"`);
      producer(args, out, opts.gates);
    }
    for (const key of [...priorities.keys()].sort()) {
      const producer = PRIORITIES[key];
      if (!producer) throw new ConfigError(`no config producer registered for "${key}"`);
      producer({ ...args, weight: priorities.get(key)! }, out, opts.gates);
    }
    const deduped: LegacyOutput['pluginConfig'] = [];
    for (const pc of out.pluginConfig) {
      const prev = deduped.find((d) => d.name === pc.name);
      if (!prev) deduped.push(pc);
      else if (JSON.stringify(prev.args) !== JSON.stringify(pc.args)) throw new ConfigError(`inconsistent configuration produced for plugin ${pc.name}`);
    }
    return {
      profiles: profiles.map((p) => ({
        schedulerName: p.schedulerName,
        plugins: structuredClone(out.plugins),
        pluginConfig: pluginArgs(deduped, out.plugins, opts.gates),
      })),
      extenders: structuredClone(policy.extenders ?? []),
      alwaysCheckAllPredicates: policy.alwaysCheckAllPredicates ?? false,
    };
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`couldn't create scheduler from policy: ${err.message}`);
    throw err;
  }
}

/** kube's initPolicyFromFile */
export function readPolicyFile(file: string): Policy {
  if (!existsSync(file)) throw new ConfigError(`missing policy config file ${file}`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`couldn't read policy config: ${(err as Error).message}`);
  }
  return decodeWrapped(text);
}

/**
 * kube's initPolicyFromConfigMap: fetch the ConfigMap (through the caller's client) and decode its
 * `policy.cfg`.
 */
export async function readPolicyConfigMap(getConfigMap: (namespace: string, name: string) => Promise<KubeObject>, namespace: string, name: string): Promise<Policy> {
  let cm: KubeObject;
  try {
    cm = await getConfigMap(namespace, name);
  } catch (err) {
    throw new ConfigError(`couldn't get policy config map ${namespace}/${name}: ${(err as Error).message}`);
  }
  const data = (cm as { data?: Record<string, string> }).data ?? {};
  if (!(POLICY_CONFIGMAP_KEY in data)) throw new ConfigError(`missing policy config map value at key "${POLICY_CONFIGMAP_KEY}"`);
  return decodeWrapped(data[POLICY_CONFIGMAP_KEY]);
}

function decodeWrapped(text: string): Policy {
  try {
    return decodePolicy(text);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`invalid policy: ${err.message}`);
    throw err;
  }
}
