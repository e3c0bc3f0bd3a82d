/** Structural schemas: kube's structural rules, pruning, defaulting, nullable, int-or-string, embedded resources, list types, value validation. */
import t from 'tap';
import { newStructural, StructuralError } from '../../../src/api/crd/schema/structural';
import { validateStructural } from '../../../src/api/crd/schema/structural-validation';
import { prune } from '../../../src/api/crd/schema/pruning';
import { applyDefaults, pruneDefaults, pruneNonNullableNulls } from '../../../src/api/crd/schema/defaulting';
import { validateValue } from '../../../src/api/crd/schema/value-validator';
import { coerceEmbedded, validateEmbedded } from '../../../src/api/crd/schema/objectmeta';
import { validateListSetsAndMaps } from '../../../src/api/crd/schema/listtype';
import type { JSONSchemaProps } from '../../../src/api/crd/types';

const texts = (causes: Array<{ field?: string; message?: string }>) => causes.map((c) => `${c.field}: ${c.message}`);

t.test('structural rules, in kube words and order', async (t) => {
  const s = newStructural({
    properties: {
      spec: { type: 'object', properties: { a: {}, b: { type: 'array' } }, additionalProperties: { type: 'string' } },
      metadata: { type: 'object', properties: { name: { type: 'string' }, labels: { type: 'object' } } },
      x: { type: 'object', anyOf: [{ type: 'string' }, { properties: { y: { type: 'string' } } }] },
      e: { 'x-kubernetes-embedded-resource': true },
    },
  } as JSONSchemaProps);
  t.same(texts(validateStructural('spec.validation.openAPIV3Schema', s)), [
    'spec.validation.openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
    'spec.validation.openAPIV3Schema.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true',
    'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    'spec.validation.openAPIV3Schema.properties[spec].properties[a].type: Required value: must not be empty for specified object fields',
    'spec.validation.openAPIV3Schema.properties[spec].properties[b].items: Required value: must be specified',
    'spec.validation.openAPIV3Schema.properties[x].anyOf[0].type: Forbidden: must be empty to be structural',
    // kube checks the completeness of junctors at the root only (validateStructuralCompleteness)
    'spec.validation.openAPIV3Schema.properties[x].anyOf[1].properties[y].type: Forbidden: must be empty to be structural',
    'spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root',
  ]);
  t.same(validateStructural('', newStructural({ type: 'object', properties: { p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } })), [], 'int-or-string exception');
  t.throws(() => newStructural({ type: 'object', $ref: '#/x' }), /OpenAPIV3Schema '\$ref' is not supported/);
  t.same(texts(validateStructural('', newStructural({ type: 'object', properties: { x: { type: 'string' } }, anyOf: [{ properties: { y: { type: 'string' } } }] }))), [
    'anyOf[0].properties[y].type: Forbidden: must be empty to be structural',
    'properties[y]: Required value: because it is defined in anyOf[0].properties[y]',
  ]);
  t.ok(StructuralError);
  t.throws(() => newStructural({ type: 'object', items: [{ type: 'string' }] } as JSONSchemaProps), /must be a schema, but is an array/);
});

t.test('pruning: unknown fields, preserve-unknown-fields, embedded resources, the resource root', async (t) => {
  const s = newStructural({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          list: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { typed: { type: 'object', properties: { t: { type: 'string' } } } } },
          map: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
          emb: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
        },
      },
    },
  });
  const obj = {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'n' },
    spec: {
      a: 'a',
      b: 'gone',
      list: [{ k: '1', z: 2 }],
      free: { any: 1, typed: { t: 'x', u: 'gone' } },
      map: { m1: { v: 'v', w: 'gone' } },
      emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {}, status: 'gone' },
    },
    status: 'gone',
  };
  const dropped = prune(obj, s, true);
  t.same(obj, {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'n' },
    spec: { a: 'a', list: [{ k: '1' }], free: { any: 1, typed: { t: 'x' } }, map: { m1: { v: 'v' } }, emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } },
  });
  t.same(dropped.sort(), ['spec.b', 'spec.emb.status', 'spec.free.typed.u', 'spec.list[0].z', 'spec.map.m1.w', 'status'].sort());
});

t.test('defaulting: missing fields, non-nullable nulls, items and map values; nullable kept', async (t) => {
  const s = newStructural({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: {},
        properties: {
          replicas: { type: 'integer', default: 1 },
          mode: { type: 'string', default: 'fast' },
          note: { type: 'string', nullable: true, default: 'n' },
          other: { type: 'string' },
          items: { type: 'array', items: { type: 'object', default: { x: 1 }, properties: { x: { type: 'integer' } } } },
          map: { type: 'object', additionalProperties: { type: 'string', default: 'd' } },
        },
      },
    },
  });
  const a: Record<string, unknown> = {};
  applyDefaults(a, s);
  t.same(a, { spec: { replicas: 1, mode: 'fast', note: 'n' } }, 'defaults of a defaulted parent apply too');
  const b = { spec: { replicas: null, note: null, other: null, items: [null, { x: 2 }], map: { k: null } } };
  pruneNonNullableNulls(b, s);
  t.same(b.spec.other, undefined, 'a non-nullable null without default is dropped');
  applyDefaults(b, s);
  t.same(b, { spec: { replicas: 1, note: null, mode: 'fast', items: [{ x: 1 }, { x: 2 }], map: { k: 'd' } } });
  // defaults are pruned by their own schema when the kind is served
  const withJunk = newStructural({ type: 'object', properties: { spec: { type: 'object', default: { a: 1, junk: 2 }, properties: { a: { type: 'integer' } } } } });
  pruneDefaults(withJunk);
  t.same(withJunk.properties!.spec.default, { a: 1 });
});

t.test('value validation: kube-openapi messages', async (t) => {
  const schema: JSONSchemaProps = {
    type: 'object',
    required: ['spec'],
    properties: {
      spec: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 2, maxLength: 5 },
          n: { type: 'integer', minimum: 1, maximum: 3 },
          x: { type: 'number', exclusiveMinimum: true, minimum: 0, multipleOf: 0.5 },
          email: { type: 'string', format: 'email' },
          uuid: { type: 'string', format: 'uuid' },
          i32: { type: 'string', format: 'int32' },
          ios: { 'x-kubernetes-int-or-string': true },
          nullable: { type: 'string', nullable: true },
          notNull: { type: 'string' },
          list: { type: 'array', maxItems: 1, items: { type: 'integer' } },
          one: { type: 'string', enum: ['a', 1] },
          any: { anyOf: [{ minimum: 10 }, { maximum: 0 }] },
        },
      },
    },
  };
  t.same(texts(validateValue(schema, {})), ['spec: Required value']);
  const causes = texts(
    validateValue(schema, {
      spec: { name: 'toolong', n: 5, x: 0.3, email: 'nope', uuid: 'x', i32: 'fine', ios: 1.5, nullable: null, notNull: null, list: [1, 'a'], one: 'b', any: 5 },
    }),
  );
  t.same(causes, [
    'spec.name: Invalid value: "toolong": spec.name in body should be at most 5 chars long',
    'spec.n: Invalid value: 5: spec.n in body should be less than or equal to 3',
    'spec.x: Invalid value: 0.3: spec.x in body should be a multiple of 0.5',
    'spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"',
    'spec.uuid: Invalid value: "x": spec.uuid in body must be of type uuid: "x"',
    'spec.ios: Invalid value: "number": spec.ios in body must be of type integer,string: "number"',
    'spec.notNull: Invalid value: "null": spec.notNull in body must be of type string: "null"',
    'spec.list[1]: Invalid value: "string": spec.list[1] in body must be of type integer: "string"',
    'spec.list: Invalid value: 2: spec.list in body should have at most 1 items',
    'spec.one: Unsupported value: "b": supported values: "a", "1"',
    '<nil>: Invalid value: "": "spec.any" must validate at least one schema (anyOf)',
    'spec.any: Invalid value: 5: spec.any in body should be greater than or equal to 10',
  ]);
});

t.test('embedded resources: coercion and validation', async (t) => {
  const s = newStructural({ type: 'object', properties: { tpl: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } });
  const bad = { tpl: { apiVersion: 5, kind: 'Pod' } };
  t.match(coerceEmbedded(bad, s, false).error, { field: 'tpl.apiVersion', message: 'Invalid value: 5: must be a string' });
  const drop = { tpl: { apiVersion: 5, kind: 'Pod', metadata: { name: 'p', odd: 1, creationTimestamp: null } } };
  const r = coerceEmbedded(drop, s, true);
  t.same(drop, { tpl: { kind: 'Pod', metadata: { name: 'p' } } });
  t.same(r.unknown, ['tpl.metadata.odd']);
  t.same(texts(validateEmbedded({ tpl: { apiVersion: 'a/b/c', kind: 'Bad_Kind', metadata: { name: 'a/b', labels: { '-x': 'y' } } } }, s)), [
    'tpl.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
    'tpl.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    'tpl.metadata.name: Invalid value: "a/b": may not contain \'/\'',
    'tpl.metadata.labels: Invalid value: "-x": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
  ]);
});

t.test('list types: sets and maps are unique', async (t) => {
  const s = newStructural({
    type: 'object',
    properties: {
      set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      map: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } },
    },
  });
  t.same(texts(validateListSetsAndMaps(s, { set: ['a', 'b', 'a', 'a'], map: [{ name: 'x' }, { name: 'x', v: 1 }] })), [
    'set[2]: Duplicate value: "a"',
    'map[1]: Duplicate value: map[string]string{"name":"x"}',
  ]);
  t.same(texts(validateListSetsAndMaps(s, { map: ['x'] })), ['map[0]: Invalid value: "x": must be an object for an array of list-type map']);
});

t.test("patterns are Go regular expressions (RE2), matched anywhere in the value", async (t) => {
  // prometheus-operator's PrometheusRule CRD uses Go's (?i) flag, which JavaScript's RegExp refuses
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      strategy: { type: 'string', pattern: '^(?i)(abort|warn)?$' },
      word: { type: 'string', pattern: '[[:alpha:]]+' },
      tail: { type: 'string', pattern: 'end\\z' },
    },
  };
  t.same(validateValue(schema, { strategy: 'ABORT', word: '12ab34', tail: 'the end' }), [], '(?i), POSIX classes, \\z and unanchored matching as in Go');
  t.same(texts(validateValue(schema, { strategy: 'stop', word: '1234', tail: 'the end\n' })), [
    "strategy: Invalid value: \"stop\": strategy in body should match '^(?i)(abort|warn)?$'",
    "word: Invalid value: \"1234\": word in body should match '[[:alpha:]]+'",
    "tail: Invalid value: \"the end\\n\": tail in body should match 'end\\z'",
  ]);
  const structural = newStructural({ type: 'object', properties: { a: { type: 'string', pattern: '(?i)ok' }, b: { type: 'string', pattern: '(?<=a)b' } } });
  t.same(
    texts(validateStructural('spec.validation.openAPIV3Schema', structural)).filter((m) => m.includes('pattern')),
    ['spec.validation.openAPIV3Schema.properties[b].pattern: Invalid value: "(?<=a)b": must be a valid regular expression, but isn\'t: error parsing regexp: invalid named capture: `(?<=a)b`'],
    'a look-behind is no Go syntax; (?i) is',
  );
});
