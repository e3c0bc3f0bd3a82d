import t from 'tap';
import { makeFixture, pod, storeKinds, write } from '../../helpers/registry-fixture';
import type { KubeObject } from '../../../src/api/kind';
import { rejects } from '../../helpers/registry-assert';

type Spec = Record<string, unknown> & { ephemeralContainers?: Array<Record<string, unknown>> };
const spec = (o: KubeObject) => o.spec as Spec;

for (const backend of storeKinds()) {
  t.test(`pods/ephemeralcontainers (${backend})`, async (t) => {
    t.test('kubectl debug: a strategic merge patch adds one; only spec.ephemeralContainers changes', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const p = pod('web', 'default', 'node-a');
      p.metadata!.labels = { app: 'web' };
      await f.registry.create(f.target('pods', 'default'), p, write);
      const target = f.target('pods', 'default', 'web');
      const got = await f.registry.getSubresource(target, 'ephemeralcontainers', {});
      t.equal(got.kind, 'Pod');
      const patch = JSON.stringify({
        metadata: { labels: { sneaky: 'yes' } },
        spec: { activeDeadlineSeconds: 5, ephemeralContainers: [{ name: 'debugger', image: 'busybox', stdin: true, tty: true, targetContainerName: 'c' }] },
      });
      const res = await f.registry.patchSubresource(target, 'ephemeralcontainers', 'strategic', patch, write);
      t.same(spec(res.object).ephemeralContainers, [
        {
          name: 'debugger', image: 'busybox', stdin: true, tty: true, targetContainerName: 'c',
          imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {},
        },
      ]);
      t.same(res.object.metadata!.labels, { app: 'web' }, 'metadata stays the stored one');
      t.equal(spec(res.object).activeDeadlineSeconds, undefined, 'other spec fields are not taken');
      t.match(res.object.metadata!.managedFields, [{}, { subresource: 'ephemeralcontainers' }]);
      // adding a second one keeps the first (kubectl sends $setElementOrder, as here, to keep the order)
      const more = await f.registry.patchSubresource(target, 'ephemeralcontainers', 'strategic',
        JSON.stringify({ spec: { '$setElementOrder/ephemeralContainers': [{ name: 'debugger' }, { name: 'second' }], ephemeralContainers: [{ name: 'second', image: 'alpine' }] } }), write);
      t.same(spec(more.object).ephemeralContainers!.map((c) => c.name), ['debugger', 'second']);
    });

    t.test('never changed or removed; unique names; no workload fields', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await f.registry.create(f.target('pods', 'default'), pod('web'), write);
      const target = f.target('pods', 'default', 'web');
      const added = await f.registry.patchSubresource(target, 'ephemeralcontainers', 'strategic',
        JSON.stringify({ spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } }), write);
      const removed = structuredClone(added.object);
      spec(removed).ephemeralContainers = [];
      await rejects(t, f.registry.updateSubresource(target, 'ephemeralcontainers', removed, write), 422, 'Invalid',
        'Pod "web" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n');
      const changed = structuredClone(added.object);
      spec(changed).ephemeralContainers![0].image = 'alpine';
      await rejects(t, f.registry.updateSubresource(target, 'ephemeralcontainers', changed, write), 422, 'Invalid', /existing ephemeral containers "dbg" may not be changed/);
      const clash = structuredClone(added.object);
      spec(clash).ephemeralContainers!.push({ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }], livenessProbe: { exec: { command: ['true'] } }, targetContainerName: 'nope' });
      const st = await rejects(t, f.registry.updateSubresource(target, 'ephemeralcontainers', clash, write), 422, 'Invalid');
      t.same(st?.details?.causes?.map((c) => c.field), [
        'spec.ephemeralContainers[1].name',
        'spec.ephemeralContainers[1].targetContainerName',
        'spec.ephemeralContainers[1].ports',
        'spec.ephemeralContainers[1].livenessProbe',
      ]);
      t.same(st?.details?.causes?.[2], { reason: 'FieldValueForbidden', message: 'Forbidden: cannot be set for an Ephemeral Container', field: 'spec.ephemeralContainers[1].ports' });
    });

    t.test('static pods take none', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const p = pod('static', 'default', 'node-a');
      p.metadata!.annotations = { 'kubernetes.io/config.mirror': 'hash' };
      await f.registry.create(f.target('pods', 'default'), p, write);
      const st = await rejects(t, f.registry.patchSubresource(f.target('pods', 'default', 'static'), 'ephemeralcontainers', 'strategic',
        JSON.stringify({ spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } }), write), 422, 'Invalid');
      t.same(st?.details?.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: static pods do not support ephemeral containers', field: '' }]);
    });
  });
}
