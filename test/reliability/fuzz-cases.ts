/**
 * The bad input generator: each case is one HTTP request that MUST fail (so the stored state must
 * not change), with the status codes kube-apiserver would answer it with. Cases are drawn from a
 * seeded PRNG per request index, so `case #i of seed S` always reproduces.
 */
import yaml from 'js-yaml';
import { Prng } from './lib/stats';

export interface FuzzCase {
  category: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** acceptable HTTP status codes (all 4xx) */
  expect: number[];
}

/** what the generator may refer to: objects made before the run */
export interface FuzzWorld {
  ns: string;
  /** an existing ConfigMap in ns and its resourceVersion */
  configMap: string;
  configMapRv: string;
  /** true when history before the setup was compacted (410 cases are then possible) */
  compacted: boolean;
}

const JSON_CT = { 'Content-Type': 'application/json' };
const enc = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));

function validConfigMap(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' }, ...extra };
}

function validDeployment(name: string): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'x' } },
      template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

const invalidNames = [
  'Upper-Case',
  'under_score',
  'dot..dot',
  '-leading-dash',
  'trailing-dash-',
  'a'.repeat(254),
  'space in name',
  'ünïcødé',
  '日本語',
  'emoji-😀',
  'semi;colon',
  'name\u0000nul',
  '.',
  '..',
  'tab\tname',
];
const invalidLabelKeys = ['-bad', 'bad-', 'a/b/c', '/x', 'x/', 'ünï', 'a'.repeat(64), 'Example.COM/x', 'sp ace', `${'d'.repeat(254)}/n`];
const invalidLabelValues = ['-bad', 'bad-', 'a'.repeat(64), 'sp ace', 'ünï', 'a/b', 'x!'];
const badLabelSelectors = ['!!!', 'a in (', 'a notin', 'a=(b', '=x', 'a==b==c', 'a in (b,,c', 'x,', ',', 'a!', 'a>b', 'in (x)', 'a in b', 'a=b c=d', '😀=1', 'a'.repeat(70) + '=x'];
const badFieldSelectors = ['metadata.name', '==x', 'metadata.name!', 'foo.bar=baz', 'metadata.name in (a)', 'metadata.labels=x', 'spec.bogus=1'];
const badResourceVersions = ['abc', '-1', '1.5', '0x10', '1e3', ' 1', '😀', '99999999999999999999999'];
const badContinues = ['garbage', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTF9', '%%%', 'e30', Buffer.from('{"v":"meta.k8s.io/v1","rv":"x","start":"a"}').toString('base64'), Buffer.from('{"v":"bogus/v9","rv":1,"start":"a"}').toString('base64')];
const badDryRun = ['Foo', 'all', 'true', '1', 'None', '😀'];
const badContentTypes = ['text/plain', 'application/xml', 'garbage', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'image/png', 'text/html; charset=utf-8'];
const oddMethods = ['FOOBAR', 'BREW', 'PROPFIND', 'MKCOL', 'LOCK', 'UNLOCK', 'COPY', 'MOVE', 'TRACE', 'PURGE', 'SEARCH', 'REPORT', 'OPTIONS', 'LINK', 'ACL', 'BIND'];

function randomString(r: Prng, len: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-._~%!$&\'()*+,;=:@/ü日😀\u200b'): string {
  const chars = [...alphabet];
  let s = '';
  for (let i = 0; i < len; i++) s += r.pick(chars);
  return s;
}

/** a JSON text that JSON.parse rejects */
function brokenJson(r: Prng, valid: string): string {
  for (;;) {
    let s: string;
    switch (r.int(0, 5)) {
      case 0:
        s = valid.slice(0, r.int(1, valid.length - 1));
        break;
      case 1: {
        const i = r.int(0, valid.length - 1);
        s = valid.slice(0, i) + r.pick(['{', '}', '"', ',', ':', '[', ']', '\\', 'x', '\u0000']) + valid.slice(i);
        break;
      }
      case 2:
        s = valid.replace(/"/g, () => (r.chance(0.1) ? "'" : '"'));
        break;
      case 3:
        s = valid + r.pick(['}', ',', 'garbage', ']']);
        break;
      case 4:
        s = r.pick(['', '{', 'nul', 'tru', '{"a":}', '{,}', '[', '{"metadata":{"name":"x"}', 'NaN', '{"a":1}{"b":2}']);
        break;
      default:
        s = randomString(r, r.int(1, 200), '{}[]":,0123456789abc\\ \n');
    }
    try {
      JSON.parse(s);
    } catch {
      return s;
    }
  }
}

function deep(depth: number, leaf: string): string {
  return '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
}

type Gen = (r: Prng, w: FuzzWorld, i: number) => FuzzCase;

/** POST to the collection or PUT to the existing object (the other pairings are 405 by routing) */
function createOrReplace(r: Prng, w: FuzzWorld): { method: string; path: string } {
  return r.chance(0.5) ? { method: 'POST', path: `/api/v1/namespaces/${w.ns}/configmaps` } : { method: 'PUT', path: `/api/v1/namespaces/${w.ns}/configmaps/${w.configMap}` };
}

/** generators with weights; each returns a request that must fail */
const generators: [number, Gen][] = [
  [8, (r, w) => {
    // broken JSON create bodies
    const body = brokenJson(r, JSON.stringify(validConfigMap(`fz-json-${r.int(0, 1e9)}`)));
    return { category: 'broken-json', ...createOrReplace(r, w), headers: JSON_CT, body: enc(body), expect: [400] };
  }],
  [5, (r, w) => {
    // broken YAML (or YAML that is not an object / not a valid ConfigMap: name invalid)
    const name = r.pick(invalidNames);
    const good = yaml.dump(validConfigMap(name));
    const body = r.pick([
      good.slice(0, r.int(1, good.length - 1)) + '\n  - : [',
      'metadata: {name: x\n',
      '- a\n- b\n',
      'just a string',
      'key: [unclosed',
      ': : :',
      '\t- tab',
      '%YAML 9.9\n---\na: 1',
      'a: &x 1\nb: *y\n',
      good.replace(/:/g, () => (r.chance(0.2) ? '' : ':')),
      good,
    ]);
    return { category: 'broken-yaml', method: 'POST', path: `/api/v1/namespaces/${w.ns}/configmaps`, headers: { 'Content-Type': 'application/yaml' }, body: enc(body), expect: [400, 422] };
  }],
  [5, (r, w) => {
    // broken protobuf: random bytes, a bare magic prefix, a magic prefix with garbage
    const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
    const junk = Buffer.from(Array.from({ length: r.int(0, 300) }, () => r.int(0, 255)));
    const body = r.pick([junk, magic, Buffer.concat([magic, junk]), Buffer.concat([magic, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), junk]), Buffer.alloc(0)]);
    return {
      category: 'broken-protobuf',
      ...createOrReplace(r, w),
      headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' },
      body,
      expect: [400, 415],
    };
  }],
  [8, (r, w) => {
    // wrong types in otherwise valid objects
    const name = `fz-type-${r.int(0, 1e9)}`;
    const obj: any = validConfigMap(name);
    const wrong = r.pick([5, true, 'str', [1, 2], { a: 1 }, null, 1.5]);
    const where = r.int(0, 7);
    if (where === 0) obj.metadata = r.pick([5, 'str', [1], true]);
    else if (where === 1) obj.metadata.name = r.pick([5, true, [name], { n: name }]);
    else if (where === 2) obj.data = r.pick([[1, 2], 'str', 5, true]);
    else if (where === 3) obj.data = { k: r.pick([5, true, [1], { a: 1 }]) };
    else if (where === 4) obj.metadata.labels = r.pick(['str', [1], 5, { a: 5 }, { a: { b: 'c' } }]);
    else if (where === 5) obj.metadata.annotations = r.pick(['str', [1], 5, { a: 5 }]);
    else if (where === 6) obj.binaryData = { k: r.pick(['not base64!!', 5, '%%%']) };
    else obj.immutable = r.pick(['yes', 5, [true], { a: 1 }]);
    void wrong;
    return { category: 'wrong-types', method: 'POST', path: `/api/v1/namespaces/${w.ns}/configmaps`, headers: JSON_CT, body: enc(obj), expect: [400, 422] };
  }],
  [5, (r, w) => {
    // huge, fractional and negative numbers where integers are expected
    const name = `fz-num-${r.int(0, 1e9)}`;
    const number = r.pick(['1e400', '99999999999999999999999999', '-1', '1.5', '-9223372036854775809', '9223372036854775808', '1e-400', '2147483648', '-0.0001']);
    const d = JSON.stringify(validDeployment(name));
    const field = r.pick(['"replicas":1', '"revisionHistoryLimit":1', '"progressDeadlineSeconds":1', '"minReadySeconds":1']);
    const body = field === '"replicas":1' ? d.replace('"replicas":1', `"replicas":${number}`) : d.replace('"replicas":1', `"replicas":1,${field.replace(/1$/, number)}`);
    return { category: 'huge-numbers', method: 'POST', path: `/apis/apps/v1/namespaces/${w.ns}/deployments`, headers: JSON_CT, body: enc(body), expect: [400, 422] };
  }],
  [3, (r, w) => {
    // deep nesting: in data (wrong type at any depth) and as the whole body
    const depth = r.pick([100, 1000, 10_001, 50_000, 200_000]);
    const name = `fz-deep-${r.int(0, 1e9)}`;
    const body = r.chance(0.5)
      ? `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":${deep(depth, '"x"')}}`
      : r.chance(0.5)
        ? '['.repeat(depth) + ']'.repeat(depth)
        : `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labels":${deep(depth, '1')}}}`;
    return { category: 'deep-nesting', method: 'POST', path: `/api/v1/namespaces/${w.ns}/configmaps`, headers: JSON_CT, body: enc(body), expect: [400, 422] };
  }],
  [6, (r, w) => {
    // invalid names (in the body of a create; on PUT the URL carries one too)
    const name = r.pick(invalidNames);
    if (r.chance(0.3)) {
      return { category: 'invalid-names', method: 'POST', path: `/api/v1/namespaces`, headers: JSON_CT, body: enc({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }), expect: [422] };
    }
    return { category: 'invalid-names', method: 'POST', path: `/api/v1/namespaces/${w.ns}/configmaps`, headers: JSON_CT, body: enc(validConfigMap(name)), expect: [422] };
  }],
  [5, (r, w) => {
    // invalid labels and annotations
    const obj: any = validConfigMap(`fz-lbl-${r.int(0, 1e9)}`);
    const which = r.int(0, 2);
    if (which === 0) obj.metadata.labels = { [r.pick(invalidLabelKeys)]: 'v' };
    else if (which === 1) obj.metadata.labels = { ok: r.pick(invalidLabelValues) };
    // annotation keys are checked lower-cased (and without the 63-character name limit on labels' values)
    else obj.metadata.annotations = { [r.pick(invalidLabelKeys.filter((k) => !k.includes('a'.repeat(64)) && k !== 'Example.COM/x'))]: 'v' };
    return { category: 'invalid-labels', method: 'POST', path: `/api/v1/namespaces/${w.ns}/configmaps`, headers: JSON_CT, body: enc(obj), expect: [422] };
  }],
  [6, (r, w) => {
    // invalid label and field selectors on list and watch
    const label = r.chance(0.6);
    const sel = encodeURIComponent(label ? r.pick(badLabelSelectors) : r.pick(badFieldSelectors));
    const watch = r.chance(0.2) ? '&watch=1&timeoutSeconds=1' : '';
    const scope = r.chance(0.5) ? `/api/v1/namespaces/${w.ns}/configmaps` : r.pick(['/api/v1/pods', '/apis/apps/v1/deployments', '/api/v1/namespaces']);
    return { category: 'selectors', method: 'GET', path: `${scope}?${label ? 'labelSelector' : 'fieldSelector'}=${sel}${watch}`, headers: {}, expect: [400] };
  }],
  [5, (r, w) => {
    // invalid resourceVersion parameters and body values
    const rv = r.pick(badResourceVersions);
    const k = r.int(0, 3);
    if (k === 0) return { category: 'resource-versions', method: 'GET', path: `/api/v1/namespaces/${w.ns}/configmaps?resourceVersion=${encodeURIComponent(rv)}&resourceVersionMatch=Exact`, headers: {}, expect: [400, 422] };
    if (k === 1) return { category: 'resource-versions', method: 'GET', path: `/api/v1/namespaces/${w.ns}/configmaps?resourceVersionMatch=${r.pick(['Exact', 'NotOlderThan', 'Bogus'])}`, headers: {}, expect: [400, 422] };
    if (k === 2) return { category: 'resource-versions', method: 'GET', path: `/api/v1/namespaces/${w.ns}/configmaps?watch=1&resourceVersion=${encodeURIComponent(rv)}`, headers: {}, expect: [400, 422] };
    const obj: any = validConfigMap(w.configMap);
    obj.metadata.resourceVersion = rv;
    return { category: 'resource-versions', method: 'PUT', path: `/api/v1/namespaces/${w.ns}/configmaps/${w.configMap}`, headers: JSON_CT, body: enc(obj), expect: [400, 409, 422] };
  }],
  [4, (r, w) => ({
    category: 'continue-tokens',
    method: 'GET',
    path: `/api/v1/namespaces/${w.ns}/configmaps?limit=${r.int(1, 5)}&continue=${encodeURIComponent(r.pick(badContinues))}`,
    headers: {},
    expect: [400],
  })],
  [4, (r, w) => ({
    // valid objects with invalid dryRun values: only the dryRun value makes them fail
    category: 'dry-run',
    method: 'POST',
    path: `/api/v1/namespaces/${w.ns}/configmaps?dryRun=${encodeURIComponent(r.pick(badDryRun))}`,
    headers: JSON_CT,
    body: enc(validConfigMap(`fz-dry-${r.int(0, 1e9)}`)),
    expect: [400, 422],
  })],
  [3, (r, w) => ({
    category: 'field-validation',
    method: 'POST',
    path: `/api/v1/namespaces/${w.ns}/configmaps?fieldValidation=${encodeURIComponent(r.pick(['Bogus', 'strict', 'true', '😀']))}`,
    headers: JSON_CT,
    body: enc(validConfigMap(`fz-fv-${r.int(0, 1e9)}`)),
    expect: [400, 422],
  })],
  [5, (r, w) => ({
    // valid JSON under a content type the server does not decode
    category: 'content-types',
    ...createOrReplace(r, w),
    headers: { 'Content-Type': r.pick(badContentTypes) },
    body: enc(validConfigMap(`fz-ct-${r.int(0, 1e9)}`)),
    expect: [415],
  })],
  [3, (r, w) => ({
    category: 'patch-content-types',
    method: 'PATCH',
    path: `/api/v1/namespaces/${w.ns}/configmaps/${w.configMap}`,
    headers: { 'Content-Type': r.pick([...badContentTypes, 'application/json', 'application/yaml']) },
    body: enc({ data: { k: 'changed' } }),
    expect: [415],
  })],
  [4, (r, w) => ({
    category: 'accept',
    method: 'GET',
    path: r.pick([`/api/v1/namespaces/${w.ns}/configmaps`, `/api/v1/namespaces/${w.ns}/configmaps/${w.configMap}`]),
    headers: { Accept: r.pick(['application/xml', 'text/html', 'image/png', 'application/vnd.bogus', 'text/plain']) },
    expect: [406],
  })],
  [1, (r, w) => {
    // bodies over the 3 MiB limit -> 413 (sent with and without a Content-Length)
    const size = 3 * 1024 * 1024 + r.int(1, 512 * 1024);
    const filler = 'x'.repeat(size);
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fz-big-${r.int(0, 1e9)}"},"data":{"k":"${filler}"}}`;
    const headers: Record<string, string> = r.chance(0.5) ? { ...JSON_CT } : { ...JSON_CT, 'Transfer-Encoding': 'chunked' };
    return { category: 'oversized', ...createOrReplace(r, w), headers, body: enc(body), expect: [413] };
  }],
  [6, (r, w) => {
    // odd paths and unicode: nothing is there
    const seg = () => encodeURIComponent(randomString(r, r.int(1, 20)));
    const path = r.pick([
      `/${seg()}`,
      `/api/v1/${seg()}`,
      `/api/v9/namespaces`,
      `/apis/${seg()}/v1/${seg()}`,
      `/apis/apps/v1/namespaces/${w.ns}/${seg()}`,
      `/api/v1/namespaces/${w.ns}/configmaps/${seg()}`,
      `/api/v1/namespaces/${seg()}/configmaps/${seg()}`,
      `/api/v1/namespaces/${w.ns}/configmaps/${w.configMap}/${seg()}`,
      `/api/v1/namespaces/${w.ns}/configmaps/${w.configMap}/${seg()}/${seg()}`,
      `/api/v1/namespaces/${w.ns}/configmaps/%F0%9F%98%80`,
      `/api/v1/${'x/'.repeat(r.int(10, 200))}`,
      `/api/v1/namespaces/${w.ns}/configmaps/${'a'.repeat(r.int(300, 3000))}`,
    ]);
    return { category: 'odd-paths', method: r.pick(['GET', 'DELETE', 'PUT', 'PATCH']), path, headers: { 'Content-Type': 'application/merge-patch+json' }, body: enc('{}'), expect: [400, 404, 405, 415] };
  }],
  [4, (r, w) => ({
    category: 'odd-methods',
    method: r.pick(oddMethods),
    path: r.pick([`/api/v1/namespaces/${w.ns}/configmaps`, `/api/v1/namespaces/${w.ns}/configmaps/${w.configMap}`, '/api/v1/namespaces', '/apis/apps/v1/deployments']),
    headers: {},
    expect: [400, 404, 405],
  })],
  [2, (r, w) => ({
    category: 'collection-methods',
    method: r.pick(['PUT', 'PATCH']),
    path: r.pick([`/api/v1/namespaces/${w.ns}/configmaps`, '/api/v1/namespaces/no-such/configmaps']),
    headers: JSON_CT,
    body: enc(validConfigMap('x')),
    expect: [404, 405],
  })],
  [4, (r, w) => {
    // conflicts and name mismatches on the existing object; creates in a missing namespace
    const k = r.int(0, 3);
    if (k === 0) return { category: 'already-exists', method: 'POST', path: `/api/v1/namespaces/${w.ns}/configmaps`, headers: JSON_CT, body: enc(validConfigMap(w.configMap, { data: { changed: 'yes' } })), expect: [409] };
    if (k === 1) {
      const obj: any = validConfigMap(w.configMap, { data: { changed: 'yes' } });
      obj.metadata.resourceVersion = String(Math.max(1, Number(w.configMapRv) - r.int(1, 3)));
      return { category: 'stale-update', method: 'PUT', path: `/api/v1/namespaces/${w.ns}/configmaps/${w.configMap}`, headers: JSON_CT, body: enc(obj), expect: [409] };
    }
    if (k === 2) return { category: 'name-mismatch', method: 'PUT', path: `/api/v1/namespaces/${w.ns}/configmaps/${w.configMap}`, headers: JSON_CT, body: enc(validConfigMap(`other-${r.int(0, 1e6)}`)), expect: [400] };
    return { category: 'missing-namespace', method: 'POST', path: `/api/v1/namespaces/no-such-${r.int(0, 1e6)}/configmaps`, headers: JSON_CT, body: enc(validConfigMap(`fz-nons-${r.int(0, 1e9)}`)), expect: [404] };
  }],
  [5, (r, w) => {
    // broken patches: malformed bodies, failing json-patch tests, impossible operations
    const ct = r.pick(['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
    const body =
      ct === 'application/json-patch+json'
        ? r.pick([
            '[{"op":"test","path":"/data/k","value":"not-this"}]',
            '[{"op":"remove","path":"/data/nonexistent"}]',
            '[{"op":"bogus","path":"/data"}]',
            '[{"op":"replace","path":"/metadata/name","value":5}]',
            '[{"op":"add","path":"/data/k","value":{"nested":1}}]',
            '{"op":"add"}',
            '[{"op":"move","from":"/nope","path":"/data/x"}]',
            brokenJson(r, '[{"op":"add","path":"/data/x","value":"1"}]'),
          ])
        : r.pick([
            brokenJson(r, '{"data":{"x":"1"}}'),
            '[1,2,3]',
            '"str"',
            '{"data":{"x":5}}',
            '{"metadata":{"name":"renamed"}}',
            '{"metadata":{"labels":{"-bad":"x"}}}',
            '{"data":"notamap"}',
          ]);
    return { category: 'broken-patches', method: 'PATCH', path: `/api/v1/namespaces/${w.ns}/configmaps/${w.configMap}`, headers: { 'Content-Type': ct }, body: enc(body), expect: [400, 409, 422] };
  }],
  [4, (r, w) => {
    // malformed query parameters
    const p = r.pick([
      'limit=abc',
      'limit=1.5',
      'timeoutSeconds=abc',
      'watch=1&timeoutSeconds=-5x',
      'timeout=forever',
      'timeout=10parsecs',
      'resourceVersionMatch=Exact&resourceVersion=0',
    ]);
    return { category: 'query-params', method: 'GET', path: `/api/v1/namespaces/${w.ns}/configmaps?${p}`, headers: {}, expect: [400, 422] };
  }],
  [2, (r, w) =>
    w.compacted
      ? {
          // history before the setup was compacted: an exact read of revision 1 is gone
          category: 'compacted',
          method: 'GET',
          path: `/api/v1/namespaces/${w.ns}/configmaps?resourceVersion=${r.int(1, 3)}&resourceVersionMatch=Exact`,
          headers: {},
          expect: [410],
        }
      : { category: 'compacted', method: 'GET', path: `/api/v1/namespaces/${w.ns}/configmaps/no-such-${r.int(0, 1e6)}`, headers: {}, expect: [404] },
  ],
];

const totalWeight = generators.reduce((s, [w]) => s + w, 0);

/** case #index of the run with this seed */
export function fuzzCase(seed: number, index: number, world: FuzzWorld): FuzzCase {
  const r = new Prng((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  let x = r.next() * totalWeight;
  for (const [weight, gen] of generators) {
    x -= weight;
    if (x < 0) return gen(r, world, index);
  }
  return generators[0][1](r, world, index);
}

/** the reason a Status must carry for each code */
export const reasonsByCode: Record<number, string[]> = {
  400: ['BadRequest'],
  404: ['NotFound'],
  405: ['MethodNotAllowed'],
  406: ['NotAcceptable'],
  409: ['AlreadyExists', 'Conflict'],
  410: ['Gone', 'Expired'],
  413: ['RequestEntityTooLarge'],
  415: ['UnsupportedMediaType'],
  422: ['Invalid'],
  429: ['TooManyRequests'],
};
