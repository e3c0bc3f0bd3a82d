/**
 * A container's environment as kubelet 1.20 builds it: each source, the order, $(VAR) expansion,
 * service links, the InvalidEnvironmentVariableNames event and kube's errors for missing sources.
 */
import t from 'tap';
import { expand, mappingFor } from '../../src/nodeagent/env/expansion';
import { makeEnvironmentVariables, type EnvContext } from '../../src/nodeagent/env/make-env';
import type { Pod } from '../../src/nodeagent/types';
import { FakeObjectSources, FakeRecorder } from '../helpers/fake-object-sources';

function setup(): { ctx: EnvContext; sources: FakeObjectSources; recorder: FakeRecorder } {
  const sources = new FakeObjectSources();
  const recorder = new FakeRecorder();
  return { sources, recorder, ctx: { sources, recorder, hostIP: '10.0.0.5', allocatable: { cpu: '4', memory: '8Gi', 'ephemeral-storage': '100Gi' } } };
}

function pod(spec: Record<string, unknown> = {}): Pod {
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { name: 'web', namespace: 'shop', uid: 'u-1', labels: { app: 'web', tier: 'front' }, annotations: { note: 'hi "there"' } },
    spec: { nodeName: 'node-a', serviceAccountName: 'robot', enableServiceLinks: false, containers: [], ...spec },
  };
}

const asMap = (envs: { name: string; value: string }[]) => Object.fromEntries(envs.map((e) => [e.name, e.value]));

t.test('expansion follows kube: $$ escapes, unknown and unterminated references stay', async (t) => {
  const m = mappingFor(new Map([['A', 'x'], ['B', '$(A)']]));
  t.equal(expand('$(A)-$(B)', m), 'x-$(A)', 'values are not expanded twice');
  t.equal(expand('$$(A)', m), '$(A)', '$$ is a literal $');
  t.equal(expand('$(MISSING)', m), '$(MISSING)');
  t.equal(expand('$(A', m), '$(A', 'unterminated');
  t.equal(expand('a$', m), 'a$', 'trailing operator');
  t.equal(expand('$A $(A)', m), '$A x', 'a $ not followed by ( is kept');
  t.equal(expand('$$$$', m), '$$');
  t.equal(expand('$()', m), '$()', 'an empty name is unknown');
});

t.test('values, fieldRef, resourceFieldRef and expansion in declared order', async (t) => {
  const { ctx } = setup();
  const container = {
    name: 'app',
    resources: { limits: { memory: '64Mi' }, requests: { cpu: '250m' } },
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
      { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      { name: 'NOTE', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['note']" } } },
      { name: 'LABELS', valueFrom: { fieldRef: { fieldPath: 'metadata.labels' } } },
      { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'SA', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
      { name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'POD_IPS', valueFrom: { fieldRef: { fieldPath: 'status.podIPs' } } },
      { name: 'MEM_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
      { name: 'CPU_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
      { name: 'CPU_REQ_M', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m' } } },
      { name: 'CPU_REQ', valueFrom: { resourceFieldRef: { resource: 'requests.cpu' } } },
      { name: 'EPH', valueFrom: { resourceFieldRef: { resource: 'limits.ephemeral-storage', divisor: '1Gi' } } },
      { name: 'GREETING', value: 'hello $(POD_NAME) in $(NS), $(LATER) $$(NS)' },
      { name: 'LATER', value: 'late' },
    ],
  };
  const envs = await makeEnvironmentVariables(ctx, pod(), container, ['10.1.0.7', 'fd00::7']);
  const env = asMap(envs);
  t.same(envs.map((e) => e.name), container.env.map((e) => e.name), 'declared order');
  t.equal(env.POD_NAME, 'web');
  t.equal(env.NS, 'shop');
  t.equal(env.UID, 'u-1');
  t.equal(env.APP, 'web');
  t.equal(env.NOTE, 'hi "there"');
  t.equal(env.LABELS, 'app="web"\ntier="front"');
  t.equal(env.NODE, 'node-a');
  t.equal(env.SA, 'robot');
  t.equal(env.HOST_IP, '10.0.0.5');
  t.equal(env.POD_IP, '10.1.0.7');
  t.equal(env.POD_IPS, '10.1.0.7,fd00::7');
  t.equal(env.MEM_MI, '64');
  t.equal(env.CPU_LIMIT, '4', 'an unset limit reads as the node allocatable');
  t.equal(env.CPU_REQ_M, '250');
  t.equal(env.CPU_REQ, '1', 'rounded up');
  t.equal(env.EPH, '100');
  t.equal(env.GREETING, 'hello web in shop, $(LATER) $(NS)', 'only earlier variables expand');
});

t.test('configMapKeyRef and secretKeyRef, optional and missing', async (t) => {
  const { ctx, sources } = setup();
  sources.configMap('shop', 'settings', { mode: 'fast' });
  sources.secret('shop', 'creds', { password: 's3cret' });
  const ok = await makeEnvironmentVariables(ctx, pod(), {
    name: 'app',
    env: [
      { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } },
      { name: 'PASS', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
      { name: 'OPT_KEY', valueFrom: { configMapKeyRef: { name: 'settings', key: 'nope', optional: true } } },
      { name: 'OPT_CM', valueFrom: { configMapKeyRef: { name: 'absent', key: 'x', optional: true } } },
      { name: 'OPT_SECRET', valueFrom: { secretKeyRef: { name: 'absent', key: 'x', optional: true } } },
    ],
  }, []);
  t.same(ok, [{ name: 'MODE', value: 'fast' }, { name: 'PASS', value: 's3cret' }], 'optional misses leave the variable out');

  const fail = (env: unknown[]) => makeEnvironmentVariables(ctx, pod(), { name: 'app', env }, []);
  await t.rejects(fail([{ name: 'X', valueFrom: { configMapKeyRef: { name: 'absent', key: 'x' } } }]), { message: 'configmap "absent" not found' });
  await t.rejects(fail([{ name: 'X', valueFrom: { configMapKeyRef: { name: 'settings', key: 'y' } } }]), { message: "couldn't find key y in ConfigMap shop/settings" });
  await t.rejects(fail([{ name: 'X', valueFrom: { secretKeyRef: { name: 'absent', key: 'x' } } }]), { message: 'secret "absent" not found' });
  await t.rejects(fail([{ name: 'X', valueFrom: { secretKeyRef: { name: 'creds', key: 'user' } } }]), { message: "couldn't find key user in Secret shop/creds" });
});

t.test('envFrom with prefixes, env overriding it, invalid names skipped with an event', async (t) => {
  const { ctx, sources, recorder } = setup();
  sources.configMap('shop', 'settings', { MODE: 'fast', 'bad key': '1', '1abc': '2', LEVEL: '3' });
  sources.secret('shop', 'creds', { TOKEN: 't', 'a=b': 'x' });
  const envs = await makeEnvironmentVariables(ctx, pod(), {
    name: 'app',
    envFrom: [
      { configMapRef: { name: 'settings' } },
      { prefix: 'S_', secretRef: { name: 'creds' } },
      { configMapRef: { name: 'absent', optional: true } },
    ],
    env: [{ name: 'LEVEL', value: 'override-$(MODE)' }],
  }, []);
  const env = asMap(envs);
  t.equal(env.MODE, 'fast');
  t.equal(env.LEVEL, 'override-fast', 'env replaces envFrom and sees its values');
  t.equal(env.S_TOKEN, 't');
  t.notOk('bad key' in env);
  t.same(recorder.events, [
    { kind: 'Pod', name: 'web', type: 'Warning', reason: 'InvalidEnvironmentVariableNames', message: 'Keys [1abc, bad key] from the EnvFrom configMap shop/settings were skipped since they are considered invalid environment variable names.' },
    { kind: 'Pod', name: 'web', type: 'Warning', reason: 'InvalidEnvironmentVariableNames', message: 'Keys [S_a=b] from the EnvFrom secret shop/creds were skipped since they are considered invalid environment variable names.' },
  ]);
  await t.rejects(makeEnvironmentVariables(ctx, pod(), { name: 'app', envFrom: [{ secretRef: { name: 'absent' } }] }, []), { message: 'secret "absent" not found' });
});

t.test('service links: the namespace services when enabled, the master service always', async (t) => {
  const { ctx, sources } = setup();
  sources.service('shop', 'redis-main', '10.96.0.20', [{ name: 'db', port: 6379 }, { name: 'metrics', port: 9121, protocol: 'UDP' }]);
  sources.service('shop', 'headless', 'None', [{ port: 80 }]);
  sources.service('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443 }]);
  sources.service('default', 'other', '10.96.0.9', [{ port: 80 }]);
  sources.service('other-ns', 'elsewhere', '10.96.0.10', [{ port: 80 }]);

  const linked = asMap(await makeEnvironmentVariables(ctx, pod({ enableServiceLinks: undefined }), { name: 'app', env: [{ name: 'URL', value: '$(REDIS_MAIN_SERVICE_HOST):$(REDIS_MAIN_SERVICE_PORT)' }] }, []));
  t.same(linked, {
    URL: '10.96.0.20:6379',
    KUBERNETES_SERVICE_HOST: '10.96.0.1',
    KUBERNETES_SERVICE_PORT: '443',
    KUBERNETES_SERVICE_PORT_HTTPS: '443',
    KUBERNETES_PORT: 'tcp://10.96.0.1:443',
    KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443',
    KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
    KUBERNETES_PORT_443_TCP_PORT: '443',
    KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
    REDIS_MAIN_SERVICE_HOST: '10.96.0.20',
    REDIS_MAIN_SERVICE_PORT: '6379',
    REDIS_MAIN_SERVICE_PORT_DB: '6379',
    REDIS_MAIN_SERVICE_PORT_METRICS: '9121',
    REDIS_MAIN_PORT: 'tcp://10.96.0.20:6379',
    REDIS_MAIN_PORT_6379_TCP: 'tcp://10.96.0.20:6379',
    REDIS_MAIN_PORT_6379_TCP_PROTO: 'tcp',
    REDIS_MAIN_PORT_6379_TCP_PORT: '6379',
    REDIS_MAIN_PORT_6379_TCP_ADDR: '10.96.0.20',
    REDIS_MAIN_PORT_9121_UDP: 'udp://10.96.0.20:9121',
    REDIS_MAIN_PORT_9121_UDP_PROTO: 'udp',
    REDIS_MAIN_PORT_9121_UDP_PORT: '9121',
    REDIS_MAIN_PORT_9121_UDP_ADDR: '10.96.0.20',
  }, 'headless services and other namespaces are left out');

  const unlinked = await makeEnvironmentVariables(ctx, pod({ enableServiceLinks: false }), { name: 'app', env: [{ name: 'KUBERNETES_SERVICE_HOST', value: 'mine' }] }, []);
  t.same(asMap(unlinked).KUBERNETES_SERVICE_HOST, 'mine', 'a declared variable replaces the service one');
  t.equal(unlinked.filter((e) => e.name === 'KUBERNETES_SERVICE_HOST').length, 1);
  t.notOk(unlinked.some((e) => e.name.startsWith('REDIS')), 'no namespace services when disabled');
  t.ok(unlinked.some((e) => e.name === 'KUBERNETES_PORT'), 'the master service still');
});

t.test('an unsupported field path or resource fails', async (t) => {
  const { ctx } = setup();
  await t.rejects(makeEnvironmentVariables(ctx, pod(), { name: 'app', env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.bogus' } } }] }, []), { message: 'unsupported fieldPath: spec.bogus' });
  await t.rejects(makeEnvironmentVariables(ctx, pod(), { name: 'app', env: [{ name: 'X', valueFrom: { resourceFieldRef: { resource: 'limits.gpu' } } }] }, []), { message: 'unsupported container resource : limits.gpu' });
});
