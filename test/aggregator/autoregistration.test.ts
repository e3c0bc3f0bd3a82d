import t from 'tap';
import type { APIService } from '../../src/aggregator/apiservice';
import { autoRegisterAction } from '../../src/aggregator/autoregistration';
import { desiredLocalAPIServices, localAPIService } from '../../src/aggregator/local-apiservices';
import type { DesiredAPIService } from '../../src/aggregator/local-apiservices';
import { builtinKinds } from '../../src/api/kinds';
import { Scheme } from '../../src/api/scheme';

const onStart: DesiredAPIService = { mode: 'onstart', object: localAPIService('apps', 'v1', { group: 17800, version: 15 }, 'onstart') };
const always: DesiredAPIService = { mode: 'true', object: localAPIService('stable.example.com', 'v1', { group: 1000, version: 100 }, 'true') };

function current(label: string | undefined, spec = onStart.object.spec): APIService {
  return { ...onStart.object, metadata: { name: 'v1.apps', uid: 'u1', labels: label ? { 'kube-aggregator.kubernetes.io/automanaged': label } : {} }, spec: { ...spec } };
}
const changed = { ...onStart.object.spec, groupPriorityMinimum: 5 };

t.test("kube's autoregister table", async (t) => {
  const fresh = { syncedBefore: false, presentAtStart: true };
  const synced = { syncedBefore: true, presentAtStart: true };
  // 2. missing
  t.equal(autoRegisterAction(undefined, undefined, fresh), 'none');
  t.equal(autoRegisterAction(onStart, undefined, fresh), 'create', 'on start: create once');
  t.equal(autoRegisterAction(onStart, undefined, synced), 'none', '... and only once');
  t.equal(autoRegisterAction(always, undefined, synced), 'create', 'always: create');
  // 3. not automanaged: never touched
  t.equal(autoRegisterAction(undefined, current(undefined), fresh), 'none');
  t.equal(autoRegisterAction(always, current(undefined, changed), fresh), 'none');
  // 4. on start, absent at start
  t.equal(autoRegisterAction(undefined, current('onstart'), { syncedBefore: false, presentAtStart: false }), 'none');
  // 5. on start, present at start
  t.equal(autoRegisterAction(undefined, current('onstart'), fresh), 'delete', 'delete once');
  t.equal(autoRegisterAction(undefined, current('onstart'), synced), 'none');
  t.equal(autoRegisterAction(onStart, current('onstart', changed), fresh), 'update', 'update once');
  t.equal(autoRegisterAction(onStart, current('onstart', changed), synced), 'none');
  t.equal(autoRegisterAction(onStart, current('onstart'), fresh), 'none', 'already as wanted');
  // 6. always
  t.equal(autoRegisterAction(undefined, current('true'), synced), 'delete');
  t.equal(autoRegisterAction(always, current('true', changed), synced), 'update');
  t.equal(autoRegisterAction(onStart, current('true', changed), synced), 'none', 'desired on start: once');
});

t.test('the local registrations the Scheme asks for', async (t) => {
  const kinds = builtinKinds();
  const scheme = new Scheme(kinds);
  const builtin = new Set(kinds.map((k) => (k.group ? `${k.group}/${k.version}` : k.version)));
  const custom = { ...kinds.find((k) => k.resource === 'configmaps')!, group: 'stable.example.com', version: 'v1', kind: 'CronTab', resource: 'crontabs' };
  scheme.add([custom]);
  const desired = desiredLocalAPIServices(scheme, builtin);
  // every built-in group/version but apiregistration's own, in the Scheme's order, then the custom one
  const builtinNames = scheme.groups().filter((g) => g.name !== 'apiregistration.k8s.io' && g.name !== 'stable.example.com').flatMap((g) => g.versions.map((v) => `${v}.${g.name}`));
  t.ok(builtinNames.length > 40, 'the built-in groups are all there');
  t.same([...desired.keys()], [...builtinNames, 'v1.stable.example.com']);
  t.notOk(desired.has('v1.apiregistration.k8s.io'), 'kube registers none for apiregistration.k8s.io');
  t.same(desired.get('v1.')?.object, {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1.', labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
    spec: { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 },
  });
  t.same(desired.get('v1beta1.batch')?.object.spec, { group: 'batch', version: 'v1beta1', groupPriorityMinimum: 17400, versionPriority: 9 });
  t.same(desired.get('v1.stable.example.com'), {
    mode: 'true',
    object: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.stable.example.com', labels: { 'kube-aggregator.kubernetes.io/automanaged': 'true' } },
      spec: { group: 'stable.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 },
    },
  });
});
