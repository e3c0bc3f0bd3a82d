import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { create, fields, kind } from './helpers';

const GROUP = 'admissionregistration.k8s.io';

const hook = (extra: Record<string, unknown> = {}) => ({
  name: 'pods.policy.example.com',
  clientConfig: { service: { namespace: 'policy', name: 'webhook' } },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
  ...extra,
});

const config = (k: string, version: string, webhooks: unknown[]): KubeObject => ({ apiVersion: `${GROUP}/${version}`, kind: k, metadata: { name: 'c' }, webhooks });

t.test('v1 defaults fail closed; sideEffects and admissionReviewVersions are required', async (t) => {
  const v = kind(GROUP, 'v1', 'ValidatingWebhookConfiguration');
  const obj = config('ValidatingWebhookConfiguration', 'v1', [hook()]);
  const causes = create(v, obj);
  const h = (obj.webhooks as Record<string, unknown>[])[0];
  t.same(
    [h.failurePolicy, h.matchPolicy, h.timeoutSeconds, h.namespaceSelector, h.objectSelector, h.sideEffects, h.admissionReviewVersions],
    ['Fail', 'Equivalent', 10, {}, {}, undefined, undefined],
  );
  t.same((h.rules as Record<string, unknown>[])[0].scope, '*');
  t.same((h.clientConfig as { service: { port: number } }).service.port, 443);
  t.same(causes, [
    { reason: 'FieldValueRequired', message: 'Required value: must specify one of None, NoneOnDryRun', field: 'webhooks[0].sideEffects' },
    { reason: 'FieldValueRequired', message: 'Required value: must specify one of v1, v1beta1', field: 'webhooks[0].admissionReviewVersions' },
  ]);
  const some = config('ValidatingWebhookConfiguration', 'v1', [hook({ sideEffects: 'Some', admissionReviewVersions: ['v1'] })]);
  t.same(create(v, some), [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"', field: 'webhooks[0].sideEffects' }]);
});

t.test('v1beta1 defaults: Ignore, Exact, Unknown side effects, 30s, [v1beta1]; mutating hooks Never reinvoke', async (t) => {
  const m = kind(GROUP, 'v1beta1', 'MutatingWebhookConfiguration');
  const obj = config('MutatingWebhookConfiguration', 'v1beta1', [hook(), hook()]);
  t.same(create(m, obj), [], 'duplicate names are allowed in v1beta1');
  const h = (obj.webhooks as Record<string, unknown>[])[0];
  t.same(
    [h.failurePolicy, h.matchPolicy, h.sideEffects, h.timeoutSeconds, h.admissionReviewVersions, h.reinvocationPolicy],
    ['Ignore', 'Exact', 'Unknown', 30, ['v1beta1'], 'Never'],
  );
  const v1 = kind(GROUP, 'v1', 'MutatingWebhookConfiguration');
  const dup = config('MutatingWebhookConfiguration', 'v1', [hook({ sideEffects: 'None', admissionReviewVersions: ['v1'] }), hook({ sideEffects: 'None', admissionReviewVersions: ['v1'] })]);
  t.same(create(v1, dup), [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "pods.policy.example.com"', field: 'webhooks[1].name' }]);
  t.same(v1.toStorage!(obj).apiVersion, `${GROUP}/v1`);
});

const v1hook = (extra: Record<string, unknown>) => hook({ sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra });

t.test("kube's validation of names, rules, policies, timeouts and client config", async (t) => {
  const v = kind(GROUP, 'v1', 'ValidatingWebhookConfiguration');
  const check = (extra: Record<string, unknown>) => create(v, config('ValidatingWebhookConfiguration', 'v1', [v1hook(extra)]));
  t.same(check({ name: 'example.com' }), [{ reason: 'FieldValueInvalid', message: 'Invalid value: "example.com": should be a domain with at least three segments separated by dots', field: 'webhooks[0].name' }]);
  t.same(fields(check({ name: '' })), ['webhooks[0].name']);
  t.same(fields(check({ rules: [{ operations: ['CREATE', '*', 'PATCH'], apiGroups: ['*', 'apps'], apiVersions: [''], resources: ['*', 'pods'], scope: 'Everywhere' }] })), [
    'webhooks[0].rules[0].operations',
    'webhooks[0].rules[0].operations[2]',
    'webhooks[0].rules[0].apiGroups',
    'webhooks[0].rules[0].apiVersions[0]',
    'webhooks[0].rules[0].resources',
    'webhooks[0].rules[0].scope',
  ]);
  t.same(check({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['pods/*', 'pods/status'] }] }), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "pods/status": if \'pods/*\' is present, must not specify pods/status', field: 'webhooks[0].rules[0].resources[1]' },
  ]);
  t.same(check({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*', 'pods'] }] })[0].message,
    'Invalid value: []string{"*/*", "pods"}: if \'*/*\' is present, must not specify other resources');
  t.same(check({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*', '*/scale'] }] }), [], '* with subresources is fine');
  t.same(fields(check({ failurePolicy: 'Maybe', matchPolicy: 'Loose', timeoutSeconds: 31 })), [
    'webhooks[0].failurePolicy', 'webhooks[0].matchPolicy', 'webhooks[0].timeoutSeconds',
  ]);
  t.same(check({ clientConfig: {} }), [{ reason: 'FieldValueRequired', message: 'Required value: exactly one of url or service is required', field: 'webhooks[0].clientConfig' }]);
  t.same(check({ clientConfig: { url: 'http://user@example.com/x?q=1#f' } }).map((c) => c.message), [
    "Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    'Invalid value: "user": user information is not permitted in the URL',
    'Invalid value: "f": fragments are not permitted in the URL',
    'Invalid value: "q=1": query parameters are not permitted in the URL',
  ]);
  t.same(check({ clientConfig: { url: 'https://example.com/hook' } }), []);
  t.same(check({ clientConfig: { service: { namespace: '', name: 'w', path: 'x//', port: 70000 } } }).map((c) => c.field), [
    'webhooks[0].clientConfig.service.namespace',
    'webhooks[0].clientConfig.service.port',
    // "x//": no leading slash, then the segments of "/" are two empty ones
    'webhooks[0].clientConfig.service.path',
    'webhooks[0].clientConfig.service.path',
    'webhooks[0].clientConfig.service.path',
  ]);
  t.same(fields(check({ namespaceSelector: { matchLabels: { 'bad key!': 'x' } } })), ['webhooks[0].namespaceSelector.matchLabels']);
  t.same(fields(check({ admissionReviewVersions: ['v2', 'v2'] })), ['webhooks[0].admissionReviewVersions[1]', 'webhooks[0].admissionReviewVersions']);
  t.same(fields(check({ matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: '' }] })), [
    'webhooks[0].matchConditions[1].name', 'webhooks[0].matchConditions[1].expression',
  ]);
  const m = kind(GROUP, 'v1', 'MutatingWebhookConfiguration');
  t.same(fields(create(m, config('MutatingWebhookConfiguration', 'v1', [v1hook({ reinvocationPolicy: 'Always' })]))), ['webhooks[0].reinvocationPolicy']);
});

t.test('updates keep objects that already broke the v1-only rules writable', async (t) => {
  const v = kind(GROUP, 'v1', 'ValidatingWebhookConfiguration');
  const old = config('ValidatingWebhookConfiguration', 'v1', [hook({ sideEffects: 'Unknown', admissionReviewVersions: ['v1beta1'] })]);
  const next = config('ValidatingWebhookConfiguration', 'v1', [hook({ sideEffects: 'Unknown', admissionReviewVersions: ['v1beta1'], timeoutSeconds: 5 })]);
  v.strategy.defaults(old);
  v.strategy.defaults(next);
  t.same(v.strategy.validate(next, old), []);
  t.same(fields(v.strategy.validate(next)), ['webhooks[0].sideEffects'], 'but not on create');
});

t.test('table: name, number of webhooks, age', async (t) => {
  const v = kind(GROUP, 'v1', 'ValidatingWebhookConfiguration');
  t.same(v.table!.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Webhooks', 'integer'], ['Age', 'string']]);
  const obj = config('ValidatingWebhookConfiguration', 'v1', [hook(), hook()]);
  obj.metadata!.creationTimestamp = '2024-05-01T10:00:00Z';
  t.same(v.table!.cells(obj, new Date('2024-05-01T10:00:30Z')), ['c', 2, '30s']);
  t.same(v.categories, ['api-extensions']);
});
