import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import {
  exceedsBackoffLimit,
  jobBackoffMs,
  pastActiveDeadline,
  pastBackoffLimitOnFailure,
  untilActiveDeadline,
  wantedActive,
} from '../../src/controllers/job/job-logic';

const pod = (phase: string, restarts: number[], init: number[] = []): KubeObject => ({
  status: { phase, containerStatuses: restarts.map((restartCount) => ({ restartCount })), initContainerStatuses: init.map((restartCount) => ({ restartCount })) },
});
const job = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({ spec, status });

t.test('wanted active pods (manageJob)', async (t) => {
  t.equal(wantedActive({ parallelism: 2, completions: 3 }, 0, 0), 2, 'parallelism bounds');
  t.equal(wantedActive({ parallelism: 2, completions: 3 }, 1, 2), 1, 'only what remains');
  t.equal(wantedActive({ parallelism: 3 }, 0, 0), 3, 'no completions: parallelism');
  t.equal(wantedActive({ parallelism: 3 }, 2, 1), 2, 'no completions, one succeeded: no new pods');
});

t.test('backoff limit', async (t) => {
  t.ok(exceedsBackoffLimit({ newFailure: true, active: 0, parallelism: 1, requeues: 1, backoffLimit: 1 }));
  t.notOk(exceedsBackoffLimit({ newFailure: true, active: 0, parallelism: 1, requeues: 0, backoffLimit: 1 }), 'first failure retried');
  t.notOk(exceedsBackoffLimit({ newFailure: false, active: 0, parallelism: 1, requeues: 5, backoffLimit: 1 }), 'no new failure');
  t.notOk(exceedsBackoffLimit({ newFailure: true, active: 2, parallelism: 2, requeues: 5, backoffLimit: 1 }), 'at full parallelism');
  t.ok(exceedsBackoffLimit({ newFailure: true, active: 0, parallelism: 1, requeues: 0, backoffLimit: 0 }), 'limit 0: the first failure');

  const onFailure = (limit: number) => job({ backoffLimit: limit, template: { spec: { restartPolicy: 'OnFailure' } } });
  t.ok(pastBackoffLimitOnFailure(onFailure(2), [pod('Running', [1], [1])]), 'restarts of init and app containers count');
  t.notOk(pastBackoffLimitOnFailure(onFailure(2), [pod('Running', [1]), pod('Failed', [5])]), 'finished pods do not');
  t.ok(pastBackoffLimitOnFailure(onFailure(0), [pod('Pending', [1])]), 'limit 0: any restart');
  t.notOk(pastBackoffLimitOnFailure(onFailure(0), [pod('Pending', [0])]));
  t.notOk(pastBackoffLimitOnFailure(job({ backoffLimit: 0, template: { spec: { restartPolicy: 'Never' } } }), [pod('Running', [3])]), 'only for OnFailure');

  t.same([0, 1, 2, 3, 10].map(jobBackoffMs), [0, 10_000, 20_000, 40_000, 360_000], '10 s doubling, at most 6 min');
});

t.test('active deadline', async (t) => {
  const start = Date.parse('2024-01-01T00:00:00Z');
  const j = job({ activeDeadlineSeconds: 30 }, { startTime: '2024-01-01T00:00:00Z' });
  t.notOk(pastActiveDeadline(j, start + 29_999));
  t.ok(pastActiveDeadline(j, start + 30_000));
  t.equal(untilActiveDeadline(j, start + 10_000), 20_000);
  t.notOk(pastActiveDeadline(job({}, { startTime: '2024-01-01T00:00:00Z' }), start + 1e9), 'no deadline');
  t.notOk(pastActiveDeadline(job({ activeDeadlineSeconds: 1 }), start), 'not started');
});
