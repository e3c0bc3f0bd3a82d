/**
 * HorizontalPodAutoscaler conversions to and from autoscaling/v2, the version kube 1.32 stores, as
 * kube converts each version through its internal (v2-shaped) type:
 * - v2beta2 has v2's fields;
 * - v2beta1 keeps the legacy metric shape (hpa-legacy-metrics.ts) and the behavior in an annotation;
 * - v1 keeps one CPU utilization target and puts the other metrics, the current metrics, the
 *   conditions and the behavior in annotations; without any metric it means 80% CPU.
 * Every conversion drops the round-trip annotations it does not write, so stored objects never
 * carry them. Inputs are never mutated.
 */
import type { KubeObject } from '../../kind';
import { arrAt, clone, isObj, objAt } from '../util';
import type { Obj } from '../util';
import {
  BEHAVIOR_ANNOTATION, CONDITIONS_ANNOTATION, METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, annotationsOf, decodeBehavior,
  dropRoundTripAnnotations, encodeBehavior, jsonArrayAnnotation, setAnnotation,
} from './hpa-annotations';
import {
  conditionFromLegacy, conditionToLegacy, metricSpecFromLegacy, metricSpecToLegacy, metricStatusFromLegacy, metricStatusToLegacy,
} from './hpa-legacy-metrics';

export type HpaVersion = 'v1' | 'v2' | 'v2beta1' | 'v2beta2';

/** autoscaling/v1's implicit target when an object names no metric */
export const DEFAULT_CPU_UTILIZATION = 80;

const cpuUtilization = (percent: unknown): Obj => ({
  type: 'Resource',
  resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: percent } },
});

/** a copy with apiVersion set, keeping key order (apiVersion, kind, metadata, spec, status) */
function withVersion(obj: KubeObject, apiVersion: string): KubeObject {
  const out = clone(obj);
  out.apiVersion = apiVersion;
  return out;
}

function isCpuUtilizationMetric(m: unknown): boolean {
  const r = objAt(m, 'resource');
  return isObj(m) && m.type === 'Resource' && r !== undefined && r.name === 'cpu' && objAt(r, 'target')?.averageUtilization != null;
}

// ---- v2beta2

function v2beta2ToV2(obj: KubeObject): KubeObject {
  const out = withVersion(obj, 'autoscaling/v2');
  dropRoundTripAnnotations(out);
  return out;
}

function v2ToV2beta2(obj: KubeObject): KubeObject {
  const out = withVersion(obj, 'autoscaling/v2beta2');
  dropRoundTripAnnotations(out);
  return out;
}

// ---- v2beta1

function v2beta1ToV2(obj: KubeObject): KubeObject {
  const out = withVersion(obj, 'autoscaling/v2');
  const spec = objAt(out, 'spec');
  if (spec && Array.isArray(spec.metrics)) spec.metrics = spec.metrics.map(metricSpecFromLegacy);
  const status = objAt(out, 'status');
  if (status && Array.isArray(status.currentMetrics)) status.currentMetrics = status.currentMetrics.map(metricStatusFromLegacy);
  const behavior = decodeBehavior(annotationsOf(obj)[BEHAVIOR_ANNOTATION]);
  if (behavior && spec) spec.behavior = behavior;
  dropRoundTripAnnotations(out);
  return out;
}

function v2ToV2beta1(obj: KubeObject): KubeObject {
  const out = withVersion(obj, 'autoscaling/v2beta1');
  dropRoundTripAnnotations(out);
  const spec = objAt(out, 'spec');
  if (spec) {
    if (Array.isArray(spec.metrics)) spec.metrics = spec.metrics.map(metricSpecToLegacy);
    if (isObj(spec.behavior)) setAnnotation(out, BEHAVIOR_ANNOTATION, encodeBehavior(spec.behavior));
    delete spec.behavior;
  }
  const status = objAt(out, 'status');
  if (status && Array.isArray(status.currentMetrics)) status.currentMetrics = status.currentMetrics.map(metricStatusToLegacy);
  return out;
}

// ---- v1

function v1ToV2(obj: KubeObject): KubeObject {
  const out = withVersion(obj, 'autoscaling/v2');
  const v1Spec = objAt(obj, 'spec') ?? {};
  const v1Status = objAt(obj, 'status') ?? {};
  const spec: Obj = {};
  if (v1Spec.scaleTargetRef !== undefined) spec.scaleTargetRef = clone(v1Spec.scaleTargetRef);
  if (v1Spec.minReplicas !== undefined) spec.minReplicas = v1Spec.minReplicas;
  if (v1Spec.maxReplicas !== undefined) spec.maxReplicas = v1Spec.maxReplicas;
  // kube puts the metrics of the annotation first and the CPU target after them
  const metrics: unknown[] = (jsonArrayAnnotation(obj, METRIC_SPECS_ANNOTATION) ?? []).map(metricSpecFromLegacy);
  if (v1Spec.targetCPUUtilizationPercentage != null) metrics.push(cpuUtilization(v1Spec.targetCPUUtilizationPercentage));
  spec.metrics = metrics.length > 0 ? metrics : [cpuUtilization(DEFAULT_CPU_UTILIZATION)];
  const behavior = decodeBehavior(annotationsOf(obj)[BEHAVIOR_ANNOTATION]);
  if (behavior) spec.behavior = behavior;

  const status: Obj = {};
  for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (v1Status[k] !== undefined) status[k] = clone(v1Status[k]);
  const current = jsonArrayAnnotation(obj, METRIC_STATUSES_ANNOTATION);
  if (current) status.currentMetrics = current.map(metricStatusFromLegacy);
  else if (v1Status.currentCPUUtilizationPercentage != null) {
    status.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: v1Status.currentCPUUtilizationPercentage } } }];
  }
  const conditions = jsonArrayAnnotation(obj, CONDITIONS_ANNOTATION);
  if (conditions) status.conditions = conditions.map(conditionFromLegacy);

  if ('spec' in obj || Object.keys(spec).length > 0) out.spec = spec;
  if ('status' in obj || Object.keys(status).length > 0) out.status = status;
  dropRoundTripAnnotations(out);
  return out;
}

function v2ToV1(obj: KubeObject): KubeObject {
  const out = withVersion(obj, 'autoscaling/v1');
  dropRoundTripAnnotations(out);
  const v2Spec = objAt(obj, 'spec') ?? {};
  const v2Status = objAt(obj, 'status') ?? {};
  const metrics = arrAt(v2Spec, 'metrics');

  const spec: Obj = {};
  if (v2Spec.scaleTargetRef !== undefined) spec.scaleTargetRef = clone(v2Spec.scaleTargetRef);
  if (v2Spec.minReplicas !== undefined) spec.minReplicas = v2Spec.minReplicas;
  if (v2Spec.maxReplicas !== undefined) spec.maxReplicas = v2Spec.maxReplicas;
  // the first CPU metric decides; only a utilization target fits v1's field
  const firstCpu = metrics.find((m) => isObj(m) && m.type === 'Resource' && objAt(m, 'resource')?.name === 'cpu');
  const cpuTarget = objAt(objAt(firstCpu, 'resource'), 'target')?.averageUtilization;
  if (cpuTarget != null) spec.targetCPUUtilizationPercentage = cpuTarget;

  const status: Obj = {};
  for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (v2Status[k] !== undefined) status[k] = clone(v2Status[k]);
  const current = arrAt(v2Status, 'currentMetrics');
  for (const m of current) {
    const r = objAt(m, 'resource');
    const utilization = objAt(r, 'current')?.averageUtilization;
    if (isObj(m) && m.type === 'Resource' && r?.name === 'cpu' && utilization != null) status.currentCPUUtilizationPercentage = utilization;
  }

  const others = metrics.filter((m) => !isCpuUtilizationMetric(m));
  if (others.length > 0) setAnnotation(out, METRIC_SPECS_ANNOTATION, JSON.stringify(others.map(metricSpecToLegacy)));
  if (current.length > 0) setAnnotation(out, METRIC_STATUSES_ANNOTATION, JSON.stringify(current.map(metricStatusToLegacy)));
  const conditions = arrAt(v2Status, 'conditions');
  if (conditions.length > 0) setAnnotation(out, CONDITIONS_ANNOTATION, JSON.stringify(conditions.map(conditionToLegacy)));
  if (isObj(v2Spec.behavior)) setAnnotation(out, BEHAVIOR_ANNOTATION, encodeBehavior(v2Spec.behavior));

  if ('spec' in obj) out.spec = spec;
  if ('status' in obj) out.status = status;
  return out;
}

/** the object in autoscaling/v2 (storage) form */
export function hpaToV2(version: HpaVersion, obj: KubeObject): KubeObject {
  switch (version) {
    case 'v1':
      return v1ToV2(obj);
    case 'v2beta1':
      return v2beta1ToV2(obj);
    case 'v2beta2':
      return v2beta2ToV2(obj);
    default: {
      const out = withVersion(obj, 'autoscaling/v2');
      dropRoundTripAnnotations(out);
      return out;
    }
  }
}

/** the stored (autoscaling/v2) object in `version` */
export function hpaFromV2(version: HpaVersion, obj: KubeObject): KubeObject {
  switch (version) {
    case 'v1':
      return v2ToV1(obj);
    case 'v2beta1':
      return v2ToV2beta1(obj);
    case 'v2beta2':
      return v2ToV2beta2(obj);
    default: {
      const out = withVersion(obj, 'autoscaling/v2');
      dropRoundTripAnnotations(out);
      return out;
    }
  }
}
