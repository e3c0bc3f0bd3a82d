import t from 'tap';
import { ApiError } from '../../src/client/errors';
import type { KubeObject } from '../../src/client/types';
import { cleanupFinishedJobs, jobFromTemplate, syncCronJob, type CronJobActions } from '../../src/controllers/cronjob/cronjob-sync';
import { formatRfc1123z, parseGoDuration, parseSchedule, TOO_MANY_MISSED, unmetScheduleTimes } from '../../src/controllers/cronjob/schedule';

const T0 = Date.parse('2024-03-10T12:00:00Z');
const MIN = 60_000;

interface Recorded {
  reason: string;
  type: string;
  message: string;
}

/** an in-memory API for a pass: Jobs by name, the CronJob's written statuses, the events */
function fakeApi(jobs: KubeObject[] = []) {
  const store = new Map(jobs.map((j) => [j.metadata!.name!, j]));
  const events: Recorded[] = [];
  const statuses: unknown[] = [];
  const deleted: string[] = [];
  let uid = 0;
  const act: CronJobActions = {
    async createJob(namespace, job) {
      if (store.has(job.metadata!.name!)) throw new ApiError(409, { kind: 'Status', reason: 'AlreadyExists', message: 'exists' });
      const created = { ...job, metadata: { ...job.metadata, namespace, uid: `job-${++uid}`, resourceVersion: '1' } };
      store.set(job.metadata!.name!, created);
      return created;
    },
    async getJob(_ns, name) {
      const j = store.get(name);
      if (!j) throw new ApiError(404, { kind: 'Status', reason: 'NotFound', message: `jobs "${name}" not found` });
      return j;
    },
    async deleteJob(_ns, name) {
      store.delete(name);
      deleted.push(name);
    },
    async updateStatus(cj) {
      statuses.push(structuredClone(cj.status));
      return structuredClone(cj);
    },
    event(_obj, type, reason, message) {
      events.push({ type, reason, message });
    },
  };
  return { act, store, events, statuses, deleted };
}

function cronJob(spec: Record<string, unknown>, status: Record<string, unknown> = {}, created = T0): KubeObject {
  return {
    apiVersion: 'batch/v1beta1',
    kind: 'CronJob',
    metadata: { name: 'cj', namespace: 'ns', uid: 'cj-uid', creationTimestamp: new Date(created).toISOString() },
    spec: { schedule: '*/5 * * * *', jobTemplate: { metadata: { labels: { a: 'b' } }, spec: { template: { spec: { containers: [] } } } }, ...spec },
    status,
  };
}

function finishedJob(name: string, type: 'Complete' | 'Failed', start: number): KubeObject {
  return {
    metadata: { name, namespace: 'ns', uid: `${name}-uid`, ownerReferences: [{ apiVersion: 'batch/v1beta1', kind: 'CronJob', name: 'cj', uid: 'cj-uid', controller: true }] },
    status: { startTime: new Date(start).toISOString(), conditions: [{ type, status: 'True' }] },
  };
}

t.test('schedules as robfig/cron ParseStandard reads them', async (t) => {
  t.equal(parseSchedule('*/5 * * * *').next(T0), T0 + 5 * MIN, 'next is strictly after');
  t.equal(parseSchedule('@hourly').next(T0 + 1), T0 + 60 * MIN);
  t.equal(parseSchedule('@daily').next(T0), Date.parse('2024-03-11T00:00:00Z'));
  t.equal(parseSchedule('@every 5s').next(T0 + 300), T0 + 5000, '@every: rounded down to the second, plus the delay');
  t.equal(parseSchedule('@every 100ms').next(T0), T0 + 1000, 'at least a second');
  t.equal(parseSchedule('TZ=Europe/Paris 0 13 * * *').next(T0 - MIN), T0, '13:00 in Paris is 12:00 UTC in March');
  t.equal(parseGoDuration('1h30m'), 90 * MIN);
  t.equal(parseGoDuration('5x'), undefined);
  t.throws(() => parseSchedule('@sometimes'), /unrecognized descriptor/);
  t.throws(() => parseSchedule('* * *'), /expected exactly 5 fields/);
  t.equal(formatRfc1123z(T0), 'Sun, 10 Mar 2024 12:00:00 +0000');
});

t.test('getRecentUnmetScheduleTimes', async (t) => {
  const base = { schedule: '*/5 * * * *', creationTime: T0 };
  t.same(unmetScheduleTimes(base, T0 + 4 * MIN), [], 'nothing due yet');
  t.same(unmetScheduleTimes(base, T0 + 11 * MIN), [T0 + 5 * MIN, T0 + 10 * MIN], 'every missed time since creation');
  t.same(unmetScheduleTimes({ ...base, lastScheduleTime: T0 + 5 * MIN }, T0 + 11 * MIN), [T0 + 10 * MIN], 'since the last scheduled time');
  t.same(unmetScheduleTimes({ ...base, startingDeadlineSeconds: 120 }, T0 + 11 * MIN), [T0 + 10 * MIN], 'bounded by startingDeadlineSeconds');
  t.throws(() => unmetScheduleTimes(base, T0 + 600 * MIN), new Error(TOO_MANY_MISSED), 'more than 100 missed');
  t.same(unmetScheduleTimes({ ...base, startingDeadlineSeconds: 600 }, T0 + 600 * MIN).length, 2, 'the deadline keeps the count small');
  t.throws(() => unmetScheduleTimes({ ...base, schedule: 'bad' }, T0), /unparseable schedule: bad/);
});

t.test('a due run creates the job named after its time in minutes, and records it', async (t) => {
  const api = fakeApi();
  const cj = await syncCronJob(cronJob({}), [], T0 + 6 * MIN, api.act);
  const name = `cj-${(T0 + 5 * MIN) / MIN}`;
  const job = api.store.get(name);
  t.ok(job, name);
  t.match(job!.metadata, { labels: { a: 'b' }, ownerReferences: [{ apiVersion: 'batch/v1beta1', kind: 'CronJob', name: 'cj', uid: 'cj-uid', controller: true, blockOwnerDeletion: true }] });
  t.match(cj!.status, { active: [{ kind: 'Job', name, uid: 'job-1', namespace: 'ns', apiVersion: 'batch/v1' }], lastScheduleTime: new Date(T0 + 5 * MIN).toISOString().replace('.000Z', 'Z') });
  t.same(api.events, [{ type: 'Normal', reason: 'SuccessfulCreate', message: `Created job ${name}` }]);
  // the same pass again (nothing new is due): no second job
  await syncCronJob(cj!, [api.store.get(name)!], T0 + 7 * MIN, api.act);
  t.equal(api.store.size, 1);
  t.same(jobFromTemplate(cronJob({}), T0).metadata?.name, `cj-${T0 / MIN}`);
});

t.test('suspend, a missed deadline and too many missed times start nothing', async (t) => {
  let api = fakeApi();
  await syncCronJob(cronJob({ suspend: true }), [], T0 + 6 * MIN, api.act);
  t.equal(api.store.size, 0, 'suspended');

  api = fakeApi();
  // due at +5 min, looked at 2 min late with a 60 s deadline: the window bounds the unmet times, so
  // (as in kube 1.20's v1 controller) the run is dropped without a MissSchedule event
  await syncCronJob(cronJob({ startingDeadlineSeconds: 60 }, { lastScheduleTime: new Date(T0).toISOString() }), [], T0 + 7 * MIN, api.act);
  t.equal(api.store.size, 0);
  t.same(api.events, []);

  api = fakeApi();
  await syncCronJob(cronJob({}), [], T0 + 1000 * MIN, api.act);
  t.equal(api.store.size, 0);
  t.same(api.events, [{ type: 'Warning', reason: 'FailedNeedsStart', message: `Cannot determine if job needs to be started: ${TOO_MANY_MISSED}` }]);
});

t.test('concurrencyPolicy', async (t) => {
  const running: KubeObject = { metadata: { name: 'cj-old', namespace: 'ns', uid: 'old-uid' }, status: { active: 1 } };
  const status = { active: [{ kind: 'Job', name: 'cj-old', namespace: 'ns', uid: 'old-uid' }], lastScheduleTime: new Date(T0).toISOString() };

  await t.test('Forbid: no new job while one runs', async (t) => {
    const api = fakeApi([running]);
    const cj = await syncCronJob(cronJob({ concurrencyPolicy: 'Forbid' }, structuredClone(status)), [running], T0 + 6 * MIN, api.act);
    t.equal(api.store.size, 1);
    t.equal((cj!.status as { active: unknown[] }).active.length, 1);
  });

  await t.test('Allow: a second job runs alongside', async (t) => {
    const api = fakeApi([running]);
    const cj = await syncCronJob(cronJob({}, structuredClone(status)), [running], T0 + 6 * MIN, api.act);
    t.equal(api.store.size, 2);
    t.equal((cj!.status as { active: unknown[] }).active.length, 2);
  });

  await t.test('Replace: the running job is deleted, then the new one made', async (t) => {
    const api = fakeApi([running]);
    const cj = await syncCronJob(cronJob({ concurrencyPolicy: 'Replace' }, structuredClone(status)), [running], T0 + 6 * MIN, api.act);
    t.same(api.deleted, ['cj-old']);
    t.same([...api.store.keys()], [`cj-${(T0 + 5 * MIN) / MIN}`]);
    t.match((cj!.status as { active: { name: string }[] }).active, [{ name: `cj-${(T0 + 5 * MIN) / MIN}` }]);
    t.same(api.events.map((e) => `${e.reason}: ${e.message}`), ['SuccessfulDelete: Deleted job cj-old', `SuccessfulCreate: Created job cj-${(T0 + 5 * MIN) / MIN}`]);
  });
});

t.test('active list: completed jobs leave it, missing ones too, strangers are reported', async (t) => {
  const done = finishedJob('cj-done', 'Complete', T0);
  const stranger: KubeObject = { metadata: { name: 'cj-stranger', namespace: 'ns', uid: 'stranger-uid' } };
  const status = {
    active: [
      { name: 'cj-done', uid: 'cj-done-uid' },
      { name: 'cj-gone', uid: 'gone-uid' },
    ],
    lastScheduleTime: new Date(T0 + 5 * MIN).toISOString(),
  };
  const api = fakeApi();
  const cj = await syncCronJob(cronJob({}, status), [done, stranger], T0 + 6 * MIN, api.act);
  t.same((cj!.status as { active: unknown[] }).active, []);
  t.same(api.events.map((e) => `${e.reason}: ${e.message}`).sort(), [
    'MissingJob: Active job went missing: cj-gone',
    'SawCompletedJob: Saw completed job: cj-done, status: Complete',
    'UnexpectedJob: Saw a job that the controller did not create or forgot: cj-stranger',
  ]);
  t.same(api.statuses.length, 1, 'status written once');
});

t.test('history limits delete the oldest finished jobs', async (t) => {
  const jobs = [
    finishedJob('s1', 'Complete', T0),
    finishedJob('s2', 'Complete', T0 + MIN),
    finishedJob('s3', 'Complete', T0 + 2 * MIN),
    finishedJob('f1', 'Failed', T0),
    finishedJob('f2', 'Failed', T0 + MIN),
  ];
  const api = fakeApi(jobs);
  await cleanupFinishedJobs(cronJob({ successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1 }), jobs, api.act);
  t.same(api.deleted.sort(), ['f1', 's1', 's2']);
  t.ok(api.events.every((e) => e.reason === 'SuccessfulDelete'));

  const none = fakeApi(jobs);
  await cleanupFinishedJobs(cronJob({}), jobs, none.act);
  t.same(none.deleted, [], 'no limits: nothing deleted');
});
