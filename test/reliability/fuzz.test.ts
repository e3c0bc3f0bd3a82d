/**
 * Short form of the bad input run (make soak sends 10,000): 1,000 generated requests that must all
 * fail -> no 5xx, the right 4xx with a fitting Status, the server alive, the stored state unchanged.
 * Failures that match a known bug in another part are reported as todo (see knownBugs in fuzz-tool).
 */
import fs from 'node:fs';
import t from 'tap';
import { formatFuzzFigures, knownBugs, runFuzz } from './fuzz-tool';
import { MAIN_JS } from './lib/server';

t.test('1,000 malformed requests: clean 4xx Statuses, no crash, no state change', { skip: fs.existsSync(MAIN_JS) ? false : 'run make build first' }, async (t) => {
  const f = await runFuzz({ requests: 1000, seed: Number(process.env.FUZZ_SEED) || undefined, concurrency: 8 });
  t.comment(formatFuzzFigures(f));
  const unknown = f.failures.filter((x) => !x.knownBug);
  t.same(
    unknown.map((x) => `#${x.index} [${x.category}] ${x.request} -> ${x.got}: ${x.why}`),
    [],
    `every request answered with a fitting 4xx Status (seed ${f.seed})`,
  );
  t.ok(f.serverAlive, 'the server process is alive and /healthz ok');
  t.ok(f.stateUnchanged, `stored state unchanged: ${f.stateDiff.join('; ')}`);
  t.equal(f.requests, 1000);
  for (const bug of knownBugs) {
    const hits = f.failures.filter((x) => x.knownBug === bug.id);
    t.equal(hits.length, 0, `known bug: ${bug.id}${hits[0] ? ` (e.g. #${hits[0].index} ${hits[0].request} -> ${hits[0].got})` : ''}`, { todo: 'owned by another part; see the reliability report' });
  }
});
