import t from 'tap';
import type { Test } from 'tap';
import { create, fields, kind } from './helpers';
import type { KubeObject } from '../../../src/api/kind';
import { jsonEqual } from '../../../src/api/json-value';

const hpa = (version: string) => kind('autoscaling', version, 'HorizontalPodAutoscaler');
const VERSIONS = ['v2', 'v1', 'v2beta2', 'v2beta1'];

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

/** a stored (v2) object with every kind of metric, behavior, status metrics and conditions */
function stored(): KubeObject {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default', annotations: { team: 'shop' } },
    spec: {
      scaleTargetRef: ref,
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
        { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 50 } } },
        { type: 'Pods', pods: { metric: { name: 'rps', selector: { matchLabels: { verb: 'GET' } } }, target: { type: 'AverageValue', averageValue: '10' } } },
        { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, metric: { name: 'hits' }, target: { type: 'Value', value: '2k' } } },
        { type: 'Object', object: { describedObject: { kind: 'Service', name: 'web' }, metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '100' } } },
        { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '30' } } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      ],
      behavior: {
        scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] },
        scaleDown: { stabilizationWindowSeconds: 120, selectPolicy: 'Min', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] },
      },
    },
    status: {
      observedGeneration: 4,
      lastScaleTime: '2024-05-01T10:05:00Z',
      currentReplicas: 3,
      desiredReplicas: 4,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'memory', current: { averageValue: '400Mi' } } },
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 40 } } },
        { type: 'Object', object: { metric: { name: 'hits' }, current: { value: '1500' }, describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' } } },
      ],
      conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'ReadyForNewScale', message: 'ok' }],
    },
  };
}

/** the stored form compared without key order (the CPU target is last, where v1 puts it back, as kube does) */
function sameStored(t: Test, actual: KubeObject, expected: KubeObject, msg: string): void {
  t.ok(jsonEqual(actual, expected), msg);
  if (!jsonEqual(actual, expected)) t.same(actual, expected);
}

t.test('every version reads the stored object and writes it back without loss', async (t) => {
  const s = stored();
  for (const v of VERSIONS) {
    const k = hpa(v);
    const read = k.fromStorage!(s);
    t.equal(read.apiVersion, `autoscaling/${v}`);
    sameStored(t, k.toStorage!(read), s, `${v} -> storage`);
  }
});

t.test('every pair of versions: written in one, read and rewritten in the other, read back unchanged', async (t) => {
  for (const a of VERSIONS) {
    for (const b of VERSIONS) {
      const inA = hpa(a).fromStorage!(stored());
      const storedFromA = hpa(a).toStorage!(inA);
      const inB = hpa(b).fromStorage!(storedFromA);
      const storedFromB = hpa(b).toStorage!(inB);
      t.ok(jsonEqual(hpa(a).fromStorage!(storedFromB), inA), `${a} -> ${b} -> ${a}`);
    }
  }
});

t.test('v1 keeps in annotations what it cannot express, as kube writes them', async (t) => {
  const v1 = hpa('v1').fromStorage!(stored());
  const spec = v1.spec as Record<string, unknown>;
  t.same(spec, { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 60 });
  t.same(v1.status, { observedGeneration: 4, lastScaleTime: '2024-05-01T10:05:00Z', currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 40 });
  const a = v1.metadata!.annotations!;
  t.equal(a.team, 'shop', 'other annotations stay');
  t.same(JSON.parse(a['autoscaling.alpha.kubernetes.io/metrics']), [
    { type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } },
    { type: 'ContainerResource', containerResource: { name: 'cpu', targetAverageUtilization: 50, container: 'app' } },
    { type: 'Pods', pods: { metricName: 'rps', targetAverageValue: '10', selector: { matchLabels: { verb: 'GET' } } } },
    { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, metricName: 'hits', targetValue: '2k' } },
    { type: 'Object', object: { target: { kind: 'Service', name: 'web' }, metricName: 'qps', targetValue: '0', averageValue: '100' } },
    { type: 'External', external: { metricName: 'queue', targetValue: '30' } },
  ]);
  t.same(JSON.parse(a['autoscaling.alpha.kubernetes.io/current-metrics']), [
    { type: 'Resource', resource: { name: 'memory', currentAverageValue: '400Mi' } },
    { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 40, currentAverageValue: '120m' } },
    { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, metricName: 'hits', currentValue: '1500' } },
  ]);
  t.equal(
    a['autoscaling.alpha.kubernetes.io/conditions'],
    '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T10:00:00Z","reason":"ReadyForNewScale","message":"ok"}]',
  );
  // kube marshals its internal type: Go field names, nil pointers as null
  t.equal(
    a['autoscaling.alpha.kubernetes.io/behavior'],
    '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}]},' +
      '"ScaleDown":{"StabilizationWindowSeconds":120,"SelectPolicy":"Min","Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}]}}',
  );
});

t.test('v1 writes: the CPU target after the annotation metrics, 80% CPU when nothing is given', async (t) => {
  const toV2 = hpa('v1').toStorage!;
  const plain = toV2({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a' }, spec: { scaleTargetRef: ref, maxReplicas: 3 } });
  t.same((plain.spec as Record<string, unknown>).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
  const mixed = toV2({
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'a', annotations: { 'autoscaling.alpha.kubernetes.io/metrics': '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]' } },
    spec: { scaleTargetRef: ref, maxReplicas: 3, targetCPUUtilizationPercentage: 70 },
  });
  t.same((mixed.spec as Record<string, unknown>).metrics, [
    { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
    { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
  ]);
  t.notOk(mixed.metadata?.annotations, 'the round-trip annotations are not stored');
  // kube reads the behavior annotation case-insensitively, and ignores it when malformed
  const lower = toV2({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a', annotations: { 'autoscaling.alpha.kubernetes.io/behavior': '{"scaleDown":{"policies":[{"type":"Pods","value":1,"periodSeconds":60}]}}' } }, spec: { maxReplicas: 3 } });
  t.same((lower.spec as Record<string, unknown>).behavior, { scaleDown: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } });
  const bad = toV2({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a', annotations: { 'autoscaling.alpha.kubernetes.io/behavior': '{oops' } }, spec: { maxReplicas: 3 } });
  t.notOk((bad.spec as Record<string, unknown>).behavior);
});

t.test('v2beta1: the legacy target fields, and behavior in the annotation', async (t) => {
  const v2beta1 = hpa('v2beta1').fromStorage!(stored());
  const metrics = (v2beta1.spec as { metrics: unknown[] }).metrics;
  t.same(metrics[0], { type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } });
  t.same(metrics[6], { type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 60 } });
  t.same(metrics[5], { type: 'External', external: { metricName: 'queue', targetValue: '30' } });
  t.notOk((v2beta1.spec as Record<string, unknown>).behavior);
  t.ok(v2beta1.metadata!.annotations!['autoscaling.alpha.kubernetes.io/behavior']);
  t.notOk(v2beta1.metadata!.annotations!['autoscaling.alpha.kubernetes.io/metrics'], 'only v1 keeps metrics in annotations');
  t.same((v2beta1.status as { conditions: unknown[] }).conditions.length, 1);
  // an average Object target read back from the legacy shape gets no zero value (kube's would fail its own validation)
  const back = hpa('v2beta1').toStorage!(v2beta1);
  t.same((back.spec as { metrics: unknown[] }).metrics[4], stored().spec && (stored().spec as { metrics: unknown[] }).metrics[4]);
});

t.test("kube's defaults per version", async (t) => {
  const bare = (v: string): KubeObject => ({ apiVersion: `autoscaling/${v}`, kind: 'HorizontalPodAutoscaler', metadata: { name: 'a' }, spec: { scaleTargetRef: ref, maxReplicas: 3 } });
  const v1 = bare('v1');
  hpa('v1').strategy.defaults(v1);
  t.same(v1.spec, { scaleTargetRef: ref, maxReplicas: 3, minReplicas: 1 }, 'v1: minReplicas only (the 80% comes from conversion)');
  t.same(v1.status, { currentReplicas: 0, desiredReplicas: 0 });
  const b1 = bare('v2beta1');
  hpa('v2beta1').strategy.defaults(b1);
  t.same((b1.spec as Record<string, unknown>).metrics, [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 80 } }]);
  for (const v of ['v2', 'v2beta2']) {
    const o = bare(v);
    hpa(v).strategy.defaults(o);
    t.same((o.spec as Record<string, unknown>).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    t.notOk((o.spec as Record<string, unknown>).behavior, `${v}: no behavior is invented`);
    const withBehavior = bare(v);
    (withBehavior.spec as Record<string, unknown>).behavior = { scaleDown: { stabilizationWindowSeconds: 30 } };
    hpa(v).strategy.defaults(withBehavior);
    t.same((withBehavior.spec as Record<string, unknown>).behavior, {
      scaleDown: { stabilizationWindowSeconds: 30, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
    }, `${v}: the behavior given is completed`);
  }
  const v2 = bare('v2');
  hpa('v2').strategy.defaults(v2);
  t.same(v2.status, { desiredReplicas: 0, currentMetrics: null }, 'v2 writes the fields Go always writes');
});

t.test("validation: kube's messages at v2 field paths, whatever the version", async (t) => {
  const v1 = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a', namespace: 'default' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x/y' }, minReplicas: 0, maxReplicas: 0, targetCPUUtilizationPercentage: 0 } };
  const causes = create(hpa('v1'), v1 as KubeObject);
  t.same(fields(causes), ['spec.minReplicas', 'spec.maxReplicas', 'spec.scaleTargetRef.name', 'spec.metrics[0].resource.target.averageUtilization', 'spec.metrics']);
  t.match(causes[4].message, 'Forbidden: must specify at least one Object or External metric to support scaling to zero replicas');
  t.match(causes[0].message, 'Invalid value: 0: must be greater than or equal to 1');
  t.match(causes[1].message, 'must be greater than 0');
  t.match(causes[2].message, "may not contain '/'");

  const v2 = (metrics: unknown[], extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a', namespace: 'default' },
    spec: { scaleTargetRef: ref, minReplicas: 3, maxReplicas: 2, metrics, ...extra },
  });
  t.same(create(hpa('v2'), v2([])).map((c) => c.message), ['Invalid value: 2: must be greater than or equal to `minReplicas`']);
  const bad = create(hpa('v2'), v2([
    { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'Value', value: '-1' } }, resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
    { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50, averageValue: '1' } } },
    { type: 'External', external: { metric: { name: 'q' }, target: { type: 'Bogus' } } },
    { type: 'Object' },
  ], { minReplicas: 1, maxReplicas: 5, behavior: { scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: 'Fast', policies: [{ type: 'Pods', value: 0, periodSeconds: 1801 }] }, scaleDown: { policies: [] } } }));
  t.same(bad.map((c) => `${c.field}: ${c.message}`), [
    'spec.metrics[0].pods.target.value: Invalid value: "-1": must be positive',
    'spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue',
    'spec.metrics[0].resource: Forbidden: must populate the given metric source only',
    'spec.metrics[1].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization',
    'spec.metrics[2].external.target.type: Invalid value: "Bogus": must be either Utilization, Value, or AverageValue',
    'spec.metrics[2].external.target.averageValue: Required value: must set either a target value for metric or a per-pod target',
    'spec.metrics[3].object: Required value: must populate information for the given metric source',
    'spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600',
    'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Fast": supported values: "Disabled", "Max", "Min"',
    'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero',
    'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800',
    'spec.behavior.scaleDown.policies: Required value: must specify at least one Policy',
  ]);
  // an object that already has minReplicas 0 may keep it (HPAScaleToZero off)
  const zero = v2([{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '1' } } }], { minReplicas: 0, maxReplicas: 2 });
  t.same(fields(hpa('v2').strategy.validate(zero, zero)), []);
  t.same(fields(hpa('v2').strategy.validate(zero)), ['spec.minReplicas']);
  // v2beta1 objects are checked in their v2 form too
  const beta = { apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a' }, spec: { scaleTargetRef: ref, maxReplicas: 2, metrics: [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 0 } }] } };
  t.same(fields(create(hpa('v2beta1'), beta as KubeObject)), ['spec.metrics[0].resource.target.averageUtilization']);
  t.same(fields(hpa('v2').strategy.validateStatus!({ status: { currentReplicas: -1, desiredReplicas: 2 } }, {})), ['status.currentReplicas']);
});

t.test('table: kube 1.32 columns and TARGETS', async (t) => {
  const k = hpa('v2');
  t.same(k.table!.columns.map((c) => c.name), ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
  const now = new Date('2024-05-01T10:10:00Z');
  const fresh: KubeObject = {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', creationTimestamp: '2024-05-01T10:00:00Z' },
    spec: { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] },
  };
  t.same(k.table!.cells(fresh, now), ['web', 'Deployment/web', 'cpu: <unknown>/80%', '<unset>', 3, 0, '10m']);
  t.same(k.table!.cells(stored(), now)[2], 'memory: 400Mi/500Mi, cpu: <unknown>/50% + 5 more...');
  const v1 = hpa('v1').fromStorage!(stored());
  t.same(hpa('v1').table!.cells(v1, now).slice(1, 6), ['Deployment/web', 'memory: 400Mi/500Mi, cpu: <unknown>/50% + 5 more...', '2', 10, 3]);
  const external = { ...fresh, spec: { ...(fresh.spec as object), metrics: [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'AverageValue', averageValue: '30' } } }, { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } }] } };
  t.same(k.table!.cells(external, now)[2], '<unknown>/30 (avg), <unknown>/10');
});
