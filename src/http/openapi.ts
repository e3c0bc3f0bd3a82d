/**
 * GET /openapi/v2 and /openapi/v3[/<group-version>], as kube-openapi's handlers answer them:
 * - v2 is JSON, or gnostic protobuf for `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
 *   (and the `.v1.0+protobuf` spelling), answered as `...spec.v2.v1.0+protobuf`; kubectl insists on it.
 * - every answer has a strong ETag; a matching If-None-Match is a 304 with no body.
 * - a v3 document fetched with `?hash=` of its current bytes is immutable (Cache-Control public,
 *   immutable, a year's Expires); a stale hash is a 301 to the current URL.
 */
import { ApiError } from '../api/errors';
import type { OpenApiBytes, OpenApiService } from '../openapi/service';
import type { ApiContext } from './context';
import { pathNotFound } from './http-errors';
import { parseAccept } from './negotiate';

const JSON_TYPE = 'application/json';
const PROTO_V2 = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PROTO_V2_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

type Representation = 'json' | 'protobuf';

/** the first Accept clause (by preference) that one of `served` matches; undefined = 406 */
function choose(accept: string | undefined, served: Array<[string, Representation]>): Representation | undefined {
  if (!accept || accept.trim() === '') return served[0][1];
  for (const clause of parseAccept(accept)) {
    for (const [mediaType, rep] of served) {
      const [type, subType] = mediaType.split('/');
      if ((clause.type === '*' && clause.subType === '*') || (clause.type === type && (clause.subType === '*' || clause.subType === subType))) return rep;
    }
  }
  return undefined;
}

function notAcceptable(served: string[]): ApiError {
  return new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${served.join(', ')}`);
}

/** true when If-None-Match names the ETag (or is `*`) */
function notModified(ctx: ApiContext, etag: string): boolean {
  const header = ctx.get('If-None-Match');
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

function send(ctx: ApiContext, doc: OpenApiBytes, contentType: string): void {
  ctx.set('Etag', doc.etag);
  ctx.set('Vary', 'Accept');
  if (notModified(ctx, doc.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.set('Content-Type', contentType);
  ctx.body = doc.body;
}

function serveV2(ctx: ApiContext, service: OpenApiService): void {
  const served: Array<[string, Representation]> = [
    [JSON_TYPE, 'json'],
    [PROTO_V2_DEPRECATED, 'protobuf'],
    [PROTO_V2, 'protobuf'],
  ];
  const rep = choose(ctx.get('Accept'), served);
  if (!rep) throw notAcceptable(served.map(([t]) => t));
  if (rep === 'protobuf') send(ctx, service.v2Protobuf(), PROTO_V2);
  else send(ctx, service.v2Json(), JSON_TYPE);
}

function serveV3(ctx: ApiContext, service: OpenApiService, key: string): void {
  if (!choose(ctx.get('Accept'), [[JSON_TYPE, 'json']])) throw notAcceptable([JSON_TYPE]);
  if (key === '') return send(ctx, service.v3Index(), JSON_TYPE);
  const doc = service.v3(key);
  if (!doc) throw pathNotFound();
  const hash = ctx.state.query.get('hash');
  if (hash !== null) {
    if (hash !== doc.hash) {
      // the client holds an old index: send it to the document's current name
      const query = new URLSearchParams(ctx.state.query);
      query.set('hash', doc.hash);
      ctx.status = 301;
      ctx.set('Location', `/openapi/v3/${key}?${query.toString()}`);
      return;
    }
    ctx.set('Cache-Control', 'public, immutable');
    ctx.set('Expires', new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
  }
  send(ctx, doc, JSON_TYPE);
}

/** answer a GET under /openapi; `parts` are the path's segments (`['openapi', 'v3', 'apis', 'apps', 'v1']`) */
export function serveOpenApi(ctx: ApiContext, service: OpenApiService, parts: string[]): void {
  if (parts[1] === 'v2' && parts.length === 2) return serveV2(ctx, service);
  if (parts[1] === 'v3') return serveV3(ctx, service, parts.slice(2).join('/'));
  throw pathNotFound();
}
