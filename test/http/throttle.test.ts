import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { throttle } from '../../src/http/middleware/throttle';

async function serve(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

t.test('a throttled response leaves at the rate and ends after its last byte', async (t) => {
  let lengthAfterWrite = 0;
  const s = await serve((_req, res) => {
    throttle(res, 2000);
    res.write('a'.repeat(1000));
    res.write(Buffer.from('b'.repeat(1000)));
    lengthAfterWrite = res.writableLength;
    res.end('c'.repeat(1000));
  });
  t.teardown(() => s.close());
  const started = Date.now();
  const body = await (await fetch(s.url)).text();
  const elapsed = Date.now() - started;
  t.equal(body, 'a'.repeat(1000) + 'b'.repeat(1000) + 'c'.repeat(1000));
  t.ok(lengthAfterWrite >= 2000, 'queued bytes count in writableLength');
  // 3000 bytes at 2000 B/s from an empty bucket: about 1.5 s
  t.ok(elapsed >= 1300, `took ${elapsed} ms`);
});

t.test('without throttling the same response is immediate', async (t) => {
  const s = await serve((_req, res) => {
    res.write('a'.repeat(1000));
    res.end('c'.repeat(2000));
  });
  t.teardown(() => s.close());
  const started = Date.now();
  t.equal((await (await fetch(s.url)).text()).length, 3000);
  t.ok(Date.now() - started < 1000);
});
