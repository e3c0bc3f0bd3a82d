/**
 * Several `ballast apiserver` processes on one PostgreSQL database (a private cluster started for
 * this file): a write on one is seen by a watch on another at once, optimistic concurrency and
 * continue tokens hold across them, the `kubernetes` Service lists every live server, kill -9 of one
 * under write load from clients of all loses no acknowledged write, and a database restart gives
 * clear 5xx answers and an unready /readyz until the servers recover by themselves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { Client } from '../reliability/lib/client';
import { BallastServer, MAIN_JS, sleep } from '../reliability/lib/server';
import { openWatch, type WatchFrame } from '../reliability/lib/watch';
import { postgresSkipReason, startPostgres, type PrivatePostgres } from '../helpers/postgres';
import { waitFor } from './harness';

const skip = postgresSkipReason() ?? (fs.existsSync(MAIN_JS) ? undefined : 'run make build first');

const CM = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string, data: Record<string, string> = {}, resourceVersion?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(resourceVersion ? { resourceVersion } : {}) },
  data,
});

async function servers(t: Test, pg: PrivatePostgres, database: string, advertise: string[], extra: string[] = []): Promise<BallastServer[]> {
  const url = await pg.database(database);
  const out: BallastServer[] = [];
  for (const address of advertise) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-e2e-pg-'));
    const s = await BallastServer.start({ dataDir, args: ['--etcd-servers', url, '--advertise-address', address, ...extra] });
    t.teardown(async () => {
      await s.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    out.push(s);
  }
  return out;
}

t.test('API servers sharing one PostgreSQL database', { skip }, async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());

  t.test('watch, optimistic concurrency, continue tokens and the kubernetes endpoints across servers', async (t) => {
    const [a, b] = await servers(t, pg, 'across', ['127.0.0.1', '127.0.0.2']);
    const ca = a.client();
    const cb = b.client();
    const start = await cb.json('GET', CM);
    const watch = openWatch(cb, `${CM}?watch=1&resourceVersion=${start.body.metadata.resourceVersion}`);
    t.teardown(() => watch.close());
    t.equal(await watch.status, 200);
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      const sent = performance.now();
      const r = await ca.json('POST', CM, configMap(`w${i}`));
      t.equal(r.status, 201);
      await watch.waitFor((f: WatchFrame) => f.object?.metadata?.name === `w${i}`, 5000);
      delays.push(performance.now() - sent);
    }
    delays.sort((x, y) => x - y);
    t.comment(`create on A -> event on B's watch: p50 ${delays[10].toFixed(1)} ms, max ${delays[19].toFixed(1)} ms`);
    t.ok(delays[10] < 100, 'the median write reaches the other server within 100 ms');
    t.same(
      watch.frames.map((f) => `${f.type} ${f.object.metadata.name}`),
      Array.from({ length: 20 }, (_, i) => `ADDED w${i}`),
      'each event once, in order',
    );

    const first = await ca.json('POST', CM, configMap('occ', { v: '1' }));
    const rv1 = first.body.metadata.resourceVersion as string;
    const second = await ca.json('PUT', `${CM}/occ`, configMap('occ', { v: '2' }, rv1));
    t.equal(second.status, 200);
    const stale = await cb.json('PUT', `${CM}/occ`, configMap('occ', { v: '3' }, rv1));
    t.equal(stale.status, 409, 'a stale update on the other server');
    t.equal(stale.body.reason, 'Conflict');
    const read = await cb.json('GET', `${CM}/occ`);
    t.equal(read.body.data.v, '2', 'the other server reads the newest write at once');

    const page = await ca.json('GET', `${CM}?limit=5`);
    t.equal(page.body.items.length, 5);
    const token = page.body.metadata.continue as string;
    t.ok(token);
    await cb.json('DELETE', `${CM}/w10`);
    const rest = await cb.json('GET', `${CM}?limit=100&continue=${encodeURIComponent(token)}`);
    t.equal(rest.status, 200, JSON.stringify(rest.body).slice(0, 300));
    const names = [...page.body.items, ...rest.body.items].map((i: any) => i.metadata.name);
    t.equal(names.length, 21, 'every object of the snapshot, the later delete not shown');
    t.ok(names.includes('w10'));

    // the lease reconciler of each server keeps its address among the kubernetes endpoints
    const endpoints = await waitFor(
      'both servers in the kubernetes endpoints',
      async () => {
        const ep = await cb.json('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
        const ips = (ep.body.subsets?.[0]?.addresses ?? []).map((x: any) => x.ip).sort();
        return ips.length === 2 ? ips : undefined;
      },
      40_000,
    );
    t.same(endpoints, ['127.0.0.1', '127.0.0.2']);
    const leases = await ca.json('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io/identity%3Dkube-apiserver');
    // kube names the identity lease after the host: servers on one host (as here) renew the same one
    t.equal(leases.body.items.length, 1, 'the identity lease of this host');
    t.match(leases.body.items[0].spec.holderIdentity, /^apiserver-[a-z0-9]+_[0-9a-f-]{36}$/);
    // one server goes: its address leaves the endpoints once its lease expires (15 s)
    await a.kill('SIGKILL');
    await waitFor(
      'the dead server gone from the endpoints',
      async () => {
        const ep = await cb.json('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
        const ips = (ep.body.subsets?.[0]?.addresses ?? []).map((x: any) => x.ip);
        return ips.length === 1 && ips[0] === '127.0.0.2';
      },
      40_000,
    );
  });

  t.test('kill -9 of one server under write load from clients of both: no acknowledged write lost, each event once', async (t) => {
    const [a, b] = await servers(t, pg, 'crash', ['127.0.0.1', '127.0.0.1']);
    const cb = b.client();
    const start = await cb.json('GET', CM);
    const seen = new Map<string, number>();
    const watch = openWatch(cb, `${CM}?watch=1&resourceVersion=${start.body.metadata.resourceVersion}`, (f) => {
      if (f.type === 'ADDED') seen.set(f.object.metadata.name, (seen.get(f.object.metadata.name) ?? 0) + 1);
    });
    t.teardown(() => watch.close());
    t.equal(await watch.status, 200);
    const acked = new Map<string, string>();
    let stop = false;
    const writer = async (client: Client, prefix: string) => {
      for (let i = 0; !stop; i++) {
        const name = `${prefix}-${i}`;
        try {
          const r = await client.json('POST', CM, configMap(name, { by: prefix }));
          if (r.status === 201) acked.set(name, r.body.metadata.resourceVersion);
        } catch {
          return; // the server died with this write in flight: its outcome is unknown
        }
      }
    };
    const ca = a.client();
    const writers = [
      ...Array.from({ length: 6 }, (_, i) => writer(ca, `a${i}`)),
      ...Array.from({ length: 6 }, (_, i) => writer(cb, `b${i}`)),
    ];
    await sleep(1500);
    await a.kill('SIGKILL');
    const atKill = acked.size;
    await sleep(1000);
    stop = true;
    await Promise.all(writers);
    t.ok(atKill > 50, `writes acknowledged before the kill: ${atKill}`);
    t.ok(acked.size > atKill, `the other server kept taking writes (${acked.size - atKill} after the kill)`);
    const list = await cb.json('GET', CM);
    const stored = new Map<string, string>(list.body.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion]));
    const lost = [...acked].filter(([name, rv]) => stored.get(name) !== rv);
    t.same(lost, [], 'every acknowledged write is stored with the resourceVersion it was acknowledged with');
    const last = Math.max(...[...stored.values()].map(Number));
    await watch.waitFor((f) => Number(f.object?.metadata?.resourceVersion) >= last, 10_000);
    const twice = [...seen].filter(([, n]) => n !== 1);
    t.same(twice, [], 'no event repeated');
    t.same(
      [...stored.keys()].filter((n) => !seen.has(n)),
      [],
      "every stored object's event reached the watch on the surviving server",
    );
    const rvs = watch.frames.map((f) => Number(f.object.metadata.resourceVersion));
    t.ok(
      rvs.every((rv, i) => i === 0 || rv > rvs[i - 1]),
      'events in increasing resourceVersion order',
    );
    // the killed server comes back on the same database and sees everything
    await a.restart();
    const again = await a.client().json('GET', CM);
    t.equal(again.body.items.length, stored.size);
  });

  t.test('services created at once on both servers never share a cluster IP or a node port', async (t) => {
    // 13 addresses to hand out (the first is the kubernetes service's) and 10 node ports
    const [a, b] = await servers(t, pg, 'alloc', ['127.0.0.1', '127.0.0.1'], ['--service-cluster-ip-range', '10.0.0.0/28', '--service-node-port-range', '30000-30009']);
    const clients = [a.client(), b.client()];
    const SVC = '/api/v1/namespaces/default/services';
    const svc = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'NodePort', selector: { app: name }, ports: [{ port: 80 }] } });
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => clients[i % 2].json('POST', SVC, svc(`s${i}`))));
    const created = answers.filter((r) => r.status === 201);
    t.ok(created.length >= 8, `created ${created.length} of 16 (10 node ports)`);
    for (const r of answers.filter((x) => x.status !== 201)) t.match(r.body.message, /range is full|already allocated/, `refused: ${r.body.message}`);
    const list = await clients[0].json('GET', SVC);
    const mine = list.body.items.filter((s: any) => s.metadata.name !== 'kubernetes');
    t.equal(mine.length, created.length, 'every acknowledged service is stored');
    const ips = mine.map((s: any) => s.spec.clusterIP);
    const ports = mine.map((s: any) => s.spec.ports[0].nodePort);
    t.equal(new Set(ips).size, ips.length, `distinct cluster IPs: ${ips.join(' ')}`);
    t.equal(new Set(ports).size, ports.length, `distinct node ports: ${ports.join(' ')}`);
  });

  t.test('a database restart: 5xx and an unready /readyz while it is down, then recovery by itself', async (t) => {
    const [a] = await servers(t, pg, 'restart', ['127.0.0.1']);
    const c = a.client();
    t.equal((await c.json('POST', CM, configMap('before'))).status, 201);
    await pg.stopServer();
    const down = await c.json('POST', CM, configMap('down'));
    t.ok(down.status >= 500, `a write while the database is down: ${down.status} ${down.body.reason}`);
    t.equal(down.body.kind, 'Status');
    const ready = await c.request('GET', '/readyz?verbose');
    t.equal(ready.status, 500);
    t.match(ready.body, /\[-\]etcd failed/);
    await pg.start();
    await waitFor('/readyz back to 200', async () => (await c.request('GET', '/readyz')).status === 200, 30_000);
    t.equal((await c.json('POST', CM, configMap('after'))).status, 201);
    const list = await c.json('GET', CM);
    t.same(
      list.body.items.map((i: any) => i.metadata.name),
      ['after', 'before'],
    );
  });
});
