/** Short form of the crash safety tool (make soak runs the long form): 5 kill -9s under write load. */
import fs from 'node:fs';
import t from 'tap';
import { formatCrashFigures, runCrash } from './crash-tool';
import { MAIN_JS } from './lib/server';
import { postgresSkipReason, startPostgres } from '../helpers/postgres';

t.test('acknowledged writes survive kill -9 under load', { skip: fs.existsSync(MAIN_JS) ? false : 'run make build first' }, async (t) => {
  const figures = await runCrash({ kills: 5, clients: 16, keysPerClient: 8, minRunMs: 300, maxRunMs: 1200, seed: Number(process.env.CRASH_SEED) || undefined });
  t.comment(formatCrashFigures(figures));
  t.same(figures.violations, [], `no violations (seed ${figures.seed})`);
  t.equal(figures.kills, 5);
  t.equal(figures.integrityChecks, 5, 'integrity_check ran after every kill');
  t.ok(figures.acknowledgedWrites > 50, `writes were acknowledged (${figures.acknowledgedWrites})`);
  t.ok(figures.eventsChecked >= figures.acknowledgedWrites, 'every acknowledged write was seen on the resumed watches');
  t.equal(figures.modifiedAsAdded, 0, 'resumed watches call updates MODIFIED (see watch-resume.test.ts)');
});

t.test('acknowledged writes survive kill -9 under load on PostgreSQL', { skip: (fs.existsSync(MAIN_JS) ? undefined : 'run make build first') ?? postgresSkipReason() }, async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  const figures = await runCrash({ kills: 3, clients: 16, keysPerClient: 8, minRunMs: 300, maxRunMs: 1200, databaseUrl: pg.url, seed: Number(process.env.CRASH_SEED) || undefined });
  t.comment(formatCrashFigures(figures));
  t.same(figures.violations, [], `no violations (seed ${figures.seed})`);
  t.equal(figures.integrityChecks, 3, 'the log checked after every kill');
  t.ok(figures.acknowledgedWrites > 50, `writes were acknowledged (${figures.acknowledgedWrites})`);
  t.ok(figures.eventsChecked >= figures.acknowledgedWrites, 'every acknowledged write was seen on the resumed watches');
});
