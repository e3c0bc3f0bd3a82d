import t from 'tap';
import type { APIService } from '../../src/aggregator/apiservice';
import type { FetchedResponse } from '../../src/aggregator/proxy';
import { RemoteOpenApi } from '../../src/aggregator/remote-openapi';
import { builtinKinds } from '../../src/api/kinds';
import { Scheme } from '../../src/api/scheme';
import { createOpenApiService } from '../../src/openapi/service';
import { definitions } from '../../src/schema';
import { extensionOpenApi } from '../helpers/extension-server';

const registration = (name: string, group: string, version: string): APIService => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name },
  spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'x', name: 'api' } },
});

const answer = (status: number, body?: unknown): FetchedResponse => ({ status, headers: {}, body: Buffer.from(body === undefined ? '' : JSON.stringify(body)) });

t.test('a server with its own /openapi/v3: its entry is linked, the document proxied, not served here', async (t) => {
  const remote = new RemoteOpenApi({
    fetch: async (s, path) => {
      if (path === '/openapi/v2') return answer(200, extensionOpenApi());
      if (path === '/openapi/v3') {
        return answer(200, { paths: { 'apis/wardle.example.com/v1alpha1': { serverRelativeURL: '/openapi/v3/apis/wardle.example.com/v1alpha1?hash=ABC' }, apis: { serverRelativeURL: '/openapi/v3/apis?hash=X' } } });
      }
      return answer(404);
    },
  });
  const s = registration('v1alpha1.wardle.example.com', 'wardle.example.com', 'v1alpha1');
  remote.update(s.metadata.name, s);
  await remote.refresh(s.metadata.name);
  t.same([...remote.v3Links()], [['apis/wardle.example.com/v1alpha1', '/openapi/v3/apis/wardle.example.com/v1alpha1?hash=ABC']], 'only the registration\'s own group/version');
  t.same([...remote.v3Documents().keys()], []);
  t.equal(remote.linked('apis/wardle.example.com/v1alpha1'), s, 'its document requests go to that server');

  const service = createOpenApiService({ scheme: new Scheme(builtinKinds()), definitions, version: 'v1.32.0', extension: remote });
  const index = JSON.parse(service.v3Index().body.toString()) as { paths: Record<string, { serverRelativeURL: string }> };
  t.equal(index.paths['apis/wardle.example.com/v1alpha1'].serverRelativeURL, '/openapi/v3/apis/wardle.example.com/v1alpha1?hash=ABC');
  t.match(index.paths['apis'].serverRelativeURL, /^\/openapi\/v3\/apis\?hash=[0-9A-F]+$/, 'our own entries stay ours');
  t.equal(service.v3('apis/wardle.example.com/v1alpha1'), undefined);
  const v2 = JSON.parse(service.v2Json().body.toString()) as { definitions: Record<string, unknown> };
  t.ok(v2.definitions['com.example.wardle.v1alpha1.Flunder'], 'v2 merged');

  const before = remote.generation();
  remote.update(s.metadata.name, undefined);
  t.ok(remote.generation() > before, 'a removed registration changes the documents');
  const after = JSON.parse(service.v2Json().body.toString()) as { definitions: Record<string, unknown> };
  t.notOk(after.definitions['com.example.wardle.v1alpha1.Flunder'], 'and they are rebuilt without it');
  t.same([...remote.v3Links()], []);
});

t.test('a failed download keeps the last documents; a server without /openapi/v3 gets its v2 converted', async (t) => {
  let up = true;
  const remote = new RemoteOpenApi({
    fetch: async (_s, path) => {
      if (!up) throw new Error('service unavailable');
      return path === '/openapi/v2' ? answer(200, extensionOpenApi()) : answer(404);
    },
  });
  const s = registration('v1alpha1.wardle.example.com', 'wardle.example.com', 'v1alpha1');
  remote.update(s.metadata.name, s);
  await remote.refresh(s.metadata.name);
  const doc = remote.v3Documents().get('apis/wardle.example.com/v1alpha1') as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
  t.same(Object.keys(doc.paths).sort(), [
    '/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders',
    '/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders/{name}',
  ]);
  t.ok(doc.components.schemas['com.example.wardle.v1alpha1.Flunder']);
  up = false;
  const generation = remote.generation();
  await remote.refresh(s.metadata.name);
  t.equal(remote.generation(), generation);
  t.equal(remote.v2Documents().length, 1);
});
