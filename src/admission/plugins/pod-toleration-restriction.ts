/**
 * PodTolerationRestriction (kube's plugin/pkg/admission/podtolerationrestriction). A new pod gets
 * its namespace's default tolerations (annotation scheduler.alpha.kubernetes.io/defaultTolerations,
 * else the configuration's `default`) merged into its own, refused when the two disagree about a
 * key; pods that are not BestEffort also tolerate memory pressure. The pod's tolerations must then
 * fit the namespace's whitelist (annotation scheduler.alpha.kubernetes.io/tolerationsWhitelist,
 * else the configuration's `whitelist`). Configuration: kind Configuration of
 * podtolerationrestriction.admission.k8s.io/v1alpha1 with `default` and `whitelist` lists.
 */
import type { KubeObject } from '../../api/kind';
import type { Admission, AdmissionAttributes } from '../types';
import type { AdmissionPluginContext } from '../context';
import { admissionForbidden, isResource } from '../forbidden';
import { ApiError } from '../../api/errors';
import type { PodSpec, Toleration } from './pod';
import { allContainers, podSpec } from './pod';
import { annotationsOf, isObj, pluginConfigError, requestNamespace, typedConfiguration } from './plugin-config';

const PLUGIN = 'PodTolerationRestriction';
export const DEFAULT_TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/defaultTolerations';
export const TOLERATIONS_WHITELIST_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerationsWhitelist';
const MEMORY_PRESSURE: Toleration = { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' };

function sameToleration(a: Toleration, b: Toleration): boolean {
  return (a.key ?? '') === (b.key ?? '') && (a.operator || 'Equal') === (b.operator || 'Equal') && (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '') && a.tolerationSeconds === b.tolerationSeconds;
}

/** kube's tolerations.IsConflict: both lists tolerate a key, differently */
function conflict(first: Toleration[], second: Toleration[]): boolean {
  return first.some((a) => second.some((b) => (a.key ?? '') === (b.key ?? '') && !sameToleration(a, b)));
}

function merge(first: Toleration[], second: Toleration[]): Toleration[] {
  const out = [...first];
  for (const t of second) if (!out.some((o) => sameToleration(o, t))) out.push(t);
  return out;
}

/** `allowed` covers `t`: same key, and an effect, value and time it allows */
function covers(allowed: Toleration, t: Toleration): boolean {
  if ((allowed.key ?? '') !== (t.key ?? '')) return false;
  if (allowed.effect && allowed.effect !== t.effect) return false;
  if (allowed.operator !== 'Exists' && ((t.operator || 'Equal') !== 'Equal' || (allowed.value ?? '') !== (t.value ?? ''))) return false;
  if (allowed.tolerationSeconds !== undefined && (t.tolerationSeconds === undefined || t.tolerationSeconds > allowed.tolerationSeconds)) return false;
  return true;
}

function tolerationList(v: unknown): Toleration[] | undefined {
  if (!Array.isArray(v) || !v.every(isObj)) return undefined;
  return v as Toleration[];
}

/** the annotation's tolerations; undefined when it is absent (an empty value overrides the cluster's list with none) */
function fromAnnotation(ns: KubeObject, key: string): Toleration[] | undefined {
  const text = annotationsOf(ns)[key];
  if (text === undefined) return undefined;
  if (text === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ApiError(500, 'InternalError', `Internal error occurred: namespace ${ns.metadata?.name} annotation ${key}: ${(err as Error).message}`);
  }
  const list = tolerationList(parsed);
  if (!list) throw new ApiError(500, 'InternalError', `Internal error occurred: namespace ${ns.metadata?.name} annotation ${key}: expected a list of tolerations`);
  return list;
}

function bestEffort(spec: PodSpec): boolean {
  return allContainers(spec).every((c) => Object.keys(c.resources?.requests ?? {}).length === 0 && Object.keys(c.resources?.limits ?? {}).length === 0);
}

function appliesTo(a: AdmissionAttributes): boolean {
  return (a.operation === 'CREATE' || a.operation === 'UPDATE') && isResource(a, '', 'pods') && a.object !== undefined;
}

export function podTolerationRestriction(ctx: AdmissionPluginContext): Admission {
  const config = typedConfiguration(ctx, PLUGIN, 'Configuration', ['podtolerationrestriction.admission.k8s.io/v1alpha1']) ?? {};
  const clusterDefault = tolerationList(config.default ?? []);
  const clusterWhitelist = tolerationList(config.whitelist ?? []);
  if (!clusterDefault) throw pluginConfigError(ctx, PLUGIN, 'default must be a list of tolerations');
  if (!clusterWhitelist) throw pluginConfigError(ctx, PLUGIN, 'whitelist must be a list of tolerations');

  return {
    async admit(a) {
      if (!appliesTo(a)) return;
      const spec = podSpec(a.object!);
      let tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
      if (a.operation === 'CREATE') {
        const defaults = fromAnnotation(await requestNamespace(ctx, a.namespace), DEFAULT_TOLERATIONS_ANNOTATION) ?? clusterDefault;
        if (conflict(defaults, tolerations)) throw admissionForbidden(a, 'namespace tolerations and pod tolerations conflict');
        tolerations = merge(defaults, tolerations);
      }
      // kube lets every pod but BestEffort ones stay on nodes under memory pressure
      if (!bestEffort(spec)) tolerations = merge(tolerations, [MEMORY_PRESSURE]);
      if (tolerations.length) spec.tolerations = tolerations;
    },
    async validate(a) {
      if (!appliesTo(a)) return;
      const own = podSpec(a.object!).tolerations ?? [];
      if (own.length === 0) return;
      const whitelist = fromAnnotation(await requestNamespace(ctx, a.namespace), TOLERATIONS_WHITELIST_ANNOTATION) ?? clusterWhitelist;
      if (whitelist.length === 0) return;
      if (!own.every((t) => whitelist.some((w) => covers(w, t)))) {
        throw admissionForbidden(a, 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
      }
    },
  };
}
