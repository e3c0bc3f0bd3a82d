import t from 'tap';
import { filterPaths, mergeSwagger } from '../../src/openapi/merge';
import { convertV2ToV3 } from '../../src/openapi/v2-to-v3';
import type { SchemaNode } from '../../src/schema/types';
import { extensionOpenApi } from '../helpers/extension-server';

const ours = {
  swagger: '2.0',
  paths: { '/api/v1/pods': { get: {} }, '/version/': { get: { operationId: 'ours' } } },
  definitions: {
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object', description: 'ours' } as SchemaNode,
    'shared.Thing': { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'a', version: 'v1', kind: 'Thing' }] } as SchemaNode,
  },
};

t.test("kube's aggregation of an extension's v2 document", async (t) => {
  const theirs = filterPaths(extensionOpenApi() as never, ['/apis/']);
  t.same(Object.keys(theirs.paths ?? {}).sort(), [
    '/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders',
    '/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders/{name}',
  ]);
  t.notOk(theirs.definitions?.['com.example.wardle.v1alpha1.Unused'], 'definitions no kept path reaches are dropped');
  const merged = mergeSwagger(ours, theirs);
  t.same(merged.paths['/version/'], { get: { operationId: 'ours' } }, 'our paths stay ours');
  t.ok(merged.paths['/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders']);
  t.equal(merged.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].description, 'ours');
  t.equal(merged.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2'].description, 'Trimmed metadata of the wardle server.', 'a conflicting definition is renamed');
  t.same(merged.definitions['com.example.wardle.v1alpha1.Flunder'].properties?.metadata, { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2' }, 'and refs follow it');
  t.same(merged.definitions['com.example.wardle.v1alpha1.FlunderSpec'].properties?.reference, { description: 'Name of the thing the flunder points at.', type: 'string' }, 'defaults pruned');
  t.same(Object.keys(merged.definitions), Object.keys(merged.definitions).slice().sort(), 'definitions sorted');
  t.same(mergeSwagger(ours, theirs), merged, 'the merge is deterministic (documents are merged from ours each time)');
  t.same(ours.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'], { type: 'object', description: 'ours' }, 'inputs unchanged');
});

t.test('equal definitions are shared and their kinds joined', async (t) => {
  const other = { definitions: { 'shared.Thing': { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'b', version: 'v1', kind: 'Thing' }] } as SchemaNode } };
  const merged = mergeSwagger(ours, other);
  t.same(merged.definitions['shared.Thing']['x-kubernetes-group-version-kind'], [
    { group: 'a', version: 'v1', kind: 'Thing' },
    { group: 'b', version: 'v1', kind: 'Thing' },
  ]);
  t.notOk(merged.definitions['shared.Thing_v2']);
});

t.test('v2 to v3: request bodies, typed parameters, responses per media type, components', async (t) => {
  const doc = convertV2ToV3({
    swagger: '2.0',
    info: { title: 'x', version: '1' },
    paths: {
      '/apis/g/v1/things/{name}': {
        parameters: [{ name: 'name', in: 'path', required: true, type: 'string' }],
        put: {
          consumes: ['application/json', 'application/yaml'],
          produces: ['application/json'],
          parameters: [
            { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/g.Thing' } },
            { name: 'dryRun', in: 'query', type: 'string', uniqueItems: true },
          ],
          responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/g.Thing' } }, '401': { description: 'Unauthorized' } },
        },
      },
    },
    definitions: { 'g.Thing': { type: 'object', properties: { spec: { $ref: '#/definitions/g.Spec', description: 'the spec' } } } },
  });
  t.same(doc, {
    openapi: '3.0.0',
    info: { title: 'x', version: '1' },
    paths: {
      '/apis/g/v1/things/{name}': {
        put: {
          requestBody: {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/g.Thing' } }, 'application/yaml': { schema: { $ref: '#/components/schemas/g.Thing' } } },
            required: true,
          },
          parameters: [{ name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } }],
          responses: {
            '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/g.Thing' } } } },
            '401': { description: 'Unauthorized' },
          },
        },
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
      },
    },
    components: { schemas: { 'g.Thing': { type: 'object', properties: { spec: { description: 'the spec', allOf: [{ $ref: '#/components/schemas/g.Spec' }] } } } } },
  });
});
