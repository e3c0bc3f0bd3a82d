/**
 * Writes: create, update (PUT with the object's resourceVersion, kube's optimistic precondition)
 * and delete of 1 KiB ConfigMaps with 1, 16 and 64 concurrent clients; etcd: put, txn comparing
 * mod_revision, deleterange of values of the same size.
 */
import { ballastClient, cmPath, configMap, ensureNamespace, etcdClient, etcdValue, writerClients } from '../lib/context';
import type { BenchContext } from '../lib/context';
import { cpuSecondsOf } from '../lib/processes';
import { runConcurrent, summarize, round } from '../lib/stats';

/** CPU seconds the processes have used so far */
const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);

/** the CPU a measurement cost the server processes, per operation */
async function perOpCpu<T extends { elapsedMs: number }>(pids: number[], count: number, run: () => Promise<T>): Promise<T & { cpuMsPerOp: number }> {
  const before = cpuOf(pids);
  const r = await run();
  return { ...r, cpuMsPerOp: round(((cpuOf(pids) - before) * 1000) / count, 3) };
}

/** writes per system before anything is measured (a quick run: fewer) */
const WARM_UP = 600;

/**
 * the same create/update/delete cycle, unmeasured, on both systems first: the measured figures are
 * the steady state, not Node's JIT compiling the request path during the first single-client run
 */
async function warmUp(ctx: BenchContext, ns: string): Promise<void> {
  const count = ctx.cfg.quick ? 60 : WARM_UP;
  const clients = writerClients(ctx, 16);
  const http = { json: <T>(method: string, p: string, body?: unknown, i = 0) => clients[i % clients.length].json<T>(method, p, body) };
  ctx.progress.start(`${ctx.system} warm-up (not measured)`, count * 3);
  const tick = () => ctx.progress.tick();
  const rvs: string[] = new Array(count);
  await runConcurrent(count, 16, async (i) => {
    rvs[i] = (await http.json<{ metadata: { resourceVersion: string } }>('POST', cmPath(ns), configMap(`warm-${i}`, ns, ctx.cfg.objectBytes), i)).metadata.resourceVersion;
  }, tick);
  await runConcurrent(count, 16, async (i) => {
    await http.json('PUT', cmPath(ns, `warm-${i}`), configMap(`warm-${i}`, ns, ctx.cfg.objectBytes, { resourceVersion: rvs[i] }), i + 1);
  }, tick);
  await runConcurrent(count, 16, async (i) => {
    await http.json('DELETE', cmPath(ns, `warm-${i}`), undefined, i);
  }, tick);
  ctx.progress.stop();
  clients.forEach((c) => c.close());
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
    // with two servers each operation goes to one of them in turn (an update to the other server
    // than the create: its resourceVersion precondition is checked across servers)
    const servers = writerClients(ctx, clients);
    const on = (i: number) => servers[i % servers.length];
    const names = Array.from({ length: count }, (_, i) => `w${clients}-${i}`);
    const rvs: string[] = new Array(count);
    const phase = async (op: string, fn: (i: number) => Promise<void>) => {
      ctx.progress.start(`${ctx.system} ${op} x${clients}`, count);
      const pids = [ctx.ballast.pid, ...(ctx.peer ? [ctx.peer.pid] : [])];
      const { latencies, elapsedMs, cpuMsPerOp } = await perOpCpu(pids, count, () => runConcurrent(count, clients, fn, () => ctx.progress.tick()));
      ctx.progress.stop();
      ctx.results.writes.push({ system: ctx.system, op, clients, count, opsPerSec: round((count / elapsedMs) * 1000, 1), latency: summarize(latencies), serverCpuMsPerOp: cpuMsPerOp });
    };
    await phase('create', async (i) => {
      const o = await on(i).json<{ metadata: { resourceVersion: string } }>('POST', cmPath(ns), configMap(names[i], ns, cfg.objectBytes));
      rvs[i] = o.metadata.resourceVersion;
    });
    await phase('update', async (i) => {
      const body = configMap(names[i], ns, cfg.objectBytes, { resourceVersion: rvs[i], annotations: { round: '2' } });
      await on(i + 1).json('PUT', cmPath(ns, names[i]), body);
    });
    await phase('delete', async (i) => {
      await on(i).json('DELETE', cmPath(ns, names[i]));
    });
    servers.forEach((c) => c.close());

    const etcd = etcdClient(ctx, clients);
    if (!etcd) continue;
    const keys = names.map((n) => `/bench/writes/${n}`);
    const revs: number[] = new Array(count);
    const ephase = async (op: string, fn: (i: number) => Promise<void>) => {
      ctx.progress.start(`etcd ${op} x${clients}`, count);
      const { latencies, elapsedMs, cpuMsPerOp } = await perOpCpu([ctx.etcd!.pid], count, () => runConcurrent(count, clients, fn, () => ctx.progress.tick()));
      ctx.progress.stop();
      ctx.results.writes.push({ system: 'etcd', op, clients, count, opsPerSec: round((count / elapsedMs) * 1000, 1), latency: summarize(latencies), serverCpuMsPerOp: cpuMsPerOp });
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
