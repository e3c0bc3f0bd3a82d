import t from 'tap';
import { parseRequestInfo } from '../../src/http/request-info';
import { flowDistinguisher, matchesFlowSchema } from '../../src/flowcontrol/matching';
import type { FlowSchemaSpec } from '../../src/flowcontrol/matching';

const req = (method: string, path: string, query = '') => parseRequestInfo(method, path, new URLSearchParams(query));
const alice = { name: 'alice', groups: ['dev', 'system:authenticated'] };
const sa = { name: 'system:serviceaccount:kube-system:builder', groups: ['system:serviceaccounts', 'system:authenticated'] };

const resources = (rule: object, subjects: object[] = [{ kind: 'Group', group: { name: '*' } }]): FlowSchemaSpec => ({
  rules: [{ subjects, resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true, ...rule }] }],
});

t.test('subjects: users, groups, service accounts and `*`', async (t) => {
  const pods = req('GET', '/api/v1/namespaces/a/pods');
  t.ok(matchesFlowSchema(resources({}, [{ kind: 'User', user: { name: 'alice' } }]), alice, pods));
  t.notOk(matchesFlowSchema(resources({}, [{ kind: 'User', user: { name: 'bob' } }]), alice, pods));
  t.ok(matchesFlowSchema(resources({}, [{ kind: 'User', user: { name: '*' } }]), alice, pods));
  t.ok(matchesFlowSchema(resources({}, [{ kind: 'Group', group: { name: 'dev' } }]), alice, pods));
  t.notOk(matchesFlowSchema(resources({}, [{ kind: 'Group', group: { name: 'ops' } }]), alice, pods));
  t.ok(matchesFlowSchema(resources({}, [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: 'builder' } }]), sa, pods));
  t.ok(matchesFlowSchema(resources({}, [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }]), sa, pods));
  t.notOk(matchesFlowSchema(resources({}, [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'default', name: '*' } }]), sa, pods));
  t.notOk(matchesFlowSchema(resources({}, [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }]), alice, pods));
});

t.test('resource rules: verbs, groups, resources and subresources, namespaces and cluster scope', async (t) => {
  t.ok(matchesFlowSchema(resources({ verbs: ['list'] }), alice, req('GET', '/api/v1/namespaces/a/pods')));
  t.notOk(matchesFlowSchema(resources({ verbs: ['get'] }), alice, req('GET', '/api/v1/namespaces/a/pods')));
  t.ok(matchesFlowSchema(resources({ apiGroups: ['apps'] }), alice, req('GET', '/apis/apps/v1/namespaces/a/deployments')));
  t.notOk(matchesFlowSchema(resources({ apiGroups: [''] }), alice, req('GET', '/apis/apps/v1/namespaces/a/deployments')));
  t.ok(matchesFlowSchema(resources({ resources: ['deployments/scale'] }), alice, req('PUT', '/apis/apps/v1/namespaces/a/deployments/d/scale')));
  t.notOk(matchesFlowSchema(resources({ resources: ['deployments'] }), alice, req('PUT', '/apis/apps/v1/namespaces/a/deployments/d/scale')));
  t.ok(matchesFlowSchema(resources({ namespaces: ['a'] }), alice, req('GET', '/api/v1/namespaces/a/pods')));
  t.notOk(matchesFlowSchema(resources({ namespaces: ['b'] }), alice, req('GET', '/api/v1/namespaces/a/pods')));
  t.ok(matchesFlowSchema(resources({ namespaces: [], clusterScope: true }), alice, req('GET', '/api/v1/nodes')));
  t.notOk(matchesFlowSchema(resources({ namespaces: ['*'], clusterScope: false }), alice, req('GET', '/api/v1/nodes')), 'cluster-scoped needs clusterScope');
  t.notOk(matchesFlowSchema(resources({}), alice, req('GET', '/healthz')), 'resource rules never match paths');
});

t.test('non-resource rules: `*`, exact paths and prefixes', async (t) => {
  const spec = (urls: string[], verbs = ['get']): FlowSchemaSpec => ({ rules: [{ subjects: [{ kind: 'User', user: { name: '*' } }], nonResourceRules: [{ verbs, nonResourceURLs: urls }] }] });
  t.ok(matchesFlowSchema(spec(['*']), alice, req('GET', '/version')));
  t.ok(matchesFlowSchema(spec(['/healthz']), alice, req('GET', '/healthz')));
  t.ok(matchesFlowSchema(spec(['/healthz/*']), alice, req('GET', '/healthz/etcd')));
  t.notOk(matchesFlowSchema(spec(['/hea']), alice, req('GET', '/healthz')));
  t.notOk(matchesFlowSchema(spec(['/healthz']), alice, req('POST', '/healthz')), 'verb must match');
  t.ok(matchesFlowSchema(spec(['/healthz'], ['*']), alice, req('POST', '/healthz')));
  t.notOk(matchesFlowSchema(spec(['*']), alice, req('GET', '/api/v1/pods')), 'non-resource rules never match resources');
});

t.test('flow distinguishers', async (t) => {
  const pods = req('GET', '/api/v1/namespaces/a/pods');
  t.equal(flowDistinguisher({ distinguisherMethod: { type: 'ByUser' } }, alice, pods), 'alice');
  t.equal(flowDistinguisher({ distinguisherMethod: { type: 'ByNamespace' } }, alice, pods), 'a');
  t.equal(flowDistinguisher({ distinguisherMethod: { type: 'ByNamespace' } }, alice, req('GET', '/api/v1/nodes')), '');
  t.equal(flowDistinguisher({}, alice, pods), '');
});
