import t from 'tap';
import { builtinKinds } from '../../src/api/kinds';
import { Scheme } from '../../src/api/scheme';
import { buildOpenApiV2 } from '../../src/openapi/v2';
import { encodeOpenApiV2, openApiV2DocumentType } from '../../src/openapi/v2-proto';
import { definitions } from '../../src/schema';
import { documentFromProto } from './v2-from-proto';
import { startRealServer } from './server';

const PROTO_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PROTO_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const type = openApiV2DocumentType();
const doc = buildOpenApiV2({ scheme: new Scheme(builtinKinds()), definitions, version: 'v1.32.0' });

/** the JSON form with object key order irrelevant and parameter key order normalised */
const canonical = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, val) => (val && typeof val === 'object' && !Array.isArray(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => (a < b ? -1 : 1))) : val)));

t.test('the protobuf decodes with the same .proto back to the same document', async (t) => {
  const bytes = encodeOpenApiV2(doc, type);
  const decoded = type.toObject(type.decode(bytes), { defaults: false }) as Record<string, any>;
  t.equal(decoded.swagger, '2.0');
  const back = documentFromProto(decoded);
  t.same(canonical(back), canonical(doc));
});

t.test('vendor extensions are NamedAny with YAML text, as kubectl parses them', async (t) => {
  const decoded = type.toObject(type.decode(encodeOpenApiV2(doc, type)), { defaults: false }) as Record<string, any>;
  const path = decoded.paths.path.find((p: any) => p.name === '/apis/apps/v1/namespaces/{namespace}/deployments/{name}');
  const ext = Object.fromEntries(path.value.patch.vendor_extension.map((e: any) => [e.name, e.value.yaml]));
  t.same(ext, { 'x-kubernetes-action': 'patch\n', 'x-kubernetes-group-version-kind': 'group: apps\nkind: Deployment\nversion: v1\n' });
  const dryRun = path.value.patch.parameters.find((p: any) => p.parameter.non_body_parameter?.query_parameter_sub_schema?.name === 'dryRun');
  t.same(dryRun.parameter.non_body_parameter.query_parameter_sub_schema.in, 'query');
  const spec = decoded.definitions.additional_properties.find((d: any) => d.name === 'io.k8s.api.core.v1.PodSpec').value;
  const containers = spec.properties.additional_properties.find((p: any) => p.name === 'containers').value;
  t.same(containers.type, { value: ['array'] });
  const containerExt = Object.fromEntries(containers.vendor_extension.map((e: any) => [e.name, e.value.yaml]));
  t.equal(containerExt['x-kubernetes-patch-merge-key'], 'name\n');
  t.equal(containerExt['x-kubernetes-patch-strategy'], 'merge\n');
  t.equal(containers.items.schema[0]._ref, '#/definitions/io.k8s.api.core.v1.Container');
});

t.test('GET /openapi/v2: JSON or protobuf by Accept, strong ETags, 304 on If-None-Match, 406 otherwise', async (t) => {
  const s = await startRealServer();
  t.teardown(() => s.close());
  const json = await fetch(`${s.url}/openapi/v2?timeout=32s`, { headers: { Accept: 'application/json' } });
  t.equal(json.status, 200);
  t.equal(json.headers.get('content-type'), 'application/json');
  const jsonDoc = (await json.json()) as { swagger: string; paths: Record<string, unknown> };
  t.equal(jsonDoc.swagger, '2.0');
  t.ok(jsonDoc.paths['/apis/apps/v1/namespaces/{namespace}/deployments']);
  const jsonTag = json.headers.get('etag') as string;
  t.match(jsonTag, /^"[0-9A-F]{128}"$/);

  for (const accept of [PROTO_ACCEPT, PROTO_TYPE]) {
    const pb = await fetch(`${s.url}/openapi/v2`, { headers: { Accept: accept } });
    t.equal(pb.status, 200, accept);
    t.equal(pb.headers.get('content-type'), PROTO_TYPE);
    const bytes = Buffer.from(await pb.arrayBuffer());
    const decoded = type.toObject(type.decode(bytes), { defaults: false }) as Record<string, any>;
    t.same(canonical(documentFromProto(decoded)), canonical(jsonDoc));
    const pbTag = pb.headers.get('etag') as string;
    t.not(pbTag, jsonTag, 'each representation has its own ETag');
    const again = await fetch(`${s.url}/openapi/v2`, { headers: { Accept: accept, 'If-None-Match': pbTag } });
    t.equal(again.status, 304);
    t.equal((await again.arrayBuffer()).byteLength, 0);
  }
  const stale = await fetch(`${s.url}/openapi/v2`, { headers: { Accept: 'application/json', 'If-None-Match': '"0000"' } });
  t.equal(stale.status, 200);
  await stale.arrayBuffer();
  const anything = await fetch(`${s.url}/openapi/v2`, { headers: { Accept: '*/*' } });
  t.equal(anything.headers.get('content-type'), 'application/json');
  await anything.arrayBuffer();
  const refused = await fetch(`${s.url}/openapi/v2`, { headers: { Accept: 'text/html' } });
  t.equal(refused.status, 406);
  t.equal(((await refused.json()) as { reason: string }).reason, 'NotAcceptable');
});
