/**
 * What kube's decoder refuses before validation runs: numbers outside an integer field's range are
 * a 400 (not stored, not a 422), and so is an applied configuration nested too deep (js-yaml caps it).
 */
import t from 'tap';
import { makeFixture, deployment, write } from '../../helpers/registry-fixture';
import { rejects } from '../../helpers/registry-assert';
import { MAX_NESTING_DEPTH } from '../../../src/api/nesting';

t.test('int32 and int64 fields refuse numbers out of their range with 400 BadRequest', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const target = f.target('deployments', 'default');
  for (const [field, value] of [['replicas', 2147483648], ['replicas', -2147483649], ['minReadySeconds', 9.3e18]] as const) {
    const d = deployment(`big-${field.toLowerCase()}`);
    (d.spec as Record<string, unknown>)[field] = value;
    await rejects(t, f.registry.create(target, d, write), 400, 'BadRequest', /cannot unmarshal number .* of type int32/);
  }
  const list = await f.registry.list(target, {});
  t.equal(list.items.length, 0, 'nothing was stored');
});

t.test('an applied configuration nested deeper than the limit is a 400, not a crash', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const deep = '{"a":'.repeat(MAX_NESTING_DEPTH + 5) + '1' + '}'.repeat(MAX_NESTING_DEPTH + 5);
  const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","labels":${deep}}}`;
  await rejects(
    t,
    f.registry.patch(f.target('configmaps', 'default', 'deep'), 'apply', body, { dryRun: false, fieldManager: 'test' }),
    400,
    'BadRequest',
    /exceeded max ?depth/i,
  );
});
