import t from 'tap';
import { startTestServer } from './helpers';

async function text(url: string): Promise<{ status: number; type: string | null; body: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

t.test('healthy: ok, and verbose lists every check', async (t) => {
  const s = await startTestServer({ health: [{ name: 'etcd', check: async () => {} }, { name: 'informer-sync', readyOnly: true, check: async () => {} }] });
  t.teardown(() => s.close());
  for (const ep of ['healthz', 'livez', 'readyz']) {
    const r = await text(`${s.url}/${ep}`);
    t.equal(r.status, 200);
    t.equal(r.type, 'text/plain; charset=utf-8');
    t.equal(r.body, 'ok');
  }
  let r = await text(`${s.url}/readyz?verbose=`);
  t.equal(r.body, '[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check passed\n');
  r = await text(`${s.url}/livez?verbose`);
  t.equal(r.body, '[+]ping ok\n[+]log ok\n[+]etcd ok\nlivez check passed\n', 'ready-only checks and shutdown are not on livez');
  r = await text(`${s.url}/healthz?verbose=1&exclude=etcd&exclude=nothing`);
  t.equal(r.body, '[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nothing"\nhealthz check passed\n');
});

t.test('a failing check fails the endpoint with 500 and withholds the reason', async (t) => {
  let healthy = false;
  const s = await startTestServer({
    health: [
      {
        name: 'etcd',
        check: async () => {
          if (!healthy) throw new Error('database is locked');
        },
      },
    ],
  });
  t.teardown(() => s.close());
  let r = await text(`${s.url}/livez`);
  t.equal(r.status, 500);
  t.equal(r.body, '[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\nlivez check failed\n', 'failures are always verbose');
  t.notMatch(r.body, /database is locked/);
  t.ok(s.logs.some((l) => l.check === 'etcd' && l.err === 'database is locked'), 'the reason is logged');
  r = await text(`${s.url}/readyz?exclude=etcd`);
  t.equal(r.status, 200, 'excluding the failing check');
  r = await text(`${s.url}/readyz/etcd`);
  t.equal(r.status, 500);
  t.equal(r.body, 'internal server error: database is locked\n');
  healthy = true;
  r = await text(`${s.url}/readyz/etcd`);
  t.equal(r.status, 200);
  t.equal(r.body, 'ok');
});

t.test('per-check endpoints', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  t.same(await text(`${s.url}/livez/ping`), { status: 200, type: 'text/plain; charset=utf-8', body: 'ok' });
  t.equal((await text(`${s.url}/readyz/shutdown`)).status, 200);
  t.equal((await text(`${s.url}/livez/shutdown`)).status, 404, 'shutdown is a readyz check only');
  t.equal((await text(`${s.url}/livez/nope`)).status, 404);
  s.shutdown();
  const r = await text(`${s.url}/readyz/shutdown`);
  t.equal(r.status, 500);
  t.equal(r.body, 'internal server error: process is shutting down\n');
  t.equal((await text(`${s.url}/healthz`)).status, 200, 'healthz stays ok during shutdown');
});
