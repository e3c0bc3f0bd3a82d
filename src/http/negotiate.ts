/**
 * Response content negotiation, as kube's NegotiateOutputMediaType: Accept clauses are tried in order
 * of preference; the first one a codec serves wins. `as=Table;g=meta.k8s.io;v=v1|v1beta1` asks for
 * the server-side Table where the endpoint allows it. Table and aggregated discovery exist only as
 * JSON (and Table as YAML), as kube's AllowsMediaTypeTransform says: a protobuf clause asking for
 * them is skipped. Streams in any type but JSON are labelled `;stream=watch`, as kube labels them.
 */
import { ApiError } from '../api/errors';
import type { TableApiVersion } from '../api/table';
import { codecs, mediaTypesServed } from './codecs';
import type { Codec } from './codecs';

export interface Negotiated {
  codec: Codec;
  /** the Content-Type header to send */
  contentType: string;
  /** set when the client asked for a Table */
  table?: TableApiVersion;
  /** set when the client asked for aggregated discovery (apidiscovery.k8s.io APIGroupDiscoveryList) */
  discovery?: 'v2' | 'v2beta1';
  /** `pretty=1` in the Accept clause */
  pretty: boolean;
}

export interface NegotiateOptions {
  /** the endpoint can answer with a Table (get, list, watch) */
  allowTable: boolean;
  /** the response is a watch stream: only codecs that frame events qualify */
  stream: boolean;
  /** the endpoint can answer with aggregated discovery (/api and /apis) */
  allowDiscovery?: boolean;
  /** codecs that cannot write this response (protobuf for a kind it has no message for) */
  skip?: (codec: Codec) => boolean;
}

interface AcceptClause {
  type: string;
  subType: string;
  params: Map<string, string>;
  q: number;
}

/** parse an Accept header; clauses by descending q, then more specific first (goautoneg's order) */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const raw of header.split(',')) {
    const [mt, ...paramParts] = raw.split(';').map((s) => s.trim());
    if (!mt) continue;
    const [type, subType = ''] = mt.toLowerCase().split('/');
    const params = new Map<string, string>();
    let q = 1;
    for (const p of paramParts) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const k = p.slice(0, eq).trim();
      const v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (k === 'q') q = Number.parseFloat(v) || 0;
      else params.set(k, v);
    }
    clauses.push({ type, subType, params, q });
  }
  const specificity = (c: AcceptClause) => (c.type === '*' ? 0 : c.subType === '*' ? 1 : 2);
  return clauses
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || specificity(b.c) - specificity(a.c) || a.i - b.i)
    .map((x) => x.c)
    .filter((c) => c.q > 0);
}

function matches(clause: AcceptClause, mediaType: string): boolean {
  const [type, subType] = mediaType.split('/');
  return (clause.type === '*' && clause.subType === '*') || (clause.type === type && (clause.subType === subType || clause.subType === '*'));
}

function accept(clause: AcceptClause, codec: Codec, opts: NegotiateOptions): Negotiated | undefined {
  const as = clause.params.get('as');
  const g = clause.params.get('g');
  const v = clause.params.get('v');
  const stream = clause.params.get('stream');
  if (opts.stream && !codec.encodeFrame) return undefined;
  if (stream && (stream !== 'watch' || !codec.encodeFrame)) return undefined;
  const pretty = clause.params.get('pretty') === '1';
  if (as === undefined && g === undefined && v === undefined) {
    const streamed = opts.stream && codec.mediaType !== 'application/json';
    return { codec, contentType: streamed ? `${codec.mediaType};stream=watch` : codec.mediaType, pretty };
  }
  if (opts.allowDiscovery && as === 'APIGroupDiscoveryList' && g === 'apidiscovery.k8s.io' && (v === 'v2' || v === 'v2beta1') && codec.mediaType === 'application/json') {
    return { codec, contentType: `${codec.mediaType};g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`, discovery: v, pretty };
  }
  if (!opts.allowTable || as !== 'Table' || g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) return undefined;
  if (codec.mediaType !== 'application/json' && codec.mediaType !== 'application/yaml') return undefined;
  // the Content-Type names the conversion in the parameter order kubectl sends it
  return { codec, contentType: `${codec.mediaType};as=Table;v=${v};g=meta.k8s.io`, table: `meta.k8s.io/${v}`, pretty };
}

export function notAcceptable(served: string[] = mediaTypesServed()): ApiError {
  return new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${served.join(', ')}`);
}

/** choose the response format; throws 406 NotAcceptable when no clause can be served */
export function negotiateOutput(acceptHeader: string | undefined, opts: NegotiateOptions): Negotiated {
  const candidates = (opts.stream ? codecs.filter((c) => c.encodeFrame) : codecs).filter((c) => !opts.skip?.(c));
  if (!acceptHeader || acceptHeader.trim() === '') {
    return { codec: candidates[0], contentType: candidates[0].mediaType, pretty: false };
  }
  for (const clause of parseAccept(acceptHeader)) {
    for (const codec of candidates) {
      if (!matches(clause, codec.mediaType)) continue;
      const n = accept(clause, codec, opts);
      if (n) return n;
    }
  }
  throw opts.skip ? notAcceptable(codecs.filter((c) => !opts.skip!(c)).map((c) => c.mediaType)) : notAcceptable();
}
