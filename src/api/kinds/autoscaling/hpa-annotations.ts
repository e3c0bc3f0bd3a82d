/**
 * The annotations in which kube keeps what autoscaling/v1 and v2beta1 cannot express
 * (pkg/apis/autoscaling/annotations.go): the v1 metrics beyond CPU, the current metrics, the
 * conditions, and (v1 and v2beta1 since kube 1.18) the scaling behavior. Behavior is stored as
 * kube stores it: its internal Go type marshalled without JSON tags, so with Go field names
 * (`{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[...]}}`).
 */
import type { KubeObject } from '../../kind';
import { isObj } from '../util';
import type { Obj } from '../util';

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';

const ROUND_TRIP = [METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION];

/** the object's annotations, or an empty map */
export function annotationsOf(obj: KubeObject): Record<string, string> {
  const a = obj.metadata?.annotations;
  return isObj(a) ? (a as Record<string, string>) : {};
}

/**
 * kube's DropRoundTripHorizontalPodAutoscalerAnnotations: removes the four annotations (in place),
 * and the annotations map itself when nothing else is left, as Go's omitempty drops an empty map.
 */
export function dropRoundTripAnnotations(obj: KubeObject): void {
  const meta = obj.metadata;
  if (!meta || !isObj(meta.annotations)) return;
  for (const key of ROUND_TRIP) delete meta.annotations[key];
  if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
}

/**
 * For autoscaling/v1 updates of the main resource: the status annotations (current metrics,
 * conditions) are taken from the stored object, as the registry takes status itself, so an update
 * whose body lacks them (`kubectl replace` of a manifest) keeps the status kube would keep.
 */
export function keepStatusAnnotations(obj: KubeObject, old: KubeObject): void {
  const before = annotationsOf(old);
  for (const key of [METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION]) {
    if (before[key] !== undefined) setAnnotation(obj, key, before[key]);
    else if (isObj(obj.metadata?.annotations)) {
      delete obj.metadata.annotations[key];
      if (Object.keys(obj.metadata.annotations).length === 0) delete obj.metadata.annotations;
    }
  }
}

/** set one annotation, creating the map */
export function setAnnotation(obj: KubeObject, key: string, value: string): void {
  const meta = (obj.metadata ??= {});
  meta.annotations = { ...(isObj(meta.annotations) ? meta.annotations : {}), [key]: value };
}

/** a JSON array read from an annotation; undefined when absent or malformed (kube fails the conversion; we drop it) */
export function jsonArrayAnnotation(obj: KubeObject, key: string): unknown[] | undefined {
  const text = annotationsOf(obj)[key];
  if (typeof text !== 'string') return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : v === null ? [] : undefined;
  } catch {
    return undefined;
  }
}

// ---- behavior in kube's internal (Go field name) form

const RULE_FIELDS: Array<[string, string]> = [
  ['stabilizationWindowSeconds', 'StabilizationWindowSeconds'],
  ['selectPolicy', 'SelectPolicy'],
  ['policies', 'Policies'],
];
const POLICY_FIELDS: Array<[string, string]> = [
  ['type', 'Type'],
  ['value', 'Value'],
  ['periodSeconds', 'PeriodSeconds'],
];

function rulesToInternal(rules: unknown): unknown {
  if (!isObj(rules)) return null;
  const out: Obj = {};
  for (const [json, go] of RULE_FIELDS) {
    const v = rules[json];
    if (json === 'policies') {
      out[go] = Array.isArray(v) ? v.map((p) => policyToInternal(p)) : null;
    } else {
      out[go] = v ?? null;
    }
  }
  return out;
}

function policyToInternal(p: unknown): Obj {
  const src = isObj(p) ? p : {};
  const out: Obj = {};
  // value fields: Go writes their zero values
  for (const [json, go] of POLICY_FIELDS) out[go] = src[json] ?? (json === 'type' ? '' : 0);
  return out;
}

/** spec.behavior as the annotation value */
export function encodeBehavior(behavior: Obj): string {
  return JSON.stringify({ ScaleUp: rulesToInternal(behavior.scaleUp), ScaleDown: rulesToInternal(behavior.scaleDown) });
}

/** Go's encoding/json matches field names case-insensitively */
function field(o: Obj, name: string): unknown {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  const key = Object.keys(o).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : o[key];
}

function rulesFromInternal(v: unknown): Obj | undefined {
  if (!isObj(v)) return undefined;
  const out: Obj = {};
  const window = field(v, 'StabilizationWindowSeconds');
  if (typeof window === 'number') out.stabilizationWindowSeconds = window;
  const select = field(v, 'SelectPolicy');
  if (typeof select === 'string') out.selectPolicy = select;
  const policies = field(v, 'Policies');
  if (Array.isArray(policies)) {
    out.policies = policies.filter(isObj).map((p) => {
      const policy: Obj = {};
      for (const [json, go] of POLICY_FIELDS) {
        const x = field(p, go);
        policy[json] = x ?? (json === 'type' ? '' : 0);
      }
      return policy;
    });
  }
  return out;
}

/**
 * the behavior in the annotation, or undefined when absent, malformed or empty (kube moves only
 * well-formed, non-empty data from the annotation to the field)
 */
export function decodeBehavior(text: unknown): Obj | undefined {
  if (typeof text !== 'string') return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(v)) return undefined;
  const scaleUp = rulesFromInternal(field(v, 'ScaleUp'));
  const scaleDown = rulesFromInternal(field(v, 'ScaleDown'));
  if (!scaleUp && !scaleDown) return undefined;
  return { ...(scaleUp ? { scaleUp } : {}), ...(scaleDown ? { scaleDown } : {}) };
}
