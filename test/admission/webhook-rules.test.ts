/** which requests a webhook's rules and matchPolicy select (no webhook is called here) */
import t from 'tap';
import { builtinKinds } from '../../src/api/kinds';
import { Scheme } from '../../src/api/scheme';
import type { Registry } from '../../src/api/registry/types';
import type { AdmissionAttributes } from '../../src/admission/types';
import { ruleMatches, type RuleRequest } from '../../src/admission/webhook/rules';
import { matchWebhook } from '../../src/admission/webhook/matcher';
import { timeoutSecondsOf } from '../../src/admission/webhook/client';

const pods: RuleRequest = { operation: 'CREATE', group: '', version: 'v1', resource: 'pods', subresource: '', namespace: 'default' };
const rule = (extra: Record<string, unknown>) => ({ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], ...extra });

t.test('operations, groups and versions: exact or *', async (t) => {
  t.ok(ruleMatches(rule({}), pods));
  t.notOk(ruleMatches(rule({}), { ...pods, operation: 'UPDATE' }));
  t.ok(ruleMatches(rule({ operations: ['*'] }), { ...pods, operation: 'DELETE' }));
  t.notOk(ruleMatches(rule({ apiGroups: ['apps'] }), pods));
  t.ok(ruleMatches(rule({ apiGroups: ['*'] }), pods));
  t.notOk(ruleMatches(rule({ apiVersions: ['v1beta1'] }), pods));
  t.ok(ruleMatches(rule({ apiVersions: ['*'] }), pods));
  t.notOk(ruleMatches(rule({ operations: [] }), pods), 'no operations match nothing');
});

t.test('resource forms: name, *, */*, pods/*, */status', async (t) => {
  const status = { ...pods, subresource: 'status' };
  const exec = { ...pods, subresource: 'exec', operation: 'CONNECT' };
  const any = { operations: ['*'] };
  t.ok(ruleMatches(rule({ resources: ['*'] }), pods));
  t.notOk(ruleMatches(rule({ resources: ['*'] }), status), '* is main resources only');
  t.notOk(ruleMatches(rule({ resources: ['pods'] }), status));
  t.ok(ruleMatches(rule({ resources: ['pods/status'] }), status));
  t.notOk(ruleMatches(rule({ resources: ['pods/status'] }), pods));
  t.ok(ruleMatches(rule({ resources: ['pods/*'], ...any }), exec));
  t.ok(ruleMatches(rule({ resources: ['pods/*'] }), pods), 'as in kube, pods/* also matches pods itself');
  t.notOk(ruleMatches(rule({ resources: ['pods/*'] }), { ...pods, resource: 'services' }));
  t.ok(ruleMatches(rule({ resources: ['*/status'] }), status));
  t.notOk(ruleMatches(rule({ resources: ['*/status'], ...any }), exec));
  t.ok(ruleMatches(rule({ resources: ['*/*'], ...any }), exec));
  t.ok(ruleMatches(rule({ resources: ['*/*'] }), pods));
  t.notOk(ruleMatches(rule({ resources: ['services'] }), pods));
});

t.test('scope: Cluster, Namespaced, *; namespaces count as cluster-scoped', async (t) => {
  const node = { ...pods, resource: 'nodes', namespace: '' };
  const ns = { ...pods, resource: 'namespaces', namespace: 'team' };
  const res = { resources: ['*'] };
  t.ok(ruleMatches(rule({ ...res, scope: 'Namespaced' }), pods));
  t.notOk(ruleMatches(rule({ ...res, scope: 'Namespaced' }), node));
  t.notOk(ruleMatches(rule({ ...res, scope: 'Namespaced' }), ns));
  t.ok(ruleMatches(rule({ ...res, scope: 'Cluster' }), node));
  t.ok(ruleMatches(rule({ ...res, scope: 'Cluster' }), ns));
  t.notOk(ruleMatches(rule({ ...res, scope: 'Cluster' }), pods));
  for (const r of [pods, node, ns]) t.ok(ruleMatches(rule({ ...res, scope: '*' }), r));
});

t.test('matchPolicy, subresource kinds, and the configurations themselves', async (t) => {
  const scheme = new Scheme(builtinKinds());
  const registry = {} as Registry; // empty selectors never read it
  const kind = (g: string, v: string, r: string) => scheme.byResource(g, v, r)!;
  const attrs = (k: ReturnType<typeof kind>, subresource = '', object?: AdmissionAttributes['object']): AdmissionAttributes => ({
    operation: 'UPDATE', kind: k, subresource, namespace: 'default', name: 'x', dryRun: false, object,
  });
  const entry = (hook: Record<string, unknown>) => ({ configurationName: 'c', index: 0, hook: { name: 'h', namespaceSelector: {}, objectSelector: {}, ...hook } });
  const ingressRule = { operations: ['*'], apiGroups: ['networking.k8s.io'], apiVersions: ['v1'], resources: ['ingresses'] };
  const legacy = kind('extensions', 'v1beta1', 'ingresses');
  const ing = { apiVersion: 'extensions/v1beta1', kind: 'Ingress', metadata: { name: 'x' } };

  const eq = await matchWebhook(entry({ rules: [ingressRule], matchPolicy: 'Equivalent' }), attrs(legacy, '', ing), { registry, scheme });
  t.equal(eq?.resource, kind('networking.k8s.io', 'v1', 'ingresses'), 'extensions/v1beta1 ingresses match a networking.k8s.io/v1 rule');
  t.equal(eq?.converted, true);
  t.same(eq?.objectKind, { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' });
  t.equal(await matchWebhook(entry({ rules: [ingressRule], matchPolicy: 'Exact' }), attrs(legacy, '', ing), { registry, scheme }), undefined);

  const other = await matchWebhook(entry({ rules: [{ ...ingressRule, resources: ['ingresses/status'] }] }), attrs(legacy, 'status', { apiVersion: 'v1', kind: 'Status' }), { registry, scheme });
  t.equal(other?.converted, false, 'an object of another kind is not converted');
  t.same(other?.objectKind, { group: 'extensions', version: 'v1beta1', kind: 'Ingress' }, 'and keeps the request version');

  const deployRule = { operations: ['*'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'] };
  const scale = await matchWebhook(entry({ rules: [deployRule] }), attrs(kind('apps', 'v1', 'deployments'), 'scale', { apiVersion: 'autoscaling/v1', kind: 'Scale' }), { registry, scheme });
  t.same(scale?.objectKind, { group: 'autoscaling', version: 'v1', kind: 'Scale' }, 'scale requests carry a Scale');

  const all = { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] };
  const cfg = kind('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations');
  t.equal(await matchWebhook(entry({ rules: [all] }), { ...attrs(cfg), namespace: '' }, { registry, scheme }), undefined, 'webhook configurations never go to webhooks');
});

t.test('timeoutSeconds: default 10, capped at 30', async (t) => {
  t.equal(timeoutSecondsOf({}), 10);
  t.equal(timeoutSecondsOf({ timeoutSeconds: 5 }), 5);
  t.equal(timeoutSecondsOf({ timeoutSeconds: 300 }), 30);
});
