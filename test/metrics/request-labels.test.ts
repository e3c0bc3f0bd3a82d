import t from 'tap';
import { parseRequestInfo } from '../../src/http/request-info';
import { dryRunLabel, requestLabels, requestScope, reportedVerb } from '../../src/metrics/request-labels';

function labels(method: string, url: string, contentType = '') {
  const u = new URL(url, 'https://x');
  return requestLabels(method, parseRequestInfo(method, u.pathname, u.searchParams), u.searchParams, contentType);
}

t.test('verbs as kube reports them', async (t) => {
  t.equal(labels('GET', '/api/v1/namespaces/a/configmaps/x').verb, 'GET');
  t.equal(labels('GET', '/api/v1/namespaces/a/configmaps').verb, 'LIST');
  t.equal(labels('GET', '/api/v1/configmaps').verb, 'LIST');
  t.equal(labels('GET', '/api/v1/configmaps?watch=true').verb, 'WATCH');
  t.equal(labels('GET', '/api/v1/watch/namespaces/a/configmaps').verb, 'WATCH', 'the deprecated /watch/ prefix');
  t.equal(labels('POST', '/api/v1/namespaces/a/configmaps').verb, 'POST');
  t.equal(labels('PUT', '/api/v1/namespaces/a/configmaps/x').verb, 'PUT');
  t.equal(labels('PATCH', '/api/v1/namespaces/a/configmaps/x', 'application/merge-patch+json').verb, 'PATCH');
  t.equal(labels('PATCH', '/api/v1/namespaces/a/configmaps/x', 'application/apply-patch+yaml').verb, 'APPLY');
  t.equal(labels('DELETE', '/api/v1/namespaces/a/configmaps/x').verb, 'DELETE');
  t.equal(labels('DELETE', '/api/v1/namespaces/a/configmaps').verb, 'DELETE', 'deletecollection is reported as DELETE');
  t.equal(labels('HEAD', '/api/v1/namespaces/a/configmaps/x').verb, 'GET');
  t.equal(labels('POST', '/api/v1/namespaces/a/pods/p/exec').verb, 'POST', 'connect subresources are reported by method, as kube does');
  t.equal(labels('OPTIONS', '/api/v1/namespaces/a/configmaps/x').verb, 'other', 'unknown methods share one value');
  t.equal(labels('BREW', '/version').verb, 'other');
  t.equal(reportedVerb('GET', { isResourceRequest: false, verb: 'get', path: '/healthz' }), 'GET');
});

t.test('scope: resource for named objects and creates, namespace, cluster, none', async (t) => {
  t.equal(labels('GET', '/api/v1/namespaces/a/configmaps/x').scope, 'resource');
  t.equal(labels('POST', '/api/v1/namespaces/a/configmaps').scope, 'resource', 'kube counts a create as a resource request');
  t.equal(labels('GET', '/api/v1/namespaces/a/configmaps').scope, 'namespace');
  t.equal(labels('GET', '/api/v1/configmaps').scope, 'cluster');
  t.equal(labels('GET', '/api/v1/namespaces/a').scope, 'resource');
  t.equal(requestScope({ isResourceRequest: false, verb: 'get', path: '/version' }), '');
});

t.test('dry_run: sorted distinct values, invalid for anything but All', async (t) => {
  t.equal(dryRunLabel(new URLSearchParams('')), '');
  t.equal(dryRunLabel(new URLSearchParams('dryRun=All')), 'All');
  t.equal(dryRunLabel(new URLSearchParams('dryRun=All&dryRun=All')), 'All');
  t.equal(dryRunLabel(new URLSearchParams('dryRun=Some')), 'invalid');
  t.equal(labels('POST', '/api/v1/namespaces/a/configmaps?dryRun=All').dry_run, 'All');
});

t.test('group, version, resource, subresource and component', async (t) => {
  t.same(labels('PUT', '/apis/apps/v1/namespaces/a/deployments/d/scale'), {
    verb: 'PUT',
    dry_run: '',
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    subresource: 'scale',
    scope: 'resource',
    component: 'apiserver',
  });
  const health = labels('GET', '/readyz/etcd');
  t.equal(health.subresource, '/readyz/etcd', 'instrumented non-resource paths are named');
  t.equal(health.component, '');
  t.equal(labels('GET', '/some/random/path').subresource, '', 'other paths share one series');
});
