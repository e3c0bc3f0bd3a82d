/**
 * The served OpenAPI documents as bytes, each built on first use and kept until the Scheme changes
 * (a custom resource added, changed or removed) or the extension's documents do: the built-in
 * schema never changes while the server runs, and kinds added at runtime bring their definitions
 * with them (KindDefinition.definitions). Every representation carries its own strong ETag
 * (the SHA-512 of its bytes, as kube's OpenAPI handler computes it); v3 documents are also named
 * by that hash in the index's `serverRelativeURL`.
 *
 * An OpenApiExtension adds what other servers publish (the aggregator's extension servers): their
 * v2 documents merged after ours (merge.ts), and v3 documents either served from here (converted)
 * or only listed in the index, their requests going to the other server.
 */
import { createHash } from 'node:crypto';
import type protobuf from 'protobufjs';
import type { SwaggerParts } from './merge';
import { mergeSwagger } from './merge';
import { buildOpenApiV2 } from './v2';
import type { OpenApiSource, SwaggerDocument } from './v2';
import { encodeOpenApiV2, openApiV2DocumentType } from './v2-proto';
import { buildOpenApiV3 } from './v3';

export interface OpenApiExtension {
  /** changes whenever one of the answers below would */
  generation(): number;
  /** documents merged into /openapi/v2 after ours, in order */
  v2Documents(): SwaggerParts[];
  /** v3 documents served from here, by index key (`apis/<group>/<version>`); they replace ours of the same key */
  v3Documents(): Map<string, object>;
  /** v3 index entries served by another server: key -> serverRelativeURL; they replace ours of the same key */
  v3Links(): Map<string, string>;
}

export interface OpenApiBytes {
  body: Buffer;
  /** the quoted ETag header value */
  etag: string;
  /** upper-case hex SHA-512 of body */
  hash: string;
}

export interface OpenApiService {
  /** GET /openapi/v2 as application/json */
  v2Json(): OpenApiBytes;
  /** GET /openapi/v2 as gnostic protobuf */
  v2Protobuf(): OpenApiBytes;
  /** GET /openapi/v3: `{"paths": {"apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=..."}}}` */
  v3Index(): OpenApiBytes;
  /** GET /openapi/v3/<key>; undefined for a key that is not served */
  v3(key: string): OpenApiBytes | undefined;
}

export interface OpenApiServiceOptions extends OpenApiSource {
  /** the Document message type; loaded from proto/openapi when absent */
  documentType?: protobuf.Type;
  extension?: OpenApiExtension;
}

function bytesOf(body: Buffer): OpenApiBytes {
  const hash = createHash('sha512').update(body).digest('hex').toUpperCase();
  return { body, hash, etag: `"${hash}"` };
}

function once<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}

export function createOpenApiService(opts: OpenApiServiceOptions): OpenApiService {
  let built: { generation: string; service: OpenApiService } | undefined;
  const current = (): OpenApiService => {
    const generation = `${opts.scheme.generation}/${opts.extension?.generation() ?? 0}`;
    if (built?.generation !== generation) {
      const extra = opts.scheme.extraDefinitions();
      const definitions = Object.keys(extra).length > 0 ? { ...opts.definitions, ...extra } : opts.definitions;
      built = { generation, service: buildService({ ...opts, definitions }) };
    }
    return built.service;
  };
  return {
    v2Json: () => current().v2Json(),
    v2Protobuf: () => current().v2Protobuf(),
    v3Index: () => current().v3Index(),
    v3: (key) => current().v3(key),
  };
}

/** the documents of one generation of the Scheme, each built on first use */
function buildService(opts: OpenApiServiceOptions): OpenApiService {
  const ext = opts.extension;
  const v2 = once(() => (ext ? ext.v2Documents().reduce<SwaggerDocument>((doc, other) => mergeSwagger(doc, other), buildOpenApiV2(opts)) : buildOpenApiV2(opts)));
  const v2Json = once(() => bytesOf(Buffer.from(JSON.stringify(v2()))));
  const v2Protobuf = once(() => bytesOf(encodeOpenApiV2(v2(), opts.documentType ?? openApiV2DocumentType())));
  const v3Docs = once(() => {
    const docs = new Map<string, OpenApiBytes>();
    for (const [key, doc] of buildOpenApiV3(opts)) docs.set(key, bytesOf(Buffer.from(JSON.stringify(doc))));
    for (const [key, doc] of ext?.v3Documents() ?? []) docs.set(key, bytesOf(Buffer.from(JSON.stringify(doc))));
    for (const key of ext?.v3Links().keys() ?? []) docs.delete(key);
    return docs;
  });
  const v3Index = once(() => {
    const entries = new Map<string, string>();
    for (const [key, doc] of v3Docs()) entries.set(key, `/openapi/v3/${key}?hash=${doc.hash}`);
    for (const [key, url] of ext?.v3Links() ?? []) entries.set(key, url);
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const key of [...entries.keys()].sort()) paths[key] = { serverRelativeURL: entries.get(key) as string };
    return bytesOf(Buffer.from(JSON.stringify({ paths })));
  });
  return {
    v2Json,
    v2Protobuf,
    v3Index,
    v3: (key) => v3Docs().get(key),
  };
}
