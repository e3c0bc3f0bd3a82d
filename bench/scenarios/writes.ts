/**
 * Writes: create, update (PUT with the object's resourceVersion, kube's optimistic precondition)
 * and delete of 1 KiB ConfigMaps with 1, 16 and 64 concurrent clients; etcd: put, txn comparing
 * mod_revision, deleterange of values of the same size.
 */
import { ballastClient, cmPath, configMap, ensureNamespace, etcdClient, etcdValue } from '../lib/context';
import type { BenchContext } from '../lib/context';
import { runConcurrent, summarize, round } from '../lib/stats';

/** writes per system before anything is measured (a quick run: fewer) */
const WARM_UP = 600;

/**
 * the same create/update/delete cycle, unmeasured, on both systems first: the measured figures are
 * the steady state, not Node's JIT compiling the request path during the first single-client run
 */
async function warmUp(ctx: BenchContext, ns: string): Promise<void> {
  const count = ctx.cfg.quick ? 60 : WARM_UP;
  const http = ballastClient(ctx, 16);
  ctx.progress.start('ballast warm-up (not measured)', count * 3);
  const tick = () => ctx.progress.tick();
  const rvs: string[] = new Array(count);
  await runConcurrent(count, 16, async (i) => {
    rvs[i] = (await http.json<{ metadata: { resourceVersion: string } }>('POST', cmPath(ns), configMap(`warm-${i}`, ns, ctx.cfg.objectBytes))).metadata.resourceVersion;
  }, tick);
  await runConcurrent(count, 16, async (i) => {
    await http.json('PUT', cmPath(ns, `warm-${i}`), configMap(`warm-${i}`, ns, ctx.cfg.objectBytes, { resourceVersion: rvs[i] }));
  }, tick);
  await runConcurrent(count, 16, async (i) => {
    await http.json('DELETE', cmPath(ns, `warm-${i}`));
  }, tick);
  ctx.progress.stop();
  http.close();
  const etcd = etcdClient(ctx, 16);
  if (!etcd) return;
  ctx.progress.start('etcd warm-up (not measured)', count * 2);
  await runConcurrent(count, 16, (i) => etcd.put(`/bench/warm/${i}`, etcdValue(`warm-${i}`, ctx.cfg.objectBytes)).then(() => undefined), tick);
  await runConcurrent(count, 16, (i) => etcd.del(`/bench/warm/${i}`).then(() => undefined), tick);
  ctx.progress.stop();
  etcd.close();
}

export async function writeScenario(ctx: BenchContext): Promise<void> {
  const { cfg } = ctx;
  const ns = 'bench-writes';
  const admin = ballastClient(ctx, 1);
  await ensureNamespace(admin, ns);
  admin.close();
  await warmUp(ctx, ns);
  for (const clients of cfg.writeClients) {
    const count = clients === 1 ? cfg.writeCounts[0] : cfg.writeCounts[1];
    const http = ballastClient(ctx, clients);
    const names = Array.from({ length: count }, (_, i) => `w${clients}-${i}`);
    const rvs: string[] = new Array(count);
    const phase = async (op: string, fn: (i: number) => Promise<void>) => {
      ctx.progress.start(`ballast ${op} x${clients}`, count);
      const { latencies, elapsedMs } = await runConcurrent(count, clients, fn, () => ctx.progress.tick());
      ctx.progress.stop();
      ctx.results.writes.push({ system: 'ballast', op, clients, count, opsPerSec: round((count / elapsedMs) * 1000, 1), latency: summarize(latencies) });
    };
    await phase('create', async (i) => {
      const o = await http.json<{ metadata: { resourceVersion: string } }>('POST', cmPath(ns), configMap(names[i], ns, cfg.objectBytes));
      rvs[i] = o.metadata.resourceVersion;
    });
    await phase('update', async (i) => {
      const body = configMap(names[i], ns, cfg.objectBytes, { resourceVersion: rvs[i], annotations: { round: '2' } });
      await http.json('PUT', cmPath(ns, names[i]), body);
    });
    await phase('delete', async (i) => {
      await http.json('DELETE', cmPath(ns, names[i]));
    });
    http.close();

    const etcd = etcdClient(ctx, clients);
    if (!etcd) continue;
    const keys = names.map((n) => `/bench/writes/${n}`);
    const revs: number[] = new Array(count);
    const ephase = async (op: string, fn: (i: number) => Promise<void>) => {
      ctx.progress.start(`etcd ${op} x${clients}`, count);
      const { latencies, elapsedMs } = await runConcurrent(count, clients, fn, () => ctx.progress.tick());
      ctx.progress.stop();
      ctx.results.writes.push({ system: 'etcd', op, clients, count, opsPerSec: round((count / elapsedMs) * 1000, 1), latency: summarize(latencies) });
    };
    await ephase('put', async (i) => {
      revs[i] = await etcd.put(keys[i], etcdValue(names[i], cfg.objectBytes));
    });
    await ephase('txn', async (i) => {
      if (!(await etcd.putIf(keys[i], etcdValue(names[i], cfg.objectBytes), revs[i]))) throw new Error('txn compare failed');
    });
    await ephase('deleterange', async (i) => {
      await etcd.del(keys[i]);
    });
    etcd.close();
  }
}
