/** Writing API objects in the negotiated format, with kube's pretty printing rules. */
import type { ApiContext } from './context';
import type { Negotiated } from './negotiate';

/** kube pretty-prints on `pretty=true` (any ParseBool truth), `pretty=1` in Accept, or for curl/Wget/browsers */
export function wantsPretty(ctx: ApiContext, negotiated?: Negotiated): boolean {
  const p = ctx.state.query.get('pretty');
  if (p !== null && p !== '') return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(p);
  if (negotiated?.pretty) return true;
  const ua = ctx.get('User-Agent');
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

export function writeObject(ctx: ApiContext, code: number, value: unknown, negotiated: Negotiated): void {
  ctx.status = code;
  ctx.body = negotiated.codec.encode(value, { pretty: wantsPretty(ctx, negotiated) });
  ctx.set('Content-Type', negotiated.contentType);
}

/** `Warning: 299 - "text"` headers, one per warning, as kube writes them */
export function writeWarnings(ctx: ApiContext, warnings: string[] | undefined): void {
  for (const w of warnings ?? []) {
    const text = w.replace(/[\\"]/g, (c) => '\\' + c).replace(/[\r\n]+/g, ' ');
    ctx.append('Warning', `299 - "${text}"`);
  }
}
