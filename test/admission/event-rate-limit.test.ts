import t from 'tap';
import { buildAdmission, loadAdmissionConfig } from '../../src/admission/index';
import { eventRateLimit } from '../../src/admission/plugins/event-rate-limit';
import { AdmissionObjects } from '../../src/admission/context';
import type { AdmissionPluginContext } from '../../src/admission/context';
import { DEFAULT_ADMISSION_FLAGS } from '../../src/admission/context';
import type { AdmissionAttributes } from '../../src/admission/types';
import { Scheme } from '../../src/api/scheme';
import { builtinKinds } from '../../src/api/kinds';
import { isApiError } from '../../src/api/errors';
import { admissionConfigWithPath } from './config-helpers';

const scheme = new Scheme(builtinKinds());
const contextWith = (configuration: unknown): AdmissionPluginContext => ({ objects: new AdmissionObjects(scheme), flags: DEFAULT_ADMISSION_FLAGS, configuration });
const event = (namespace: string, user = 'alice'): AdmissionAttributes => ({
  operation: 'CREATE', kind: scheme.byResource('', 'v1', 'events')!, subresource: '', namespace, name: 'e', dryRun: false,
  user: { name: user, groups: [] },
  object: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace }, involvedObject: { kind: 'Pod', name: 'p' } },
});

async function refusal(p: Promise<void>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    if (!isApiError(err)) throw err;
    return `${err.code} ${err.status.reason} ${err.status.message}`;
  }
}

t.test('EventRateLimit: token buckets per namespace and for the server; 429 in kube\'s words', async (t) => {
  let now = 0;
  const plugin = eventRateLimit(contextWith({
    apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration',
    limits: [{ type: 'Namespace', qps: 1, burst: 2 }, { type: 'Server', qps: 0.001, burst: 5 }],
  }), () => now);
  t.equal(await refusal(plugin.validate(event('a'))), undefined);
  t.equal(await refusal(plugin.validate(event('a'))), undefined);
  t.equal(await refusal(plugin.validate(event('a'))), '429 TooManyRequests Too many requests: limit reached on type Namespace for key a');
  t.equal(await refusal(plugin.validate(event('b'))), undefined, 'another namespace has its own bucket');
  now += 1000;
  t.equal(await refusal(plugin.validate(event('a'))), undefined, 'a token came back after a second');
  t.equal(await refusal(plugin.validate(event('c'))), undefined);
  t.equal(await refusal(plugin.validate(event('d'))), '429 TooManyRequests Too many requests: limit reached on type Server for key ');
  const pods = { ...event('a'), kind: scheme.byResource('', 'v1', 'pods')! };
  t.equal(await refusal(plugin.validate(pods)), undefined, 'only events are limited');
});

t.test('EventRateLimit: User and SourceAndObject keys', async (t) => {
  const plugin = eventRateLimit(contextWith({
    apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration',
    limits: [{ type: 'User', qps: 0.001, burst: 1 }],
  }), () => 0);
  t.equal(await refusal(plugin.validate(event('a', 'alice'))), undefined);
  t.equal(await refusal(plugin.validate(event('a', 'bob'))), undefined);
  t.equal(await refusal(plugin.validate(event('a', 'alice'))), '429 TooManyRequests Too many requests: limit reached on type User for key alice');
  const byObject = eventRateLimit(contextWith({ apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'SourceAndObject', qps: 0.001, burst: 1 }] }), () => 0);
  await byObject.validate(event('a'));
  t.equal(await refusal(byObject.validate(event('a'))), '429 TooManyRequests Too many requests: limit reached on type SourceAndObject for key Podp');
});

t.test('EventRateLimit: the configuration is required and checked; errors name the file', async (t) => {
  t.throws(() => buildAdmission({ scheme, enabled: ['EventRateLimit'] }), { message: 'admission plugin EventRateLimit: a configuration is required (give one in --admission-control-config-file)' });
  const { file, ownFile } = admissionConfigWithPath(t, 'EventRateLimit', 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Galaxy\n  qps: 1\n  burst: 1\n');
  t.throws(() => buildAdmission({ scheme, enabled: ['EventRateLimit'], configurations: loadAdmissionConfig(file) }),
    { message: `admission-control-config-file ${ownFile}: EventRateLimit: limits[0].type: Unsupported value: "Galaxy": supported values: "Server", "Namespace", "User", "SourceAndObject"` });
  const zero = admissionConfigWithPath(t, 'EventRateLimit', 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 0\n  burst: 1\n');
  t.throws(() => buildAdmission({ scheme, enabled: ['EventRateLimit'], configurations: loadAdmissionConfig(zero.file) }), { message: /limits\[0\]\.qps: Invalid value: 0: must be positive$/ });
});
