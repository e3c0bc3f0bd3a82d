/** CustomResourceDefinition: kube's validation messages, v1beta1 <-> v1 conversion and defaulting, storage as v1. */
import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { apiextensionsKinds } from '../../../src/api/crd';
import { v1beta1ToV1, v1ToV1beta1, v1ToInternal } from '../../../src/api/crd/crd-conversion';
import { defaultCrdV1beta1 } from '../../../src/api/crd/crd-defaults';
import type { SpecV1, SpecV1beta1 } from '../../../src/api/crd/types';
import { isApiError } from '../../../src/api/errors';
import { makeFixture } from '../../helpers/registry-fixture';

const [v1Kind, v1beta1Kind] = apiextensionsKinds();
const texts = (causes: Array<{ field?: string; message?: string }>) => causes.map((c) => `${c.field}: ${c.message}`);
const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } } };

function crd(spec: Record<string, unknown>, meta: Record<string, unknown> = {}, apiVersion = 'apiextensions.k8s.io/v1'): KubeObject {
  const obj: KubeObject = { apiVersion, kind: 'CustomResourceDefinition', metadata: { name: 'foos.example.com', ...meta }, spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'foos', kind: 'Foo' }, ...spec } };
  (apiVersion.endsWith('v1') ? v1Kind : v1beta1Kind).strategy.defaults(obj);
  (apiVersion.endsWith('v1') ? v1Kind : v1beta1Kind).strategy.prepareForCreate!(obj);
  return obj;
}

t.test('names, group, scope, versions', async (t) => {
  const obj = crd(
    {
      group: 'example',
      scope: 'Global',
      names: { plural: 'Foos', kind: 'foo_x', listKind: 'foo_x', shortNames: ['F'], categories: ['all', 'A'] },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v1', served: true, storage: true, schema },
      ],
    },
    { name: 'wrong' },
  );
  t.same(texts(v1Kind.strategy.validate(obj)), [
    'metadata.name: Invalid value: "wrong": must be spec.names.plural+"."+spec.group',
    'spec.group: Invalid value: "example": should be a domain with at least one dot',
    'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
    // kube reports the internal versions: the schema they share moved to spec.validation
    `spec.versions: Invalid value: ${JSON.stringify([{ name: 'v1', served: true, storage: true }, { name: 'v1', served: true, storage: true }])}: must contain unique version names`,
    `spec.versions: Invalid value: ${JSON.stringify([{ name: 'v1', served: true, storage: true }, { name: 'v1', served: true, storage: true }])}: must have exactly one version marked as storage version`,
    'spec.names.plural: Invalid value: "Foos": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')'
      .replace('a lowercase RFC 1123 label', 'a DNS-1035 label')
      .replace("and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')", "start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"),
    'spec.names.singular: Invalid value: "foo_x": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    'spec.names.kind: Invalid value: "foo_x": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    'spec.names.listKind: Invalid value: "foo_x": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    'spec.names.shortNames[0]: Invalid value: "F": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    'spec.names.listKind: Invalid value: "foo_x": kind and listKind may not be the same',
    'spec.names.categories[1]: Invalid value: "A": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    // the second v1 is not in storedVersions any more once the first took it (kube's map)
    'status.storedVersions: Invalid value: {"name":"v1","served":true,"storage":true}: must have the storage version v1',
  ]);
});

t.test('v1 needs structural schemas; v1beta1 is lenient but refuses defaults', async (t) => {
  const versions = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { properties: { spec: { properties: { a: { type: 'string', default: 'x' } } } } } } }];
  const v1 = texts(v1Kind.strategy.validate(crd({ versions })));
  t.same(v1, [
    'spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    'spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root',
  ]);
  const noSchema = texts(v1Kind.strategy.validate(crd({ versions: [{ name: 'v1', served: true, storage: true }] })));
  t.same(noSchema, ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']);
  const beta = crd({ version: 'v1', validation: versions[0].schema }, {}, 'apiextensions.k8s.io/v1beta1');
  t.same(texts(v1beta1Kind.strategy.validate(beta)), [
    'spec.validation.openAPIV3Schema.properties[spec].properties[a].default: Forbidden: must not be set (cannot set default values in apiextensions.k8s.io/v1beta1 CRDs, must use apiextensions.k8s.io/v1)',
  ]);
  const betaNonStructural = crd({ version: 'v1', validation: { openAPIV3Schema: { properties: { spec: { properties: { a: {} } } } } } }, {}, 'apiextensions.k8s.io/v1beta1');
  t.same(v1beta1Kind.strategy.validate(betaNonStructural), [], 'v1beta1 keeps preserveUnknownFields: true and accepts non-structural schemas');
});

t.test('schema rules: x-kubernetes-*, status root, unsupported keywords, defaults', async (t) => {
  const s = (openAPIV3Schema: unknown, sub?: unknown) => crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema }, ...(sub ? { subresources: sub } : {}) }] });
  t.same(texts(v1Kind.strategy.validate(s({ type: 'object', properties: { l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' } } }))), [
    'spec.validation.openAPIV3Schema.properties[l].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"',
  ]);
  t.same(texts(v1Kind.strategy.validate(s({ type: 'object', properties: { m: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } } } } }))), [
    'spec.validation.openAPIV3Schema.properties[m].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map',
  ]);
  t.same(texts(v1Kind.strategy.validate(s({ type: 'object', uniqueItems: true, nullable: true }))), [
    'spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
    'spec.validation.openAPIV3Schema.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
  ]);
  t.match(texts(v1Kind.strategy.validate(s({ type: 'object', anyOf: [{ required: ['x'] }], properties: { x: { type: 'string' } } }, { status: {} })))[0], 'only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields] fields are allowed at the root of the schema if the status subresource is enabled');
  t.same(texts(v1Kind.strategy.validate(s({ type: 'object', properties: { n: { type: 'integer', default: 'x' }, o: { type: 'object', default: { junk: 1 }, properties: {} } } }))), [
    // kube validates a default as a value of its own: its path in the message is empty
    'spec.validation.openAPIV3Schema.properties[n].default: Invalid value: "string":  in body must be of type integer: "string"',
    'spec.validation.openAPIV3Schema.properties[o].default: Invalid value: {"junk":1}: must not have unknown fields',
  ]);
  t.same(texts(v1Kind.strategy.validate(s({ type: 'object', properties: { metadata: { type: 'object', default: {} } } }))), [
    'spec.validation.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in top-level metadata',
  ]);
});

t.test('subresources, columns, conversion, approval', async (t) => {
  const obj = crd({
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema,
        subresources: { scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.spec.replicas', labelSelectorPath: '.x' } },
        additionalPrinterColumns: [{ name: 'A', type: 'bytes', format: 'uuid', jsonPath: 'spec.a' }],
      },
    ],
    conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://x/convert?q=1' }, conversionReviewVersions: ['v2'] } },
  });
  // one version: its subresources and columns are the internal form's top-level ones, as kube reports them
  t.same(texts(v1Kind.strategy.validate(obj)), [
    'spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
    'spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status',
    'spec.subresources.scale.labelSelectorPath: Invalid value: ".x": should be a json path under either .spec or .status',
    'spec.additionalPrinterColumns[0].type: Invalid value: "bytes": must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password',
    'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.a": must be a simple json path starting with .',
    "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    'spec.conversion.webhookClientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
    'spec.conversion.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
  ].map((x) => x.replace('Invalid value: ["v2"]', 'Invalid value: []string{"v2"}')));
  const k8s = crd({ group: 'x.k8s.io', versions: [{ name: 'v1', served: true, storage: true, schema }] }, { name: 'foos.x.k8s.io' });
  t.same(texts(v1Kind.strategy.validate(k8s)), [
    'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
  ]);
  const approved = crd({ group: 'x.k8s.io', versions: [{ name: 'v1', served: true, storage: true, schema }] }, { name: 'foos.x.k8s.io', annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1' } });
  t.same(v1Kind.strategy.validate(approved), []);
});

t.test('v1beta1 <-> v1: top-level fields, JSONPath, version, preserveUnknownFields', async (t) => {
  const beta: SpecV1beta1 = {
    group: 'example.com',
    version: 'v1',
    names: { plural: 'foos', kind: 'Foo' },
    scope: 'Namespaced',
    validation: schema,
    subresources: { status: {} },
    additionalPrinterColumns: [{ name: 'A', type: 'string', JSONPath: '.spec.a' }],
    versions: [
      { name: 'v1', served: true, storage: true },
      { name: 'v2', served: true, storage: false },
    ],
  };
  const obj: KubeObject = { apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition', metadata: { name: 'foos.example.com' }, spec: structuredClone(beta) };
  defaultCrdV1beta1(obj);
  t.equal((obj.spec as SpecV1beta1).preserveUnknownFields, true, 'v1beta1 defaults preserveUnknownFields to true');
  const v1 = v1beta1ToV1(obj.spec as SpecV1beta1);
  t.same(v1.versions, [
    { name: 'v1', served: true, storage: true, subresources: { status: {} }, schema, additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a' }] },
    { name: 'v2', served: true, storage: false, subresources: { status: {} }, schema, additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a' }] },
  ]);
  t.equal(v1.preserveUnknownFields, true);
  const back = v1ToV1beta1(v1);
  t.same(back.validation, schema, 'identical per-version fields move back to the top');
  t.same(back.additionalPrinterColumns, [{ name: 'A', type: 'string', JSONPath: '.spec.a' }]);
  t.same(back.versions, [
    { name: 'v1', served: true, storage: true },
    { name: 'v2', served: true, storage: false },
  ]);
  t.equal(back.version, 'v1');
  const different: SpecV1 = { ...v1, versions: [v1.versions![0], { ...v1.versions![1], schema: { openAPIV3Schema: { type: 'object' } } }] };
  const internal = v1ToInternal(different);
  t.equal(internal.validation, undefined, 'different schemas stay per version');
  t.ok(internal.versions[1].schema);
});

t.test('a v1beta1 CRD is stored as v1 and reads back in both versions', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const beta = f.scheme.byResource('apiextensions.k8s.io', 'v1beta1', 'customresourcedefinitions')!;
  const v1 = f.scheme.byResource('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  const created = await f.registry.create(
    { kind: beta },
    { apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition', metadata: { name: 'foos.example.com' }, spec: { group: 'example.com', version: 'v1', names: { plural: 'foos', kind: 'Foo' }, validation: schema } },
    { dryRun: false },
  );
  t.match(created.object.spec, { version: 'v1', scope: 'Namespaced', preserveUnknownFields: true, validation: schema, versions: [{ name: 'v1', served: true, storage: true }] });
  const stored = JSON.parse((await f.store.get('/registry/apiextensions.k8s.io/customresourcedefinitions/foos.example.com'))!.value) as KubeObject;
  t.equal(stored.apiVersion, 'apiextensions.k8s.io/v1');
  t.match(stored.spec, { preserveUnknownFields: true, versions: [{ name: 'v1', served: true, storage: true, schema }] });
  const asV1 = await f.registry.get({ kind: v1, name: 'foos.example.com' }, {});
  t.same(asV1.spec, { group: 'example.com', names: { plural: 'foos', kind: 'Foo', singular: 'foo', listKind: 'FooList' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema }], conversion: { strategy: 'None' }, preserveUnknownFields: true });
  // v1 refuses to turn preserveUnknownFields on
  try {
    await f.registry.update({ kind: v1, name: 'foos.example.com' }, { ...asV1, spec: { ...(asV1.spec as object) } }, { dryRun: false });
    t.pass('unchanged preserveUnknownFields is allowed on update');
  } catch (err) {
    t.fail(String(err));
  }
  try {
    await f.registry.create({ kind: v1 }, { ...asV1, metadata: { name: 'bars.example.com' }, spec: { ...(asV1.spec as object), names: { plural: 'bars', kind: 'Bar' } } }, { dryRun: false });
    t.fail('expected 422');
  } catch (err) {
    t.ok(isApiError(err));
    t.match((err as Error).message, 'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-preserve-unknown-fields to true in spec.versions[*].schema instead');
  }
});
