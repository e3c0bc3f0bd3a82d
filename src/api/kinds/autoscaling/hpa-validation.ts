/**
 * kube's HorizontalPodAutoscaler validation (pkg/apis/autoscaling/validation), run on the v2 form
 * whatever version was written, so field paths are v2's as kube reports them (kube validates its
 * internal type, which has v2's shape). The HPAScaleToZero gate is off: minReplicas must be at
 * least 1, unless the object already had 0.
 */
import type { StatusCause } from '../../errors';
import type { KubeObject } from '../../kind';
import { forbidden, invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1123Label, isQualifiedName, validatePathSegmentName } from '../../validation/names';
import { arrAt, isObj, num, objAt, str } from '../util';
import type { Obj } from '../util';
import { quantitySign } from './quantity';

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];

export function validateCrossVersionObjectReference(ref: unknown, field: string): StatusCause[] {
  const r = isObj(ref) ? ref : {};
  const causes: StatusCause[] = [];
  for (const key of ['kind', 'name']) {
    const v = str(r[key]);
    if (!v) causes.push(required(`${field}.${key}`, ''));
    else for (const msg of validatePathSegmentName(v, false)) causes.push(invalid(`${field}.${key}`, v, msg));
  }
  return causes;
}

function validateMetricIdentifier(id: unknown, field: string): StatusCause[] {
  const name = isObj(id) ? str(id.name) : '';
  if (!name) return [required(`${field}.name`, 'must specify a metric name')];
  return validatePathSegmentName(name, false).map((msg) => invalid(`${field}.name`, name, msg));
}

function validateMetricTarget(target: Obj, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = str(target.type);
  if (!type) causes.push(required(`${field}.type`, 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) {
    causes.push(invalid(`${field}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  }
  for (const key of ['value', 'averageValue']) {
    if (target[key] != null && quantitySign(target[key]) !== 1) causes.push(invalid(`${field}.${key}`, target[key], 'must be positive'));
  }
  const utilization = target.averageUtilization;
  if (utilization != null && (num(utilization) ?? 0) < 1) causes.push(invalid(`${field}.averageUtilization`, utilization, 'must be greater than 0'));
  return causes;
}

const targetOf = (src: Obj): Obj => objAt(src, 'target') ?? {};

function validateObjectSource(src: Obj, field: string): StatusCause[] {
  const t = targetOf(src);
  const causes = [
    ...validateCrossVersionObjectReference(src.describedObject, `${field}.describedObject`),
    ...validateMetricIdentifier(src.metric, `${field}.metric`),
    ...validateMetricTarget(t, `${field}.target`),
  ];
  if (t.value == null && t.averageValue == null) causes.push(required(`${field}.target.averageValue`, 'must set either a target value or averageValue'));
  return causes;
}

function validateExternalSource(src: Obj, field: string): StatusCause[] {
  const t = targetOf(src);
  const causes = [...validateMetricIdentifier(src.metric, `${field}.metric`), ...validateMetricTarget(t, `${field}.target`)];
  if (t.value == null && t.averageValue == null) causes.push(required(`${field}.target.averageValue`, 'must set either a target value for metric or a per-pod target'));
  if (t.value != null && t.averageValue != null) causes.push(forbidden(`${field}.target.value`, 'may not set both a target value for metric and a per-pod target'));
  return causes;
}

function validatePodsSource(src: Obj, field: string): StatusCause[] {
  const t = targetOf(src);
  const causes = [...validateMetricIdentifier(src.metric, `${field}.metric`), ...validateMetricTarget(t, `${field}.target`)];
  if (t.averageValue == null) causes.push(required(`${field}.target.averageValue`, 'must specify a positive target averageValue'));
  return causes;
}

function validateResourceTarget(t: Obj, field: string): StatusCause[] {
  const causes = validateMetricTarget(t, `${field}.target`);
  if (t.averageUtilization == null && t.averageValue == null) causes.push(required(`${field}.target.averageUtilization`, 'must set either a target raw value or a target utilization'));
  if (t.averageUtilization != null && t.averageValue != null) causes.push(forbidden(`${field}.target.averageValue`, 'may not set both a target raw value and a target utilization'));
  return causes;
}

function validateResourceSource(src: Obj, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!str(src.name)) causes.push(required(`${field}.name`, 'must specify a resource name'));
  return [...causes, ...validateResourceTarget(targetOf(src), field)];
}

/** kube's ValidateContainerResourceName: a standard container resource, or an extended one */
function validateContainerResourceName(name: string, field: string): StatusCause[] {
  const causes = isQualifiedName(name).map((msg) => invalid(field, name, msg));
  if (!name.includes('/')) {
    if (!['cpu', 'memory', 'ephemeral-storage'].includes(name) && !name.startsWith('hugepages-')) {
      causes.push(invalid(field, name, 'must be a standard resource for containers'));
    }
  } else if (!name.includes('kubernetes.io/')) {
    const extended = !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
    if (!extended) causes.push(invalid(field, name, "doesn't follow extended resource name standard"));
  }
  return causes;
}

function validateContainerResourceSource(src: Obj, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = str(src.name);
  if (!name) causes.push(required(`${field}.name`, 'must specify a resource name'));
  else causes.push(...validateContainerResourceName(name, `${field}.name`));
  const container = str(src.container);
  if (!container) causes.push(required(`${field}.container`, 'must specify a container'));
  else causes.push(...isDNS1123Label(container).map((msg) => invalid(`${field}.container`, container, msg)));
  return [...causes, ...validateResourceTarget(targetOf(src), field)];
}

const SOURCES: Array<[string, (src: Obj, field: string) => StatusCause[]]> = [
  ['object', validateObjectSource],
  ['external', validateExternalSource],
  ['pods', validatePodsSource],
  ['resource', validateResourceSource],
  ['containerResource', validateContainerResourceSource],
];
const FIELD_OF_TYPE: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };

/** kube's validateMetricSpec: the source named by type, and no other */
function validateMetricSpec(spec: Obj, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = str(spec.type);
  if (!type) causes.push(required(`${field}.type`, 'must specify a metric source type'));
  if (!SOURCE_TYPES.includes(type)) causes.push(notSupported(`${field}.type`, type, SOURCE_TYPES));
  const present: string[] = [];
  for (const [key, check] of SOURCES) {
    const src = spec[key];
    if (!isObj(src)) continue;
    present.push(key);
    // kube validates only the first source it finds
    if (present.length === 1) causes.push(...check(src, `${field}.${key}`));
  }
  const expected = FIELD_OF_TYPE[type];
  if (expected) {
    if (!isObj(spec[expected])) causes.push(required(`${field}.${expected}`, 'must populate information for the given metric source'));
  } else {
    causes.push(notSupported(`${field}.type`, type, SOURCE_TYPES));
  }
  if (present.length !== 1) {
    for (const key of present.filter((k) => k !== expected).sort()) causes.push(forbidden(`${field}.${key}`, 'must populate the given metric source only'));
  }
  return causes;
}

function validateMetrics(metrics: unknown[], field: string, minReplicas: unknown): StatusCause[] {
  const causes: StatusCause[] = [];
  let objectOrExternal = false;
  metrics.forEach((m, i) => {
    const spec = isObj(m) ? m : {};
    causes.push(...validateMetricSpec(spec, `${field}[${i}]`));
    if (spec.type === 'Object' || spec.type === 'External') objectOrExternal = true;
  });
  if (minReplicas === 0 && !objectOrExternal) {
    causes.push(forbidden(field, 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  return causes;
}

function validateScalingRules(rules: unknown, field: string): StatusCause[] {
  if (!isObj(rules)) return [];
  const causes: StatusCause[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === 'number') {
    if (window < 0) causes.push(invalid(`${field}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
    if (window > MAX_STABILIZATION_WINDOW_SECONDS) causes.push(invalid(`${field}.stabilizationWindowSeconds`, window, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  }
  if (rules.selectPolicy != null && !SELECT_POLICIES.includes(str(rules.selectPolicy))) {
    causes.push(notSupported(`${field}.selectPolicy`, rules.selectPolicy, SELECT_POLICIES));
  }
  const policies = arrAt(rules, 'policies');
  if (policies.length === 0) causes.push(required(`${field}.policies`, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const policy = isObj(p) ? p : {};
    const at = `${field}.policies[${i}]`;
    if (!POLICY_TYPES.includes(str(policy.type))) causes.push(notSupported(`${at}.type`, str(policy.type), POLICY_TYPES));
    const value = num(policy.value) ?? 0;
    if (value <= 0) causes.push(invalid(`${at}.value`, value, 'must be greater than zero'));
    const period = num(policy.periodSeconds) ?? 0;
    if (period <= 0) causes.push(invalid(`${at}.periodSeconds`, period, 'must be greater than zero'));
    if (period > MAX_PERIOD_SECONDS) causes.push(invalid(`${at}.periodSeconds`, period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return causes;
}

/** kube's validateHorizontalPodAutoscalerSpec on a v2 object; `old` lowers the minReplicas bound to 0 when it had 0 */
export function validateHpaV2(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const lowerBound = old && objAt(old, 'spec')?.minReplicas === 0 ? 0 : 1;
  const min = spec.minReplicas;
  if (typeof min === 'number' && min < lowerBound) causes.push(invalid('spec.minReplicas', min, `must be greater than or equal to ${lowerBound}`));
  const max = num(spec.maxReplicas) ?? 0;
  if (max < 1) causes.push(invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min) causes.push(invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  causes.push(...validateCrossVersionObjectReference(spec.scaleTargetRef, 'spec.scaleTargetRef'));
  causes.push(...validateMetrics(arrAt(spec, 'metrics'), 'spec.metrics', min));
  const behavior = objAt(spec, 'behavior');
  if (behavior) {
    causes.push(...validateScalingRules(behavior.scaleUp, 'spec.behavior.scaleUp'));
    causes.push(...validateScalingRules(behavior.scaleDown, 'spec.behavior.scaleDown'));
  }
  return causes;
}

/** kube's ValidateHorizontalPodAutoscalerStatusUpdate (every version has these two fields) */
export function validateHpaStatus(obj: KubeObject): StatusCause[] {
  const status = objAt(obj, 'status') ?? {};
  const causes: StatusCause[] = [];
  for (const key of ['currentReplicas', 'desiredReplicas']) {
    const v = num(status[key]) ?? 0;
    if (v < 0) causes.push(invalid(`status.${key}`, v, 'must be greater than or equal to 0'));
  }
  return causes;
}
