import t from 'tap';
import { isLongRunning, isMutating, isTrueFlag, parseRequestInfo } from '../../src/http/request-info';
import { parseGoDuration } from '../../src/http/middleware/request-timeout';
import { parseAccept } from '../../src/http/negotiate';

const q = (s = '') => new URLSearchParams(s);

t.test('request info from method, path and query', async (t) => {
  t.match(parseRequestInfo('GET', '/api/v1/namespaces/ns/pods/p', q()), { isResourceRequest: true, verb: 'get', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'p' });
  t.match(parseRequestInfo('GET', '/api/v1/namespaces', q()), { verb: 'list', resource: 'namespaces', namespace: undefined });
  t.match(parseRequestInfo('GET', '/api/v1/namespaces/ns', q()), { verb: 'get', resource: 'namespaces', name: 'ns', namespace: undefined });
  t.match(parseRequestInfo('PUT', '/api/v1/namespaces/ns/status', q()), { verb: 'update', resource: 'namespaces', name: 'ns', subresource: 'status' });
  t.match(parseRequestInfo('PUT', '/api/v1/namespaces/ns/finalize', q()), { resource: 'namespaces', name: 'ns', subresource: 'finalize' });
  t.match(parseRequestInfo('PATCH', '/apis/apps/v1/namespaces/d/deployments/x/scale', q()), { verb: 'patch', group: 'apps', subresource: 'scale' });
  t.match(parseRequestInfo('DELETE', '/apis/apps/v1/namespaces/d/deployments', q()), { verb: 'deletecollection' });
  t.match(parseRequestInfo('GET', '/apis/apps/v1/deployments', q('watch=true')), { verb: 'watch', namespace: undefined });
  t.match(parseRequestInfo('GET', '/apis/apps/v1/deployments', q('watch=false')), { verb: 'list' });
  t.match(parseRequestInfo('GET', '/apis/apps/v1/deployments', q('watch=0')), { verb: 'list' });
  t.match(parseRequestInfo('GET', '/apis/apps/v1/deployments', q('watch')), { verb: 'watch' }, 'a bare flag is true, as kube reads it');
  t.match(parseRequestInfo('GET', '/apis/apps/v1/namespaces/d/deployments/x', q('watch=true')), { verb: 'get' }, 'watch only turns lists into watches');
  t.match(parseRequestInfo('GET', '/apis/apps/v1/watch/namespaces/d/deployments/x', q()), { verb: 'watch', watchPath: true, name: 'x', namespace: 'd' });
  for (const p of ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/healthz', '/version', '/apis/apps/v1/watch']) {
    t.equal(parseRequestInfo('GET', p, q()).isResourceRequest, false, p);
  }
  t.equal(isTrueFlag('FALSE'), false);
  t.equal(isTrueFlag(''), true);
});

t.test('long-running and mutating requests', async (t) => {
  t.equal(isLongRunning(parseRequestInfo('GET', '/api/v1/pods', q('watch=1'))), true);
  t.equal(isLongRunning(parseRequestInfo('GET', '/api/v1/pods', q())), false);
  t.equal(isLongRunning(parseRequestInfo('GET', '/api/v1/namespaces/d/pods/p/log', q())), true);
  t.equal(isMutating(parseRequestInfo('POST', '/api/v1/namespaces/d/pods', q())), true);
  t.equal(isMutating(parseRequestInfo('GET', '/api/v1/pods', q())), false);
  t.equal(isMutating(parseRequestInfo('GET', '/healthz', q())), false);
});

t.test('Go durations and Accept headers', async (t) => {
  t.equal(parseGoDuration('32s'), 32000);
  t.equal(parseGoDuration('1m30s'), 90000);
  t.equal(parseGoDuration('1.5h'), 5400000);
  t.equal(parseGoDuration('250ms'), 250);
  t.equal(parseGoDuration('0'), 0);
  t.equal(parseGoDuration('5'), undefined);
  t.equal(parseGoDuration('s'), undefined);
  t.same(
    parseAccept('text/*;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io, */*;q=0.8, application/yaml;q=0').map((c) => `${c.type}/${c.subType}`),
    ['application/json', '*/*', 'text/*'],
  );
});
