/**
 * Response compression leaves a streamed answer that asks to go as it comes (pods/log sets
 * ctx.state.uncompressed): gzip would hold its lines back until 16 KiB or the end, and
 * `kubectl logs -f` would show nothing. Other streams are still compressed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import Koa from 'koa';
import t from 'tap';
import { responseCompression } from '../../src/http/middleware/compression';

async function firstChunk(uncompressed: boolean): Promise<{ encoding?: string; chunk: string }> {
  const app = new Koa();
  app.use(responseCompression());
  const body = new PassThrough();
  app.use((ctx) => {
    if (uncompressed) ctx.state.uncompressed = true;
    ctx.type = 'text/plain';
    ctx.body = body;
    body.write('line 1\n'); // the stream stays open, as a followed log does
  });
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    return await new Promise((resolve, reject) => {
      const req = http.get({ port: (server.address() as AddressInfo).port, headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
        const timer = setTimeout(() => resolve({ encoding: res.headers['content-encoding'], chunk: '' }), 500);
        res.once('data', (d: Buffer) => {
          clearTimeout(timer);
          resolve({ encoding: res.headers['content-encoding'], chunk: d.toString() });
        });
      });
      req.on('error', reject);
    });
  } finally {
    body.end();
    server.closeAllConnections();
    server.close();
  }
}

t.test('a stream marked uncompressed goes out as it is written', async (t) => {
  const r = await firstChunk(true);
  t.equal(r.encoding, undefined, 'no Content-Encoding');
  t.equal(r.chunk, 'line 1\n', 'the first line arrives while the stream is still open');
});

t.test('other streams are gzip-compressed when the client accepts it', async (t) => {
  const r = await firstChunk(false);
  t.equal(r.encoding, 'gzip');
});
