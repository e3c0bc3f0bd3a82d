import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import { boundReplicas, setCondition, stabilize } from '../../src/controllers/podautoscaler/normalize';
import { resourceReplicas, type PodMetric } from '../../src/controllers/podautoscaler/replica-calculator';
import { parseDuration } from '../../src/controllers/podautoscaler/metrics-client';
import { boundWithBehavior, stabilizeWithBehavior, storeScaleEvent } from '../../src/controllers/podautoscaler/behavior';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const opts = { tolerance: 0.1, cpuInitializationPeriodMs: 300_000, initialReadinessDelayMs: 30_000, now: NOW };

function pod(name: string, o: { phase?: string; ready?: boolean; startedAgoMs?: number; readyAgoMs?: number; request?: string } = {}): KubeObject {
  return {
    metadata: { name },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu: o.request ?? '100m' } } }] },
    status: {
      phase: o.phase ?? 'Running',
      startTime: iso(NOW - (o.startedAgoMs ?? 600_000)),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: iso(NOW - (o.readyAgoMs ?? 590_000)) }],
    },
  };
}
const metrics = (m: Record<string, number>) => new Map<string, PodMetric>(Object.entries(m).map(([k, v]) => [k, { value: v, timestamp: NOW, windowMs: 30_000 }]));

t.test('replica calculator: utilization, tolerance, missing and unready pods', async (t) => {
  const pods = [pod('a'), pod('b')];
  t.match(resourceReplicas(2, pods, metrics({ a: 200, b: 200 }), 'cpu', { utilization: 50 }, opts), { replicas: 8, utilization: 200, rawAverage: 200 });
  t.equal(resourceReplicas(2, pods, metrics({ a: 54, b: 54 }), 'cpu', { utilization: 50 }, opts).replicas, 2, 'within the tolerance');
  t.equal(resourceReplicas(2, pods, metrics({ a: 10, b: 10 }), 'cpu', { utilization: 50 }, opts).replicas, 1, 'scale down');
  // scale-up with a missing pod: counted at 0, ratio (200+0)/2/50 = 2 -> 4
  t.equal(resourceReplicas(2, pods, metrics({ a: 200 }), 'cpu', { utilization: 50 }, opts).replicas, 4);
  // scale-down with a missing pod: counted at 100%, ratio (10+100)/200/0.5 > 1 reverses direction -> keep
  t.equal(resourceReplicas(2, pods, metrics({ a: 10 }), 'cpu', { utilization: 50 }, opts).replicas, 2);
  // an unready pod (just started, its sample within the first window) counts 0 on a scale-up
  const starting = pod('c', { startedAgoMs: 10_000, readyAgoMs: 5_000 });
  t.equal(resourceReplicas(3, [...pods, starting], metrics({ a: 100, b: 100, c: 500 }), 'cpu', { utilization: 50 }, opts).replicas, 4, '(100+100+0)/300 = 66% -> ceil(1.33*3)');
  t.equal(resourceReplicas(2, [...pods, pod('d', { phase: 'Failed' })], metrics({ a: 100, b: 100, d: 900 }), 'cpu', { utilization: 100 }, opts).replicas, 2, 'failed pods ignored');
  t.throws(() => resourceReplicas(1, [pod('a', { request: 'x' })], metrics({ a: 1 }), 'cpu', { utilization: 50 }, opts), /missing request for cpu/);
  t.throws(() => resourceReplicas(1, [], metrics({}), 'cpu', { utilization: 50 }, opts), /no pods returned by selector/);
  t.throws(() => resourceReplicas(1, [pod('a', { phase: 'Pending' })], metrics({ a: 1 }), 'cpu', { utilization: 50 }, opts), /did not receive metrics for any ready pods/);
  t.equal(resourceReplicas(2, pods, metrics({ a: 400, b: 400 }), 'cpu', { averageValueMilli: 200 }, opts).replicas, 4, 'average value target');
});

t.test('normalization: stabilization window, min/max and the scale-up limit', async (t) => {
  const history = [{ replicas: 5, at: NOW - 60_000 }];
  t.equal(stabilize(history, 2, 300_000, NOW), 5, 'a recent higher recommendation wins');
  t.equal(stabilize(history, 2, 30_000, NOW), 2, 'older than the window: replaced');
  t.same(boundReplicas(1, 10, 1, 20), { replicas: 4, reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' });
  t.same(boundReplicas(5, 12, 1, 20).replicas, 10, 'twice the current');
  t.same(boundReplicas(5, 12, 1, 8), { replicas: 8, reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' });
  t.same(boundReplicas(5, 1, 2, 8), { replicas: 2, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' });
  t.equal(boundReplicas(5, 6, 1, 8).reason, 'DesiredWithinRange');
});

t.test('conditions keep their transition time while the status holds; durations parse', async (t) => {
  let c = setCondition([], { type: 'AbleToScale', status: 'True', reason: 'A', message: 'a' }, 't1');
  c = setCondition(c, { type: 'AbleToScale', status: 'True', reason: 'B', message: 'b' }, 't2');
  t.match(c, [{ reason: 'B', lastTransitionTime: 't1' }]);
  c = setCondition(c, { type: 'AbleToScale', status: 'False', reason: 'C', message: 'c' }, 't3');
  t.match(c, [{ status: 'False', lastTransitionTime: 't3' }]);
  t.equal(parseDuration('1m30s'), 90_000);
  t.equal(parseDuration('500ms'), 500);
});

t.test('behavior: stabilization in both directions, policies, scale events', async (t) => {
  // the server's defaults for a present behavior: up 4 pods or 100% per 15s (Max), down 100% per 15s
  const behavior = {
    scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
    scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] },
  };
  const memory = { recommendations: [{ replicas: 8, at: NOW - 30_000 }], scaleUpEvents: [], scaleDownEvents: [] };
  t.match(stabilizeWithBehavior(memory, behavior, 6, 3, 300, NOW), { replicas: 8, reason: 'ScaleDownStabilized' });
  t.match(stabilizeWithBehavior(memory, behavior, 2, 5, 300, NOW), { replicas: 5, reason: 'ScaleUpStabilized' }, 'no up window');
  t.same(boundWithBehavior(memory, behavior, 2, 20, 1, 30, NOW), { replicas: 6, reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' }, 'max(2+4, 2*2)');
  storeScaleEvent(memory, behavior, 2, 6, NOW);
  t.equal(boundWithBehavior(memory, behavior, 6, 20, 1, 30, NOW + 1000).replicas, 6, 'the period\'s rescale counts against the limit');
  t.same(boundWithBehavior(memory, behavior, 6, 2, 1, 30, NOW), { replicas: 5, reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' });
  t.equal(boundWithBehavior(memory, { ...behavior, scaleDown: { selectPolicy: 'Disabled' } }, 6, 2, 1, 30, NOW).replicas, 6, 'disabled');
});
