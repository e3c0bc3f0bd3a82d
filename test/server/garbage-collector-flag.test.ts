import t from 'tap';
import { configMap, makeFixture } from '../helpers/registry-fixture';

for (const enabled of [true, false]) {
  t.test(`--enable-garbage-collector=${enabled}: delete with propagationPolicy`, async (t) => {
    const f = await makeFixture('memory', { enableGarbageCollection: enabled });
    t.teardown(() => f.close());
    const target = f.target('configmaps', 'default');
    for (const [name, policy] of [['orphan', 'Orphan'], ['foreground', 'Foreground']]) {
      await f.registry.create(target, configMap(name), { dryRun: false });
      await f.registry.delete({ ...target, name }, { dryRun: false, propagationPolicy: policy });
      const left = await f.registry.get({ ...target, name }, {}).catch(() => undefined);
      if (enabled) t.same(left?.metadata?.finalizers, [policy === 'Orphan' ? 'orphan' : 'foregroundDeletion'], `${policy}: finalizer added, object kept`);
      else t.equal(left, undefined, `${policy}: no finalizer, deleted at once`);
    }
  });
}
