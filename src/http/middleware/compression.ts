/**
 * Response compression (the APIResponseCompression gate, on by default): a response of 128 KiB or
 * more, or a streamed list of unknown size, is gzip-compressed when the client accepts gzip, as kube's
 * compression filter does. Watches and proxied responses write to the socket themselves and are
 * left alone.
 */
import { pipeline, Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Middleware } from 'koa';

/** kube's threshold: smaller responses are not worth the CPU */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

export function responseCompression(): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.respond === false || ctx.response.get('Content-Encoding') || ctx.state.uncompressed === true) return;
    if (!/\bgzip\b/i.test(ctx.get('Accept-Encoding'))) return;
    const body: unknown = ctx.body;
    if (Buffer.isBuffer(body) || typeof body === 'string') {
      const size = Buffer.byteLength(body);
      if (size < GZIP_THRESHOLD_BYTES) return;
      const type = ctx.response.get('Content-Type');
      ctx.body = zlib.gzipSync(body, { level: 4 });
      if (type) ctx.set('Content-Type', type); // as it was: ctx.type would append a charset
    } else if (body instanceof Readable) {
      const type = ctx.response.get('Content-Type');
      const gzip = zlib.createGzip({ level: 4 });
      // an error of the source ends the compressed stream too (the client sees a cut response)
      pipeline(body, gzip, () => {});
      ctx.body = gzip;
      if (type) ctx.set('Content-Type', type); // as it was: ctx.type would append a charset
    } else {
      return;
    }
    ctx.set('Content-Encoding', 'gzip');
    ctx.vary('Accept-Encoding');
  };
}
