/** round-trip fixtures: HorizontalPodAutoscaler in autoscaling/v2, v2beta2, v2beta1 and v1 */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';


const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const condition = { type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'ReadyForNewScale', message: 'recommended size matches current size' };

const targetShapeHpa = (version: 'v2' | 'v2beta2') => ({
  apiVersion: `autoscaling/${version}`,
  kind: 'HorizontalPodAutoscaler',
  metadata: fixtureMeta('web', 'default'),
  spec: {
    scaleTargetRef: ref,
    minReplicas: 0,
    maxReplicas: 10,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      { type: 'ContainerResource', containerResource: { name: 'memory', container: 'app', target: { type: 'AverageValue', averageValue: '512Mi' } } },
      { type: 'Pods', pods: { metric: { name: 'rps', selector: { matchLabels: { verb: 'GET' } } }, target: { type: 'AverageValue', averageValue: '10' } } },
      { type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' }, metric: { name: 'hits' }, target: { type: 'Value', value: '2k' } } },
      { type: 'External', external: { metric: { name: 'queue_depth' }, target: { type: 'AverageValue', averageValue: '30' } } },
    ],
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { selectPolicy: 'Disabled', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    },
  },
  status: {
    observedGeneration: 3,
    lastScaleTime: '2024-05-01T10:05:00Z',
    currentReplicas: 2,
    desiredReplicas: 4,
    currentMetrics: [
      { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 40 } } },
      { type: 'External', external: { metric: { name: 'queue_depth' }, current: { value: '0', averageValue: '25' } } },
    ],
    conditions: [condition],
  },
});

export const autoscalingFixtures: Fixtures = {
  'autoscaling/v2/HorizontalPodAutoscaler': targetShapeHpa('v2'),
  'autoscaling/v2beta2/HorizontalPodAutoscaler': targetShapeHpa('v2beta2'),
  'autoscaling/v2beta1/HorizontalPodAutoscaler': {
    apiVersion: 'autoscaling/v2beta1',
    kind: 'HorizontalPodAutoscaler',
    metadata: fixtureMeta('web', 'default'),
    spec: {
      scaleTargetRef: ref,
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 70 } },
        { type: 'ContainerResource', containerResource: { name: 'memory', container: 'app', targetAverageValue: '1Gi' } },
        { type: 'Pods', pods: { metricName: 'rps', targetAverageValue: '0', selector: { matchLabels: { verb: 'GET' } } } },
        { type: 'Object', object: { target: { kind: 'Service', name: 'web' }, metricName: 'hits', targetValue: '0', averageValue: '100' } },
        { type: 'External', external: { metricName: 'queue', metricSelector: { matchLabels: { q: 'jobs' } }, targetValue: '50' } },
      ],
    },
    status: {
      currentReplicas: 0,
      desiredReplicas: 2,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 0, currentAverageValue: '0' } },
        { type: 'Object', object: { target: { kind: 'Service', name: 'web' }, metricName: 'hits', currentValue: '0', averageValue: '80' } },
      ],
      conditions: [condition],
    },
  },
  'autoscaling/v1/HorizontalPodAutoscaler': {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      ...fixtureMeta('web', 'default'),
      annotations: { 'autoscaling.alpha.kubernetes.io/metrics': '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}}]' },
    },
    spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 0 },
    status: { observedGeneration: 1, lastScaleTime: '2024-05-01T10:05:00Z', currentReplicas: 0, desiredReplicas: 0, currentCPUUtilizationPercentage: 0 },
  },
};
