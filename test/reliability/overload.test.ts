/**
 * Overload: with --max-mutating-requests-inflight 10 (and --max-requests-inflight 10), twice that
 * many slow clients (each trickles its request body over ~300 ms, holding a slot, as slow clients
 * do) -> the excess gets 429 TooManyRequests with Retry-After, admitted requests keep their latency
 * (p50 compared with a run at the limit), reads stay fast, and the RSS stays bounded.
 * These are the plain in-flight limits, so API Priority and Fairness is off (kube's behaviour with
 * it on, queuing the excess, is test/e2e/apf.test.ts's).
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BallastServer, MAIN_JS, sampleRss, sleep } from './lib/server';
import { mib, percentile } from './lib/stats';

const LIMIT = 10;
const TRICKLE_MS = 300;

interface Outcome {
  status: number;
  ms: number;
  retryAfter?: string;
  body: string;
}

/** one POST whose body arrives in two halves TRICKLE_MS apart, on its own connection */
function slowCreate(server: BallastServer, ca: Buffer, name: string): Promise<Outcome | Error> {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { pad: 'p'.repeat(2048) } });
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: Outcome | Error) => {
      if (!settled) {
        settled = true;
        resolve(v);
      }
    };
    const req = https.request(
      `${server.url}/api/v1/namespaces/default/configmaps`,
      { method: 'POST', ca, agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } },
      (res) => {
        let data = '';
        res.on('data', (d: Buffer) => (data += d.toString()));
        res.on('end', () => done({ status: res.statusCode ?? 0, ms: performance.now() - started, retryAfter: res.headers['retry-after'] as string | undefined, body: data }));
      },
    );
    // a 429 may come while the rest of the body is still on its way; the server then closes
    req.on('error', (err) => done(err));
    req.write(body.slice(0, body.length / 2));
    setTimeout(() => req.end(body.slice(body.length / 2)), TRICKLE_MS);
  });
}

async function phase(server: BallastServer, ca: Buffer, clients: number, ms: number, tag: string) {
  const outcomes: Outcome[] = [];
  let errors = 0;
  const reads: number[] = [];
  const deadline = Date.now() + ms;
  let n = 0;
  const rss = sampleRss(server, 50);
  const loops = Array.from({ length: clients }, async () => {
    while (Date.now() < deadline) {
      const r = await slowCreate(server, ca, `${tag}-${n++}`);
      if (r instanceof Error) errors++;
      else outcomes.push(r);
      if (!(r instanceof Error) && r.status === 429) await sleep(50);
    }
  });
  // a fast reader alongside: reads have their own limit and must stay quick
  const reader = (async () => {
    const c = server.client();
    while (Date.now() < deadline) reads.push((await c.request('GET', '/api/v1/namespaces/default')).ms);
  })();
  await Promise.all([...loops, reader]);
  rss.stop();
  const admitted = outcomes.filter((o) => o.status === 201).map((o) => o.ms);
  return { outcomes, errors, admitted, reads, maxRss: rss.max() };
}

t.test('overload: 429 with Retry-After for the excess, latency and memory kept', { skip: fs.existsSync(MAIN_JS) ? false : 'run make build first' }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-overload-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = await BallastServer.start({ dataDir, args: ['--enable-priority-and-fairness=false', '--max-requests-inflight', String(LIMIT), '--max-mutating-requests-inflight', String(LIMIT)] });
  t.teardown(() => server.kill('SIGKILL'));
  const ca = fs.readFileSync(path.join(dataDir, 'pki', 'ca.crt'));
  const idleRss = server.rss();

  const base = await phase(server, ca, LIMIT, 3000, 'base');
  const over = await phase(server, ca, 2 * LIMIT, 3000, 'over');
  const p50Base = percentile(base.admitted, 50);
  const p50Over = percentile(over.admitted, 50);
  const tooMany = over.outcomes.filter((o) => o.status === 429);
  t.comment(
    `overload: at the limit (${LIMIT} clients) ${base.admitted.length} admitted, p50 ${p50Base.toFixed(0)} ms; ` +
      `at 2x (${2 * LIMIT} clients) ${over.admitted.length} admitted, p50 ${p50Over.toFixed(0)} ms, ${tooMany.length} answered 429, ${over.errors} connection errors; ` +
      `read p50 ${percentile(base.reads, 50).toFixed(1)} -> ${percentile(over.reads, 50).toFixed(1)} ms; RSS idle ${mib(idleRss)}, peak ${mib(base.maxRss)} -> ${mib(over.maxRss)}`,
  );

  t.equal(base.outcomes.filter((o) => o.status !== 201).length, 0, 'at the limit every request is admitted');
  t.ok(tooMany.length > 0, `the excess is refused (${tooMany.length} x 429)`);
  t.ok(
    tooMany.every((o) => o.retryAfter === '1'),
    'every 429 carries Retry-After',
  );
  const st = JSON.parse(tooMany[0]?.body ?? '{}');
  t.match(st, { kind: 'Status', status: 'Failure', code: 429, reason: 'TooManyRequests' }, 'as a TooManyRequests Status');
  t.equal(over.outcomes.filter((o) => o.status !== 201 && o.status !== 429).length, 0, 'nothing but 201 and 429');
  t.ok(over.errors <= over.outcomes.length * 0.05, `few connection errors (${over.errors}; a 429 may close the connection while the body is still coming)`);
  t.ok(over.admitted.length >= base.admitted.length * 0.7, 'admitted throughput is kept');
  t.ok(p50Over < p50Base * 2, `admitted p50 ${p50Over.toFixed(0)} ms stays near ${p50Base.toFixed(0)} ms`);
  t.ok(percentile(over.reads, 50) < Math.max(50, percentile(base.reads, 50) * 5), 'reads stay fast');
  t.ok(over.maxRss < idleRss + 200 * 1024 * 1024, `RSS bounded (peak ${mib(over.maxRss)}, idle ${mib(idleRss)})`);
});
