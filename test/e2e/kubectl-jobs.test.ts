/**
 * kubectl 1.32 drives Jobs and CronJobs against the real server with the job and cronjob
 * controllers running, and a fake node that runs every pod to success.
 */
import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';
import { kubectlFor, missingKubectl, startApiServer, waitFor } from './harness';

t.test('kubectl 1.32 against the job and cronjob controllers', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['job', 'cronjob', 'garbagecollector']);
  startFakeNode(t, client, { finish: () => 'Succeeded' });
  const k = kubectlFor(t, '1.32', server);

  await t.test('create job, wait for completion, get jobs', async (t) => {
    await k.ok(['create', 'job', 'once', '--image=busybox', '--', 'true']);
    t.match(await k.ok(['wait', '--for=condition=complete', 'job/once', '--timeout=60s']), /job.batch\/once condition met/);
    const table = await k.ok(['get', 'jobs', 'once']);
    t.match(table, /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE/);
    t.match(table, /once\s+Complete\s+1\/1\s+/);
  });

  await t.test('create cronjob, then a job from it by hand', async (t) => {
    await k.ok(['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *', '--', 'true']);
    t.match(await k.ok(['get', 'cronjobs', 'nightly']), /nightly\s+0 3 \* \* \*/);
    await k.ok(['create', 'job', 'manual', '--from=cronjob/nightly']);
    t.match(await k.ok(['wait', '--for=condition=complete', 'job/manual', '--timeout=60s']), /condition met/);
    const job = await client.get(RESOURCES.jobs, 'default', 'manual');
    t.equal(job.metadata?.annotations?.['cronjob.kubernetes.io/instantiate'], 'manual');
    t.match(job.metadata?.ownerReferences, [{ kind: 'CronJob', name: 'nightly' }]);
    t.match(await k.ok(['get', 'jobs', 'manual']), /manual\s+Complete\s+1\/1\s+/);
    // the cronjob controller leaves a finished job it did not start alone (no UnexpectedJob: it is finished)
    await waitFor('status', async () => ((await client.get(RESOURCES.jobs, 'default', 'manual')).status as { succeeded?: number }).succeeded === 1);
  });
});
