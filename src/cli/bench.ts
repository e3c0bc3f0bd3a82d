/**
 * `ballast bench`: the benchmark suite of bench/ (the same as `make bench`): the real server and etcd
 * side by side on loopback, results printed as a table and written to bench/results/<run>/.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ALL_SCENARIOS, defaultConfig, runBench } from '../../bench/run';
import type { CliIo, Command } from './io';

const HELP = `Run the benchmark suite against a real server process (and etcd, side by side).

Usage:
  ballast bench [flags]

Flags:
      --quick                  small sizes and counts (CI smoke, about a minute)
      --sizes LIST             collection sizes of the read scenarios (default 1000,10000,100000)
      --clients LIST           concurrent clients of the write scenarios (default 1,16,64)
      --write-counts A,B       operations per write measurement with 1 client, with more (default 300,3000)
      --watchers LIST          watcher counts (default 1,100,1000)
      --watch-events N         events per watch latency measurement (default 50)
      --churn-seconds N        churn duration; 0 skips it (default 600)
      --churn-compaction D     --etcd-compaction-interval of the churn server (default 1m)
      --scenarios LIST         any of ${ALL_SCENARIOS.join(',')} (default all)
      --no-etcd                do not run etcd side by side
      --no-postgres            do not run the writes, reads and watch again on PostgreSQL (one API
                               server, then two on one database)
      --no-auth                the server's own defaults (anonymous, AlwaysAllow) instead of make run's
                               flags with the clients as an RBAC-bound service account
      --cpu-prof DIR           write a CPU profile of the server (node --cpu-prof) into DIR
      --server-args ARGS       extra flags of the server under test, space-separated (e.g. "--watch-cache=false")
      --out DIR                results folder (default bench/results/<full|quick>)
  -h, --help                   show this help
`;

const list = (s: string) => s.split(',').map((x) => Number(x.trim())).filter((n) => Number.isFinite(n) && n > 0);

export const benchCommand: Command = Object.freeze({
  name: 'bench',
  summary: 'benchmark the API server against etcd (writes, reads, watch, footprint, churn)',
  async run(argv: readonly string[], io: CliIo): Promise<number> {
    let values: Record<string, string | boolean | undefined>;
    try {
      values = parseArgs({
        args: [...argv],
        options: {
          quick: { type: 'boolean' },
          sizes: { type: 'string' },
          clients: { type: 'string' },
          'write-counts': { type: 'string' },
          watchers: { type: 'string' },
          'watch-events': { type: 'string' },
          'churn-seconds': { type: 'string' },
          'churn-compaction': { type: 'string' },
          scenarios: { type: 'string' },
          'no-etcd': { type: 'boolean' },
          'no-postgres': { type: 'boolean' },
          'no-auth': { type: 'boolean' },
          'cpu-prof': { type: 'string' },
          'server-args': { type: 'string' },
          out: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
      }).values;
    } catch (err) {
      io.stderr(`Error: ${(err as Error).message}\nRun 'ballast bench --help' for usage.\n`);
      return 1;
    }
    if (values.help) {
      io.stdout(HELP);
      return 0;
    }
    const quick = values.quick === true;
    const repo = path.resolve(__dirname, '..', '..', '..');
    const cfg = defaultConfig(quick, path.resolve((values.out as string) ?? path.join(repo, 'bench', 'results', quick ? 'quick' : 'full')));
    if (values.sizes) cfg.sizes = list(values.sizes as string).sort((a, b) => a - b);
    if (values.clients) cfg.writeClients = list(values.clients as string);
    if (values['write-counts']) {
      const [a, b] = list(values['write-counts'] as string);
      cfg.writeCounts = [a ?? cfg.writeCounts[0], b ?? a ?? cfg.writeCounts[1]];
    }
    if (values.watchers) cfg.watchers = list(values.watchers as string);
    if (values['watch-events']) cfg.watchEvents = Number(values['watch-events']);
    if (values['churn-seconds'] !== undefined) cfg.churnSeconds = Number(values['churn-seconds']);
    if (values['churn-compaction']) cfg.churnCompaction = values['churn-compaction'] as string;
    if (values.scenarios) {
      const s = (values.scenarios as string).split(',').map((x) => x.trim());
      const unknown = s.filter((x) => !ALL_SCENARIOS.includes(x));
      if (unknown.length) {
        io.stderr(`Error: unknown scenario(s) ${unknown.join(', ')}; expected ${ALL_SCENARIOS.join(', ')}\n`);
        return 1;
      }
      cfg.scenarios = new Set(s);
    }
    if (values['no-etcd']) cfg.etcd = false;
    if (values['no-postgres']) cfg.postgres = false;
    if (values['no-auth']) cfg.secured = false;
    if (values['server-args']) cfg.serverArgs = (values['server-args'] as string).split(/\s+/).filter(Boolean);
    if (values['cpu-prof']) cfg.cpuProfDir = path.resolve(values['cpu-prof'] as string);
    try {
      await runBench({
        cfg,
        mainJs: path.join(__dirname, 'main.js'),
        command: ['ballast', 'bench', ...argv].join(' '),
        name: 'results',
        log: (line) => io.stdout(line + '\n'),
        quietProgress: io.env.BALLAST_BENCH_QUIET === '1',
      });
      return 0;
    } catch (err) {
      io.stderr(`Error: ${(err as Error).stack ?? String(err)}\n`);
      return 1;
    }
  },
});
