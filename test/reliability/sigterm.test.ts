/**
 * SIGTERM under write load with --shutdown-delay-duration 2s: /readyz fails at once while requests
 * are still served during the delay (/livez stays ok), a request in flight when the listener closes
 * is finished, the process exits 0, and after a restart every acknowledged write is there.
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BallastServer, MAIN_JS, sleep } from './lib/server';

const DELAY_MS = 2000;

t.test('graceful shutdown honours --shutdown-delay-duration and loses no acknowledged write', { skip: fs.existsSync(MAIN_JS) ? false : 'run make build first' }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-sigterm-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = await BallastServer.start({ dataDir, args: ['--shutdown-delay-duration', `${DELAY_MS / 1000}s`] });
  t.teardown(() => server.kill('SIGKILL'));
  const ca = fs.readFileSync(path.join(dataDir, 'pki', 'ca.crt'));
  const client = server.freshClient();

  const acked: string[] = [];
  let ackedAfterSignal = 0;
  let signalled = 0;
  let stop = false;
  let n = 0;
  const writers = Array.from({ length: 8 }, async () => {
    while (!stop) {
      const name = `w-${n++}`;
      try {
        const r = await client.json('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
        if (r.status === 201) {
          acked.push(name);
          if (signalled) ackedAfterSignal++;
        }
      } catch {
        // the listener closed: nothing more is accepted
        await sleep(20);
      }
    }
  });
  await sleep(700);

  // a slow request that will be in flight when the delay ends and the listener closes
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in-flight' } });
  let inFlightStatus = 0;
  const inFlight = new Promise<void>((resolve) => {
    const req = https.request(
      `${server.url}/api/v1/namespaces/default/configmaps`,
      { method: 'POST', ca, agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } },
      (res) => {
        inFlightStatus = res.statusCode ?? 0;
        res.resume();
        res.on('end', () => resolve());
      },
    );
    req.on('error', () => resolve());
    req.write(body.slice(0, 10));
    // the rest arrives after the listener closed (delay + 500 ms)
    setTimeout(() => req.end(body.slice(10)), DELAY_MS + 1200);
  });
  await sleep(300);

  signalled = Date.now();
  process.kill(server.pid, 'SIGTERM');
  await sleep(200);
  const readyz = await client.request('GET', '/readyz?verbose');
  t.equal(readyz.status, 500, '/readyz fails right after SIGTERM');
  t.match(readyz.body, /\[-\]shutdown failed/, 'on the shutdown check');
  t.equal((await client.request('GET', '/livez')).status, 200, '/livez still ok during the delay');
  await sleep(DELAY_MS / 2);
  t.equal((await client.request('GET', '/api/v1/namespaces/default')).status, 200, 'requests still served during the delay');

  const exit = await server.exited;
  const tookMs = Date.now() - signalled;
  stop = true;
  await Promise.all(writers);
  await inFlight;
  t.equal(exit.code, 0, 'exit code 0');
  t.ok(tookMs >= DELAY_MS, `exited ${tookMs} ms after SIGTERM (delay ${DELAY_MS} ms)`);
  t.ok(ackedAfterSignal > 0, `${ackedAfterSignal} writes were acknowledged during the delay`);
  t.equal(inFlightStatus, 201, 'the request in flight when the listener closed was finished');
  if (inFlightStatus === 201) acked.push('in-flight');

  await server.restart();
  const names = new Set((await server.freshClient().json('GET', '/api/v1/namespaces/default/configmaps')).body.items.map((i: any) => i.metadata.name));
  t.same(acked.filter((x) => !names.has(x)), [], `all ${acked.length} acknowledged writes are there after the restart`);
  t.comment(`sigterm: ${acked.length} writes acknowledged (${ackedAfterSignal} during the ${DELAY_MS} ms delay), exit after ${tookMs} ms, none lost`);
});
