/**
 * The REST client's connections: ordinary requests share a capped pool (a burst of concurrent
 * requests reuses a few connections instead of opening one each), while watches have their own
 * uncapped pool, so a request never waits behind long-lived watches.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import { RestClient } from '../../src/client/rest-client';

t.test('a burst of requests uses a capped pool; watches do not take from it', async (t) => {
  let connections = 0;
  let watches = 0;
  const server = http.createServer((req, res) => {
    if (req.url?.includes('watch=')) {
      // a watch that stays open
      watches++;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      return;
    }
    setTimeout(() => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"kind":"Status","apiVersion":"v1","status":"Success"}');
    }, 20);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const client = new RestClient({ server: `http://127.0.0.1:${port}` }, { qps: -1 });
  t.teardown(() => {
    client.close();
    server.closeAllConnections();
    server.close();
  });

  // 40 watches hold 40 connections of their own
  const aborts = Array.from({ length: 40 }, () => new AbortController());
  const streams = aborts.map((a) => client.watch(RESOURCES.configMaps, 'default', { signal: a.signal })[Symbol.asyncIterator]());
  streams.forEach((s) => s.next().catch(() => undefined));
  while (watches < 40) await new Promise((r) => setTimeout(r, 10));
  t.equal(connections, 40, 'a connection per watch');

  // 200 requests at once: no more than the pool's 32 connections, and none waits behind the watches
  const started = Date.now();
  await Promise.all(Array.from({ length: 200 }, () => client.request('GET', '/api/v1/namespaces/default/configmaps/x')));
  t.ok(connections - 40 <= 32, `requests opened ${connections - 40} connections for 200 requests`);
  t.ok(Date.now() - started < 5000, 'the requests were not held up by the open watches');
  aborts.forEach((a) => a.abort());
});
