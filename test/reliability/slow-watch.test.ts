/**
 * Slow and abandoned watchers: clients that open watches and stop reading while ~100 MiB of events
 * per watch are written. The server must not buffer it all: each stalled watch is cut off (ERROR
 * 410 Expired, then the stream ends) once its backlog passes the limit (16 MiB), RSS stays far
 * below what buffering everything would take, and the client can relist and watch again.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BallastServer, MAIN_JS, sampleRss } from './lib/server';
import { mib } from './lib/stats';
import { openWatch } from './lib/watch';

const WATCHERS = Number(process.env.SLOW_WATCHERS ?? 4);
const WRITES = Number(process.env.SLOW_WATCH_WRITES ?? 400);
const VALUE_BYTES = 256 * 1024;

t.test('stalled watchers are cut off with 410 and memory stays bounded', { skip: fs.existsSync(MAIN_JS) ? false : 'run make build first' }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-slowwatch-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  // a small heap keeps the garbage of 100 MiB of writes from blurring the measurement (what the
  // watchers hold is outside the heap: socket buffers)
  const server = await BallastServer.start({ dataDir, nodeArgs: ['--max-old-space-size=384'] });
  t.teardown(() => server.kill('SIGKILL'));
  // a connection per request: see keepalive.test.ts for why (a known bug with large bodies on kept-alive connections)
  const client = server.freshClient();
  const ca = fs.readFileSync(path.join(dataDir, 'pki', 'ca.crt'));
  const base = '/api/v1/namespaces/default/configmaps';
  let cm = await client.json('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { v: '0' } });
  t.equal(cm.status, 201);
  const idleRss = server.rss();
  const pad = 'x'.repeat(VALUE_BYTES);
  const writeAll = async (tag: string) => {
    for (let i = 1; i <= WRITES; i++) {
      cm.body.data = { v: `${tag}-${i}`, pad };
      cm = await client.json('PUT', `${base}/big`, cm.body);
      if (cm.status !== 200) return;
    }
  };

  // the same writes without watchers: what the writes alone cost (garbage the GC has not taken yet)
  const alone = sampleRss(server, 100);
  await writeAll('alone');
  t.equal(cm.status, 200);
  const writesOnly = Math.max(...alone.stop());

  // watchers that read the response head and then stop reading
  const stalled: IncomingMessage[] = await Promise.all(
    Array.from(
      { length: WATCHERS },
      () =>
        new Promise<IncomingMessage>((resolve, reject) => {
          const req = https.request(`${server.url}${base}?watch=1&resourceVersion=${cm.body.metadata.resourceVersion}`, { ca, agent: false }, (res) => {
            res.pause();
            resolve(res);
          });
          req.on('error', reject);
          req.end();
        }),
    ),
  );

  t.teardown(() => stalled.forEach((r) => r.destroy()));
  const rss = sampleRss(server, 100);
  await writeAll('watched');
  t.equal(cm.status, 200, `${WRITES} updates of ${VALUE_BYTES / 1024} KiB written`);
  const maxRss = Math.max(...rss.stop());
  const unbounded = WATCHERS * WRITES * VALUE_BYTES;
  const extra = maxRss - writesOnly;
  t.comment(
    `slow watchers: ${WATCHERS} stalled watches, ${mib(unbounded)} of events addressed to them; RSS idle ${mib(idleRss)}, ` +
      `peak with the writes alone ${mib(writesOnly)}, with the stalled watchers ${mib(maxRss)} (+${mib(extra)})`,
  );
  t.ok(extra < unbounded / 2, `the stalled watchers cost ${mib(extra)}, not the ${mib(unbounded)} buffering everything would`);

  // the stalled clients read what they were sent: it ends with ERROR 410, then the stream closes
  for (const res of stalled) {
    const text = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.resume();
    });
    const lines = text.trim().split('\n');
    const last = JSON.parse(lines[lines.length - 1]);
    t.match(last, { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } }, `cut off after ${lines.length - 1} events with ERROR 410`);
  }

  // relist and watch again: works
  const list = await client.json('GET', base);
  t.equal(list.status, 200, 'relist works');
  const w = openWatch(client, `${base}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
  t.teardown(() => w.close());
  cm.body.data = { v: 'after' };
  t.equal((await client.json('PUT', `${base}/big`, cm.body)).status, 200);
  const ev = await w.waitFor((f) => f.type === 'MODIFIED', 10_000);
  t.equal(ev.object.data.v, 'after', 'a new watch from the relisted version gets the next event');
});
