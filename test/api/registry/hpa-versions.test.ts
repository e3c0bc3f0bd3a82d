/**
 * HorizontalPodAutoscalers through the registry in every version over one v2 storage: writes in one
 * version read back in the others, status kept across v1 main-resource updates, 80% CPU for v1.
 */
import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { makeFixture, storeKinds, write } from '../../helpers/registry-fixture';
import type { Fixture } from '../../helpers/registry-fixture';

const target = (f: Fixture, version: string, name?: string) => ({ kind: f.kind('horizontalpodautoscalers', 'autoscaling', version), namespace: 'default', ...(name ? { name } : {}) });
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

for (const storeKind of storeKinds()) {
  t.test(`${storeKind}: one object, four versions`, async (t) => {
    const f = await makeFixture(storeKind);
    t.teardown(() => f.close());
    const created = await f.registry.create(target(f, 'v1'), { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' }, spec: { scaleTargetRef: ref, maxReplicas: 4 } }, write);
    t.equal((created.object.spec as Record<string, unknown>).targetCPUUtilizationPercentage, 80, 'v1 answers with the implicit 80%');
    t.equal((created.object.spec as Record<string, unknown>).minReplicas, 1);
    t.same(created.object.status, { currentReplicas: 0, desiredReplicas: 0 });

    const v2 = await f.registry.get(target(f, 'v2', 'web'), {});
    t.same((v2.spec as Record<string, unknown>).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    t.same(v2.status, { desiredReplicas: 0, currentMetrics: null });

    // the controller writes status in v2
    const status = { currentReplicas: 2, desiredReplicas: 3, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 90 } } }], conditions: [{ type: 'ScalingActive', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'ValidMetricFound', message: 'ok' }] };
    await f.registry.updateStatus(target(f, 'v2', 'web'), { ...v2, status }, write);

    const v1 = await f.registry.get(target(f, 'v1', 'web'), {});
    t.equal((v1.status as Record<string, unknown>).currentCPUUtilizationPercentage, 90);
    t.ok(v1.metadata?.annotations?.['autoscaling.alpha.kubernetes.io/conditions']);

    // a v1 replace of a manifest without the annotations keeps the status, as kube keeps it
    const manifest: KubeObject = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default', resourceVersion: v1.metadata?.resourceVersion }, spec: { scaleTargetRef: ref, maxReplicas: 6, targetCPUUtilizationPercentage: 70 } };
    await f.registry.update(target(f, 'v1', 'web'), manifest, write);
    const after = await f.registry.get(target(f, 'v2', 'web'), {});
    t.equal((after.spec as Record<string, unknown>).maxReplicas, 6);
    t.same((after.status as Record<string, unknown>).conditions, status.conditions);
    t.same((after.status as Record<string, unknown>).currentMetrics, status.currentMetrics);

    for (const version of ['v2', 'v1', 'v2beta2', 'v2beta1']) {
      const list = await f.registry.list(target(f, version), {});
      t.same(list.items.map((o) => [o.apiVersion, o.metadata?.name]), [[`autoscaling/${version}`, 'web']], `list in ${version}`);
    }
    const beta1 = await f.registry.get(target(f, 'v2beta1', 'web'), {});
    t.same((beta1.spec as Record<string, unknown>).metrics, [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 70 } }]);

    // v2 behavior written, v2beta1 label change keeps it
    const withBehavior = { ...after, spec: { ...(after.spec as object), behavior: { scaleDown: { stabilizationWindowSeconds: 30 } } } };
    await f.registry.update(target(f, 'v2', 'web'), withBehavior, write);
    const beta = await f.registry.get(target(f, 'v2beta1', 'web'), {});
    beta.metadata!.labels = { tier: 'front' };
    await f.registry.update(target(f, 'v2beta1', 'web'), beta, write);
    const final = await f.registry.get(target(f, 'v2', 'web'), {});
    t.same(final.metadata?.labels, { tier: 'front' });
    t.equal(((final.spec as { behavior: { scaleDown: Record<string, unknown> } }).behavior.scaleDown).stabilizationWindowSeconds, 30);
    t.notOk(final.metadata?.annotations, 'no round-trip annotation is stored');
  });
}
