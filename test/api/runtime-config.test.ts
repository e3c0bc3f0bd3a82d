import t from 'tap';
import { enabledByDefault, filterByRuntimeConfig, resolveRuntimeConfig, runtimeConfigSyntaxError } from '../../src/api/runtime-config';
import { builtinKinds } from '../../src/api/kinds';

const registered = [
  { group: '', version: 'v1' },
  { group: 'apps', version: 'v1' },
  { group: 'batch', version: 'v1' },
  { group: 'batch', version: 'v1beta1' },
  { group: 'batch', version: 'v2alpha1' },
  { group: 'autoscaling', version: 'v1' },
  { group: 'autoscaling', version: 'v2' },
  { group: 'autoscaling', version: 'v2beta1' },
  { group: 'autoscaling', version: 'v2beta2' },
  { group: 'internal.apiserver.k8s.io', version: 'v1alpha1' },
];

function served(overrides: Record<string, string>): string[] {
  const e = resolveRuntimeConfig(overrides, registered);
  return registered.filter((gv) => e.enabled({ ...gv, resource: 'x' })).map((gv) => `${gv.group}/${gv.version}`);
}

t.test('defaults: GA and beta on, alpha off (kube 1.20)', async (t) => {
  t.same(served({}), ['/v1', 'apps/v1', 'batch/v1', 'batch/v1beta1', 'autoscaling/v1', 'autoscaling/v2', 'autoscaling/v2beta1', 'autoscaling/v2beta2']);
  t.equal(enabledByDefault('v1alpha1'), false);
  t.equal(enabledByDefault('v2beta2'), true);
  t.equal(enabledByDefault('v1'), true);
});

t.test('group/version keys turn single versions on and off; empty means true', async (t) => {
  t.same(served({ 'batch/v2alpha1': 'true', 'autoscaling/v2beta1': 'false' }), [
    '/v1', 'apps/v1', 'batch/v1', 'batch/v1beta1', 'batch/v2alpha1', 'autoscaling/v1', 'autoscaling/v2', 'autoscaling/v2beta2',
  ]);
  t.ok(served({ 'internal.apiserver.k8s.io/v1alpha1': '' }).includes('internal.apiserver.k8s.io/v1alpha1'));
  t.ok(served({ 'batch/v2alpha1': 'T' }).includes('batch/v2alpha1'), "Go's ParseBool spellings");
  t.notOk(served({ v1: 'false', 'api/ga': 'true' }).includes('/v1'), 'v1 names the core group');
  t.notOk(served({ 'api/v1': '0' }).includes('/v1'), 'so does api/v1');
});

t.test('api/all, api/ga, api/beta, api/alpha apply in that order, then group/version keys', async (t) => {
  t.same(served({ 'api/all': 'false', 'apps/v1': 'true' }), ['apps/v1']);
  // api/alpha=true comes after api/all=false whatever the command line order
  t.same(served({ 'api/alpha': 'true', 'api/all': 'false' }), ['batch/v2alpha1', 'internal.apiserver.k8s.io/v1alpha1']);
  t.same(served({ 'api/beta': 'false' }), ['/v1', 'apps/v1', 'batch/v1', 'autoscaling/v1', 'autoscaling/v2']);
  t.same(served({ 'api/ga': 'false', 'batch/v1': 'true', 'api/beta': 'false' }), ['batch/v1']);
  t.ok(served({ 'api/all': 'true' }).includes('batch/v2alpha1'));
});

t.test('group/version/resource keys refine a version', async (t) => {
  const e = resolveRuntimeConfig({ 'batch/v1/cronjobs': 'false' }, registered);
  t.equal(e.enabled({ group: 'batch', version: 'v1', resource: 'cronjobs' }), false);
  t.equal(e.enabled({ group: 'batch', version: 'v1', resource: 'jobs' }), true);
});

t.test("errors carry kube's wording", async (t) => {
  t.throws(() => resolveRuntimeConfig({ 'foo.example.com/v1': 'true', 'bar/v2': 'false' }, registered), { message: 'unknown api groups foo.example.com,bar' });
  t.throws(() => resolveRuntimeConfig({ 'autoscaling/v9': 'true' }, registered), { message: 'group version autoscaling/v9 that has not been registered' });
  t.throws(() => resolveRuntimeConfig({ 'batch/v1': 'maybe' }, registered), {
    message: 'invalid value of batch/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
  });
  t.throws(() => resolveRuntimeConfig({ 'api/all': 'yes' }, registered), { message: 'invalid value api/all=yes' });
  t.throws(() => resolveRuntimeConfig({ 'api/all': 'false' }, registered), { message: 'invalid key with only api/all=false' });
  t.throws(() => resolveRuntimeConfig({ 'a/b/c/d': 'true' }, registered), { message: 'runtime-config invalid key a/b/c/d' });
  t.throws(() => resolveRuntimeConfig({ 'batch/v1/CronJobs': 'true' }, registered), /resource is always lowercase plural/);
  t.equal(runtimeConfigSyntaxError({ 'batch/v1': 'false', 'api/alpha': 'true' }), undefined);
  t.equal(runtimeConfigSyntaxError({ 'batch/v1': 'nope' }), 'invalid value of batch/v1: nope, err: strconv.ParseBool: parsing "nope": invalid syntax');
});

t.test('the built-in kinds: every alpha version is off by default', async (t) => {
  const kinds = builtinKinds();
  const served = filterByRuntimeConfig(kinds, {});
  t.ok(served.length > 0);
  t.notOk(served.some((k) => /alpha/.test(k.version)), 'no alpha kind served by default');
  t.same(
    kinds.filter((k) => !served.includes(k)).map((k) => k.version).filter((v, i, a) => a.indexOf(v) === i).every((v) => /alpha/.test(v)),
    true,
    'only alpha kinds are left out',
  );
  const all = filterByRuntimeConfig(kinds, { 'api/alpha': 'true' });
  t.equal(all.length, kinds.length);
});
