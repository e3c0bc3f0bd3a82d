/** Writing API objects in the negotiated format, with kube's pretty printing rules. */
import { codecFor } from './codecs';
import type { ApiContext } from './context';
import { negotiateOutput } from './negotiate';
import type { Negotiated } from './negotiate';

/** kube pretty-prints on `pretty=true` (any ParseBool truth), `pretty=1` in Accept, or for curl/Wget/browsers */
export function wantsPretty(ctx: ApiContext, negotiated?: Negotiated): boolean {
  const p = ctx.state.query.get('pretty');
  if (p !== null && p !== '') return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(p);
  if (negotiated?.pretty) return true;
  const ua = ctx.get('User-Agent');
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

/**
 * the type for a value the negotiated codec has no form for: an object of a kind without one (kube's
 * custom resources have no protobuf) takes the client's next acceptable type, else 406; a document
 * without apiVersion/kind (/version) is JSON, which kube writes for those regardless of Accept
 */
function renegotiate(ctx: ApiContext, value: unknown): Negotiated {
  const v = value as { apiVersion?: unknown; kind?: unknown } | null;
  if (typeof v?.apiVersion === 'string' && typeof v.kind === 'string') {
    return negotiateOutput(ctx.get('Accept'), { allowTable: false, stream: false, skip: (c) => c.canEncode !== undefined && !c.canEncode(value) });
  }
  const json = codecFor('application/json')!;
  return { codec: json, contentType: json.mediaType, pretty: false };
}

export function writeObject(ctx: ApiContext, code: number, value: unknown, negotiated: Negotiated): void {
  if (negotiated.codec.canEncode && !negotiated.codec.canEncode(value)) negotiated = renegotiate(ctx, value);
  ctx.status = code;
  const opts = { pretty: wantsPretty(ctx, negotiated) };
  // a long list leaves in chunks, encoded as the client reads (chunked transfer encoding, as kube's)
  ctx.body = negotiated.codec.encodeStream?.(value, opts) ?? negotiated.codec.encode(value, opts);
  ctx.set('Content-Type', negotiated.contentType);
}

/** `Warning: 299 - "text"` headers, one per warning, as kube writes them */
export function writeWarnings(ctx: ApiContext, warnings: string[] | undefined): void {
  for (const w of warnings ?? []) {
    const text = w.replace(/[\\"]/g, (c) => '\\' + c).replace(/[\r\n]+/g, ' ');
    ctx.append('Warning', `299 - "${text}"`);
  }
}
