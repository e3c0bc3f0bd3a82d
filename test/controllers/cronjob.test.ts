import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';

t.test('cronjob controller against the real server', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['cronjob', 'job', 'garbagecollector']);
  startFakeNode(t, client, { finish: () => 'Succeeded' });
  const events = async (reason: string) =>
    (await client.list(RESOURCES.events, 'default')).items.filter((e) => e.reason === reason && (e.involvedObject as { kind?: string }).kind === 'CronJob');

  const cronJob: KubeObject = {
    apiVersion: 'batch/v1beta1',
    kind: 'CronJob',
    metadata: { name: 'tick' },
    spec: {
      schedule: '@every 5s',
      successfulJobsHistoryLimit: 0,
      jobTemplate: { metadata: { labels: { from: 'tick' } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
    },
  };
  const created = await client.create(RESOURCES.cronJobs, 'default', cronJob);

  // within one or two 10 s passes: a Job named after the scheduled minute, recorded as active
  const job = await waitFor('a job', async () => (await client.list(RESOURCES.jobs, 'default', { labelSelector: 'from=tick' })).items[0]);
  t.match(job.metadata?.name, /^tick-\d+$/);
  t.match(job.metadata?.ownerReferences, [{ apiVersion: 'batch/v1beta1', kind: 'CronJob', name: 'tick', uid: created.metadata?.uid, controller: true }]);
  const minutes = Number(job.metadata!.name!.slice('tick-'.length));
  t.ok(Math.abs(minutes * 60_000 - Date.now()) < 2 * 60_000, 'the suffix is the scheduled time in minutes');
  const [create] = await waitFor('SuccessfulCreate', () => events('SuccessfulCreate').then((e) => e.length > 0 && e));
  t.equal(create!.message, `Created job ${job.metadata?.name}`);
  const status = (await client.get(RESOURCES.cronJobs, 'default', 'tick')).status as { lastScheduleTime?: string; active?: { name: string }[] };
  t.ok(status.lastScheduleTime, 'lastScheduleTime');

  // the Job completes: the next pass sees it, drops it from active, and (history limit 0) deletes it
  const [saw] = await waitFor('SawCompletedJob', () => events('SawCompletedJob').then((e) => e.length > 0 && e), 40_000);
  t.equal(saw!.message, `Saw completed job: ${job.metadata?.name}, status: Complete`);
  const [del] = await waitFor('SuccessfulDelete', () => events('SuccessfulDelete').then((e) => e.length > 0 && e), 40_000);
  t.equal(del!.message, `Deleted job ${job.metadata?.name}`);
  await waitFor('job gone', async () => !(await client.list(RESOURCES.jobs, 'default')).items.some((j) => j.metadata?.name === job.metadata?.name));
  const after = (await client.get(RESOURCES.cronJobs, 'default', 'tick')).status as { active?: { name: string }[] };
  t.notOk(after.active?.some((r) => r.name === job.metadata?.name), 'no longer active');
});
