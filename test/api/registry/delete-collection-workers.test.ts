import t from 'tap';
import { makeFixture, configMap, write } from '../../helpers/registry-fixture';
import { errors } from '../../../src/api/errors';
import type { Admission } from '../../../src/admission/types';
import { rejects } from '../../helpers/registry-assert';
import { apiServerConfig, apiServerOptionGroups } from '../../../src/options/apiserver';
import { parseOptions } from '../../../src/options/parse';

const parse = (...args: string[]) => parseOptions(apiServerOptionGroups, args);

/** counts the deletes in flight at once; refuses the names given */
function watchingAdmission(refuse: string[] = []): Admission & { peak: number; seen: string[] } {
  let inFlight = 0;
  const a = {
    peak: 0,
    seen: [] as string[],
    admit: async () => undefined,
    async validate(attrs: { operation: string; name?: string }) {
      if (attrs.operation !== 'DELETE') return;
      a.seen.push(attrs.name!);
      inFlight++;
      a.peak = Math.max(a.peak, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      if (refuse.includes(attrs.name!)) throw errors.forbidden({ group: '', resource: 'configmaps' }, attrs.name!, 'refused by the test');
    },
  };
  return a as unknown as Admission & { peak: number; seen: string[] };
}

t.test('--delete-collection-workers: default 1, below 1 means 1', async (t) => {
  t.equal(apiServerConfig(parse('--data-dir=/x')).storage.deleteCollectionWorkers, 1);
  t.equal(apiServerConfig(parse('--data-dir=/x', '--delete-collection-workers=4')).storage.deleteCollectionWorkers, 4);
  t.equal(apiServerConfig(parse('--data-dir=/x', '--delete-collection-workers=0')).storage.deleteCollectionWorkers, 1);
});

for (const workers of [1, 4]) {
  t.test(`${workers} worker(s) delete every object and answer the listed objects`, async (t) => {
    const admission = watchingAdmission();
    const f = await makeFixture('sqlite', { admission, deleteCollectionWorkers: workers });
    t.teardown(() => f.close());
    for (let i = 0; i < 10; i++) await f.registry.create(f.target('configmaps', 'default'), configMap(`cm-${i}`), write);
    const res = await f.registry.deleteCollection(f.target('configmaps', 'default'), {}, write);
    t.equal(res.items.length, 10);
    t.same(res.items.map((i) => i.metadata!.name).sort(), Array.from({ length: 10 }, (_, i) => `cm-${i}`).sort());
    t.equal((await f.registry.list(f.target('configmaps', 'default'), {})).items.length, 0, 'nothing left');
    t.equal(admission.peak, workers, `${workers} deletes at once`);
  });
}

t.test('a failed delete is the answer (kube returns the first error), and stops handing out objects', async (t) => {
  const admission = watchingAdmission(['cm-2']);
  const f = await makeFixture('sqlite', { admission, deleteCollectionWorkers: 2 });
  t.teardown(() => f.close());
  for (let i = 0; i < 10; i++) await f.registry.create(f.target('configmaps', 'default'), configMap(`cm-${i}`), write);
  await rejects(t, f.registry.deleteCollection(f.target('configmaps', 'default'), {}, write), 403, 'Forbidden', /refused by the test/);
  const left = (await f.registry.list(f.target('configmaps', 'default'), {})).items.map((i) => i.metadata!.name);
  t.ok(left.includes('cm-2'), 'the refused object stays');
  t.ok(left.length < 10 && left.length >= 1, `objects already handed out were deleted (left: ${left.join(', ')})`);
  t.ok(admission.seen.length < 10, 'no object was handed out after the failure');
});
