/**
 * On a kept-alive HTTPS connection, a request that follows a large response (tens of KiB and up)
 * used to be dropped now and then: Node paused the HTTP parser while the previous response drained,
 * TLS kept feeding it decrypted records, the parser failed with HPE_PAUSED and the connection was
 * reset, so the client saw ECONNRESET for a request the server never read (a POST is not retried).
 * src/http/server.ts now has Node feed the parser through JavaScript streams, which honour the
 * pause. This test sends large writes one after another on one kept-alive connection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BallastServer, MAIN_JS } from './lib/server';

t.test('large writes back to back on one kept-alive connection are all answered', { skip: fs.existsSync(MAIN_JS) ? false : 'run make build first' }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-keepalive-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = await BallastServer.start({ dataDir });
  t.teardown(() => server.kill('SIGKILL'));
  const client = server.client();
  const base = '/api/v1/namespaces/default/configmaps';
  let cm = await client.json('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { v: '0' } });
  const errors: string[] = [];
  let answered = 0;
  for (let i = 1; i <= 40; i++) {
    cm.body.data = { v: String(i), pad: 'x'.repeat(128 * 1024) };
    try {
      const r = await client.json('PUT', `${base}/big`, cm.body);
      if (r.status === 200) cm = r;
      answered++;
    } catch (err) {
      errors.push(`PUT #${i}: ${(err as Error).message}`);
      cm = await server.freshClient().json('GET', `${base}/big`);
    }
  }
  t.comment(`keep-alive: ${answered} answered, ${errors.length} dropped`);
  t.same(errors, [], 'no request dropped by a connection reset');
});
