/**
 * HorizontalPodAutoscaler in autoscaling/v1, v2, v2beta2 and v2beta1 (autoscaling/v1 Scale lives in
 * autoscaling-authorization.ts). v2 and v2beta2 share one shape (MetricTarget, behavior); v2beta1
 * keeps the older target fields (targetAverageValue, targetAverageUtilization, targetValue).
 */
import type { Definitions, SchemaNode } from '../types';
import { addKind, atomic, int32, int64, meta, mergeList, obj, quantity, ref, str, time } from '../dsl';

const V1 = 'io.k8s.api.autoscaling.v1.';
const V2 = 'io.k8s.api.autoscaling.v2.';
const V2BETA2 = 'io.k8s.api.autoscaling.v2beta2.';
const V2BETA1 = 'io.k8s.api.autoscaling.v2beta1.';

const selector = (desc: string): SchemaNode => ref(meta('LabelSelector'), desc);

function crossVersionObjectReference(atomicStruct: boolean): SchemaNode {
  return obj(
    'Refers to an object by kind, name and apiVersion.',
    {
      apiVersion: str('API version of the object.'),
      kind: str('Kind of the object, e.g. Deployment.'),
      name: str('Name of the object.'),
    },
    { required: ['kind', 'name'], atomic: atomicStruct },
  );
}

function condition(): SchemaNode {
  return obj(
    'A condition of an autoscaler: AbleToScale, ScalingActive or ScalingLimited.',
    {
      lastTransitionTime: time('When the condition last changed status.'),
      message: str('Human-readable details of the last transition.'),
      reason: str('Machine-readable reason for the last transition.'),
      status: str('True, False or Unknown.'),
      type: str('Type of the condition.'),
    },
    { required: ['type', 'status'] },
  );
}

/** the v2 / v2beta2 shape: metric sources with a MetricIdentifier and a MetricTarget, and behavior */
function targetShape(p: string, opts: { ga: boolean }): Definitions {
  const r = (name: string) => p + name;
  const hpaStatus = obj(
    'Observed state of the autoscaler.',
    {
      conditions: opts.ga
        ? mergeList(ref(r('HorizontalPodAutoscalerCondition')), 'type', 'Conditions needed to scale, and whether they hold.')
        : atomic(ref(r('HorizontalPodAutoscalerCondition')), 'Conditions needed to scale, and whether they hold.'),
      currentMetrics: atomic(ref(r('MetricStatus')), 'Last read values of the metrics.'),
      currentReplicas: int32('Replicas of the target, as last seen.'),
      desiredReplicas: int32('Replicas the autoscaler last asked for.'),
      lastScaleTime: time('When the autoscaler last changed the replica count.'),
      observedGeneration: int64('Generation last seen by the autoscaler.'),
    },
    // v2beta2's currentReplicas has no omitempty, so kube's document requires it; v2's has
    { required: opts.ga ? ['desiredReplicas'] : ['currentReplicas', 'desiredReplicas'] },
  );
  return {
    [r('HorizontalPodAutoscalerSpec')]: obj(
      'Desired behaviour of the autoscaler.',
      {
        behavior: ref(r('HorizontalPodAutoscalerBehavior'), 'Scaling rules up and down; defaults when absent.'),
        maxReplicas: int32('Upper limit of replicas; at least minReplicas.'),
        metrics: atomic(ref(r('MetricSpec')), 'Metrics to scale on; the highest recommendation wins. Defaults to 80% CPU.'),
        minReplicas: int32('Lower limit of replicas. Defaults to 1.'),
        scaleTargetRef: ref(r('CrossVersionObjectReference'), 'The scalable object (with a scale subresource) to scale.'),
      },
      { required: ['scaleTargetRef', 'maxReplicas'] },
    ),
    [r('CrossVersionObjectReference')]: crossVersionObjectReference(false),
    [r('HorizontalPodAutoscalerBehavior')]: obj('Scaling rules for each direction.', {
      scaleDown: ref(r('HPAScalingRules'), 'Rules when scaling down.'),
      scaleUp: ref(r('HPAScalingRules'), 'Rules when scaling up.'),
    }),
    [r('HPAScalingRules')]: obj('How fast one direction may scale.', {
      policies: atomic(ref(r('HPAScalingPolicy')), 'Policies that bound each change.'),
      selectPolicy: str('Which policy wins: Max (default), Min or Disabled.'),
      stabilizationWindowSeconds: int32('Seconds of past recommendations considered, 0-3600.'),
    }),
    [r('HPAScalingPolicy')]: obj(
      'One bound on change over a period.',
      {
        periodSeconds: int32('Length of the period in seconds, 1-1800.'),
        type: str('Pods or Percent.'),
        value: int32('How many pods, or what percent, may change in the period.'),
      },
      { required: ['type', 'value', 'periodSeconds'] },
    ),
    [r('MetricSpec')]: obj(
      'One metric to scale on; exactly the source named by type is set.',
      {
        containerResource: ref(r('ContainerResourceMetricSource'), 'A resource of one container of each pod.'),
        external: ref(r('ExternalMetricSource'), 'A metric not tied to a Kubernetes object.'),
        object: ref(r('ObjectMetricSource'), 'A metric of one Kubernetes object.'),
        pods: ref(r('PodsMetricSource'), 'A metric averaged over the pods.'),
        resource: ref(r('ResourceMetricSource'), 'A resource (cpu, memory) of the pods.'),
        type: str('Object, Pods, Resource, ContainerResource or External.'),
      },
      { required: ['type'] },
    ),
    [r('ObjectMetricSource')]: obj(
      'A metric describing one object.',
      {
        describedObject: ref(r('CrossVersionObjectReference'), 'The object described.'),
        metric: ref(r('MetricIdentifier'), 'The metric.'),
        target: ref(r('MetricTarget'), 'The target value.'),
      },
      { required: ['describedObject', 'target', 'metric'] },
    ),
    [r('PodsMetricSource')]: obj(
      'A metric averaged over the pods.',
      { metric: ref(r('MetricIdentifier'), 'The metric.'), target: ref(r('MetricTarget'), 'The target value.') },
      { required: ['metric', 'target'] },
    ),
    [r('ResourceMetricSource')]: obj(
      'A resource of the pods, as requests define it.',
      { name: str('Resource name.'), target: ref(r('MetricTarget'), 'The target value.') },
      { required: ['name', 'target'] },
    ),
    [r('ContainerResourceMetricSource')]: obj(
      'A resource of one container in each pod.',
      { container: str('Container name.'), name: str('Resource name.'), target: ref(r('MetricTarget'), 'The target value.') },
      { required: ['name', 'target', 'container'] },
    ),
    [r('ExternalMetricSource')]: obj(
      'A metric from outside the cluster.',
      { metric: ref(r('MetricIdentifier'), 'The metric.'), target: ref(r('MetricTarget'), 'The target value.') },
      { required: ['metric', 'target'] },
    ),
    [r('MetricIdentifier')]: obj(
      'Names a metric, optionally narrowed by labels.',
      { name: str('Metric name.'), selector: selector('Narrows the metric by its labels.') },
      { required: ['name'] },
    ),
    [r('MetricTarget')]: obj(
      'The target of a metric: a value, an average value or an average utilization.',
      {
        averageUtilization: int32('Target percent of the requested resource, averaged over pods.'),
        averageValue: quantity('Target value averaged over pods.'),
        type: str('Utilization, Value or AverageValue.'),
        value: quantity('Target value.'),
      },
      { required: ['type'] },
    ),
    [r('HorizontalPodAutoscalerStatus')]: hpaStatus,
    [r('HorizontalPodAutoscalerCondition')]: condition(),
    [r('MetricStatus')]: obj(
      'The last read value of one metric.',
      {
        containerResource: ref(r('ContainerResourceMetricStatus'), 'A container resource.'),
        external: ref(r('ExternalMetricStatus'), 'An external metric.'),
        object: ref(r('ObjectMetricStatus'), 'An object metric.'),
        pods: ref(r('PodsMetricStatus'), 'A pods metric.'),
        resource: ref(r('ResourceMetricStatus'), 'A resource metric.'),
        type: str('Object, Pods, Resource, ContainerResource or External.'),
      },
      { required: ['type'] },
    ),
    [r('ObjectMetricStatus')]: obj(
      'The last value of an object metric.',
      {
        current: ref(r('MetricValueStatus'), 'The value.'),
        describedObject: ref(r('CrossVersionObjectReference'), 'The object described.'),
        metric: ref(r('MetricIdentifier'), 'The metric.'),
      },
      { required: ['metric', 'current', 'describedObject'] },
    ),
    [r('PodsMetricStatus')]: obj(
      'The last value of a pods metric.',
      { current: ref(r('MetricValueStatus'), 'The value.'), metric: ref(r('MetricIdentifier'), 'The metric.') },
      { required: ['metric', 'current'] },
    ),
    [r('ResourceMetricStatus')]: obj(
      'The last value of a resource metric.',
      { current: ref(r('MetricValueStatus'), 'The value.'), name: str('Resource name.') },
      { required: ['name', 'current'] },
    ),
    [r('ContainerResourceMetricStatus')]: obj(
      'The last value of a container resource metric.',
      { container: str('Container name.'), current: ref(r('MetricValueStatus'), 'The value.'), name: str('Resource name.') },
      { required: ['name', 'current', 'container'] },
    ),
    [r('ExternalMetricStatus')]: obj(
      'The last value of an external metric.',
      { current: ref(r('MetricValueStatus'), 'The value.'), metric: ref(r('MetricIdentifier'), 'The metric.') },
      { required: ['metric', 'current'] },
    ),
    [r('MetricValueStatus')]: obj('A metric value.', {
      averageUtilization: int32('Percent of the requested resource, averaged over pods.'),
      averageValue: quantity('Value averaged over pods.'),
      value: quantity('Value.'),
    }),
  };
}

/** the v2beta1 shape: target fields on each source */
function v2beta1Shape(): Definitions {
  const r = (name: string) => V2BETA1 + name;
  const resourceSource = (container: boolean): SchemaNode =>
    obj(
      container ? 'A resource of one container in each pod.' : 'A resource of the pods, as requests define it.',
      {
        ...(container ? { container: str('Container name.') } : {}),
        name: str('Resource name.'),
        targetAverageUtilization: int32('Target percent of the requested resource, averaged over pods.'),
        targetAverageValue: quantity('Target value averaged over pods.'),
      },
      { required: container ? ['name', 'container'] : ['name'] },
    );
  const resourceStatus = (container: boolean): SchemaNode =>
    obj(
      container ? 'The last value of a container resource metric.' : 'The last value of a resource metric.',
      {
        ...(container ? { container: str('Container name.') } : {}),
        currentAverageUtilization: int32('Percent of the requested resource, averaged over pods.'),
        currentAverageValue: quantity('Value averaged over pods.'),
        name: str('Resource name.'),
      },
      { required: container ? ['name', 'currentAverageValue', 'container'] : ['name', 'currentAverageValue'] },
    );
  return {
    [r('HorizontalPodAutoscalerSpec')]: obj(
      'Desired behaviour of the autoscaler.',
      {
        maxReplicas: int32('Upper limit of replicas; at least minReplicas.'),
        metrics: atomic(ref(r('MetricSpec')), 'Metrics to scale on; the highest recommendation wins.'),
        minReplicas: int32('Lower limit of replicas. Defaults to 1.'),
        scaleTargetRef: ref(r('CrossVersionObjectReference'), 'The scalable object to scale.'),
      },
      { required: ['scaleTargetRef', 'maxReplicas'] },
    ),
    [r('CrossVersionObjectReference')]: crossVersionObjectReference(false),
    [r('MetricSpec')]: obj(
      'One metric to scale on; exactly the source named by type is set.',
      {
        containerResource: ref(r('ContainerResourceMetricSource'), 'A resource of one container of each pod.'),
        external: ref(r('ExternalMetricSource'), 'A metric not tied to a Kubernetes object.'),
        object: ref(r('ObjectMetricSource'), 'A metric of one Kubernetes object.'),
        pods: ref(r('PodsMetricSource'), 'A metric averaged over the pods.'),
        resource: ref(r('ResourceMetricSource'), 'A resource (cpu, memory) of the pods.'),
        type: str('Object, Pods, Resource, ContainerResource or External.'),
      },
      { required: ['type'] },
    ),
    [r('ObjectMetricSource')]: obj(
      'A metric describing one object.',
      {
        averageValue: quantity('Target value averaged over pods.'),
        metricName: str('Metric name.'),
        selector: selector('Narrows the metric by its labels.'),
        target: ref(r('CrossVersionObjectReference'), 'The object described.'),
        targetValue: quantity('Target value.'),
      },
      { required: ['target', 'metricName', 'targetValue'] },
    ),
    [r('PodsMetricSource')]: obj(
      'A metric averaged over the pods.',
      {
        metricName: str('Metric name.'),
        selector: selector('Narrows the metric by its labels.'),
        targetAverageValue: quantity('Target value averaged over pods.'),
      },
      { required: ['metricName', 'targetAverageValue'] },
    ),
    [r('ResourceMetricSource')]: resourceSource(false),
    [r('ContainerResourceMetricSource')]: resourceSource(true),
    [r('ExternalMetricSource')]: obj(
      'A metric from outside the cluster.',
      {
        metricName: str('Metric name.'),
        metricSelector: selector('Narrows the metric by its labels.'),
        targetAverageValue: quantity('Target value averaged over pods.'),
        targetValue: quantity('Target value.'),
      },
      { required: ['metricName'] },
    ),
    [r('HorizontalPodAutoscalerStatus')]: obj(
      'Observed state of the autoscaler.',
      {
        conditions: atomic(ref(r('HorizontalPodAutoscalerCondition')), 'Conditions needed to scale, and whether they hold.'),
        currentMetrics: atomic(ref(r('MetricStatus')), 'Last read values of the metrics.'),
        currentReplicas: int32('Replicas of the target, as last seen.'),
        desiredReplicas: int32('Replicas the autoscaler last asked for.'),
        lastScaleTime: time('When the autoscaler last changed the replica count.'),
        observedGeneration: int64('Generation last seen by the autoscaler.'),
      },
      { required: ['currentReplicas', 'desiredReplicas'] },
    ),
    [r('HorizontalPodAutoscalerCondition')]: condition(),
    [r('MetricStatus')]: obj(
      'The last read value of one metric.',
      {
        containerResource: ref(r('ContainerResourceMetricStatus'), 'A container resource.'),
        external: ref(r('ExternalMetricStatus'), 'An external metric.'),
        object: ref(r('ObjectMetricStatus'), 'An object metric.'),
        pods: ref(r('PodsMetricStatus'), 'A pods metric.'),
        resource: ref(r('ResourceMetricStatus'), 'A resource metric.'),
        type: str('Object, Pods, Resource, ContainerResource or External.'),
      },
      { required: ['type'] },
    ),
    [r('ObjectMetricStatus')]: obj(
      'The last value of an object metric.',
      {
        averageValue: quantity('Value averaged over pods.'),
        currentValue: quantity('Value.'),
        metricName: str('Metric name.'),
        selector: selector('Narrows the metric by its labels.'),
        target: ref(r('CrossVersionObjectReference'), 'The object described.'),
      },
      { required: ['target', 'metricName', 'currentValue'] },
    ),
    [r('PodsMetricStatus')]: obj(
      'The last value of a pods metric.',
      {
        currentAverageValue: quantity('Value averaged over pods.'),
        metricName: str('Metric name.'),
        selector: selector('Narrows the metric by its labels.'),
      },
      { required: ['metricName', 'currentAverageValue'] },
    ),
    [r('ResourceMetricStatus')]: resourceStatus(false),
    [r('ContainerResourceMetricStatus')]: resourceStatus(true),
    [r('ExternalMetricStatus')]: obj(
      'The last value of an external metric.',
      {
        currentAverageValue: quantity('Value averaged over pods.'),
        currentValue: quantity('Value.'),
        metricName: str('Metric name.'),
        metricSelector: selector('Narrows the metric by its labels.'),
      },
      { required: ['metricName', 'currentValue'] },
    ),
  };
}

export const autoscalingHpaDefinitions: Definitions = {
  [`${V1}HorizontalPodAutoscalerSpec`]: obj(
    'Desired behaviour of the autoscaler.',
    {
      maxReplicas: int32('Upper limit of replicas; at least minReplicas.'),
      minReplicas: int32('Lower limit of replicas. Defaults to 1.'),
      scaleTargetRef: ref(`${V1}CrossVersionObjectReference`, 'The scalable object to scale.'),
      targetCPUUtilizationPercentage: int32('Target average CPU, in percent of requests. Defaults to 80.'),
    },
    { required: ['scaleTargetRef', 'maxReplicas'] },
  ),
  [`${V1}CrossVersionObjectReference`]: crossVersionObjectReference(true),
  [`${V1}HorizontalPodAutoscalerStatus`]: obj(
    'Observed state of the autoscaler.',
    {
      currentCPUUtilizationPercentage: int32('Average CPU in percent of requests, as last read.'),
      currentReplicas: int32('Replicas of the target, as last seen.'),
      desiredReplicas: int32('Replicas the autoscaler last asked for.'),
      lastScaleTime: time('When the autoscaler last changed the replica count.'),
      observedGeneration: int64('Generation last seen by the autoscaler.'),
    },
    { required: ['currentReplicas', 'desiredReplicas'] },
  ),
  ...targetShape(V2, { ga: true }),
  ...targetShape(V2BETA2, { ga: false }),
  ...v2beta1Shape(),
};

for (const [prefix, version] of [[V1, 'v1'], [V2, 'v2'], [V2BETA2, 'v2beta2'], [V2BETA1, 'v2beta1']]) {
  addKind(
    autoscalingHpaDefinitions,
    prefix,
    { group: 'autoscaling', version, kind: 'HorizontalPodAutoscaler' },
    'Scales a scalable object between limits, following metrics.',
    {
      spec: ref(`${prefix}HorizontalPodAutoscalerSpec`, 'Desired behaviour.'),
      status: ref(`${prefix}HorizontalPodAutoscalerStatus`, 'Observed state. Read-only.'),
    },
  );
}
