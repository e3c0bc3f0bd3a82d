/**
 * `make soak`: the long forms of the reliability tools, one after another, with their figures
 * printed together at the end. Exit 1 when any of them found a violation.
 *   SOAK_KILLS (20), SOAK_FUZZ (10000), SOAK_CHURN_SECONDS (180), SOAK_SEED (random)
 */
import { formatChurnFigures, runChurn } from './churn-tool';
import { formatCrashFigures, runCrash } from './crash-tool';
import { formatFuzzFigures, runFuzz } from './fuzz-tool';
import { mib } from './lib/stats';
import { seedFrom } from './lib/stats';

async function main(): Promise<number> {
  const started = Date.now();
  const seed = seedFrom(process.env.SOAK_SEED);
  const log = (l: string) => console.log(l);
  const kills = Number(process.env.SOAK_KILLS ?? 20);
  const requests = Number(process.env.SOAK_FUZZ ?? 10_000);
  const churnSeconds = Number(process.env.SOAK_CHURN_SECONDS ?? 180);

  console.log(`== crash safety: ${kills} kill -9s (seed ${seed})`);
  const crash = await runCrash({ kills, seed, log });
  console.log(`== bad input: ${requests} requests (seed ${seed})`);
  const fuzz = await runFuzz({ requests, seed, concurrency: 8, log });
  console.log(`== compaction under load: ${churnSeconds}s of Lease churn, compaction every 5s`);
  const churn = await runChurn({ seconds: churnSeconds, compactionInterval: '5s', leases: 200, clients: 16, log });

  const fuzzUnknown = fuzz.failures.filter((x) => !x.knownBug);
  console.log('\n================ soak figures ================');
  console.log(`date ${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s, seed ${seed}`);
  console.log(formatCrashFigures(crash));
  for (const v of crash.violations.slice(0, 20)) console.log(`  - ${v}`);
  console.log(formatFuzzFigures(fuzz));
  for (const x of fuzzUnknown.slice(0, 20)) console.log(`  - #${x.index} [${x.category}] ${x.request} -> ${x.got}: ${x.why}`);
  console.log(formatChurnFigures(churn));
  console.log(`  database + WAL: max ${mib(churn.maxDbPlusWal)}, final ${mib(churn.finalDbPlusWal)} after ${churn.writes} renewals of 200 leases`);
  const ok = crash.violations.length === 0 && fuzzUnknown.length === 0 && fuzz.serverAlive && fuzz.stateUnchanged && churn.errors === 0;
  console.log(`soak ${ok ? 'passed' : 'FAILED'}: ${crash.kills} crashes survived, ${fuzz.requests} bad requests tried, ${crash.eventsChecked} watch events checked`);
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
