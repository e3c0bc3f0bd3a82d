import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';

interface JobStatus {
  active?: number;
  succeeded?: number;
  failed?: number;
  startTime?: string;
  completionTime?: string;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

function job(name: string, spec: Record<string, unknown>, restartPolicy = 'Never'): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: { ...spec, template: { spec: { restartPolicy, containers: [{ name: 'c', image: 'busybox' }] } } },
  };
}

// how the test node ends each Job's pods (by the job-name label the API server adds)
const ENDINGS: Record<string, 'Succeeded' | 'Failed'> = { ok: 'Succeeded', fail: 'Failed', ttl: 'Succeeded' };

t.test('job and ttl-after-finished controllers against the real server', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['job', 'ttl-after-finished', 'garbagecollector']);
  const node = startFakeNode(t, client, { finish: (pod) => ENDINGS[pod.metadata?.labels?.['job-name'] ?? ''] });
  const statusOf = async (name: string) => ((await client.get(RESOURCES.jobs, 'default', name)).status ?? {}) as JobStatus;
  const podsOf = async (name: string) => (await client.list(RESOURCES.pods, 'default', { labelSelector: `job-name=${name}` })).items;
  const livePods = async (name: string) => (await podsOf(name)).filter((p) => !p.metadata?.deletionTimestamp && !['Succeeded', 'Failed'].includes((p.status as { phase?: string }).phase ?? ''));
  const events = async (name: string, reason: string) =>
    (await client.list(RESOURCES.events, 'default')).items.filter((e) => e.reason === reason && (e.involvedObject as { name?: string }).name === name);
  const finished = (name: string, type: string) =>
    waitFor(`${name} ${type}`, async () => {
      const s = await statusOf(name);
      return s.conditions?.some((c) => c.type === type && c.status === 'True') && s;
    });

  await t.test('completions 3, parallelism 2: two pods at a time, then Complete', async (t) => {
    node.hold((p) => p.metadata?.labels?.['job-name'] === 'ok');
    const created = await client.create(RESOURCES.jobs, 'default', job('ok', { completions: 3, parallelism: 2 }));
    await waitFor('two active pods', async () => (await statusOf('ok')).active === 2);
    const first = await podsOf('ok');
    t.equal(first.length, 2, 'parallelism bounds the pods');
    for (const pod of first) {
      t.match(pod.metadata?.name, /^ok-[a-z0-9]{5}$/);
      t.match(pod.metadata?.ownerReferences?.[0], { kind: 'Job', name: 'ok', uid: created.metadata?.uid, controller: true, blockOwnerDeletion: true });
    }
    node.release();
    const s = await finished('ok', 'Complete');
    t.match(s, { active: undefined, succeeded: 3, failed: undefined });
    t.ok(s.startTime && s.completionTime, 'start and completion times');
    t.equal((await podsOf('ok')).length, 3, 'exactly 3 pods made');
    await waitFor('events', async () => (await events('ok', 'SuccessfulCreate')).length === 3 && (await events('ok', 'Completed')).length === 1);
    const [completed] = await events('ok', 'Completed');
    t.equal(completed!.message, 'Job completed');
  });

  await t.test('backoffLimit 1: two failed pods, then Failed with BackoffLimitExceeded', async (t) => {
    await client.create(RESOURCES.jobs, 'default', job('fail', { backoffLimit: 1 }));
    const s = await finished('fail', 'Failed');
    t.match(s, { active: undefined, failed: 2 });
    t.match(s.conditions?.find((c) => c.type === 'Failed'), { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    const [ev] = await waitFor('event', () => events('fail', 'BackoffLimitExceeded').then((e) => e.length > 0 && e));
    t.equal(ev!.type, 'Warning');
  });

  await t.test('activeDeadlineSeconds: Failed with DeadlineExceeded, running pods deleted', async (t) => {
    await client.create(RESOURCES.jobs, 'default', job('deadline', { activeDeadlineSeconds: 2, parallelism: 2, completions: 4 }));
    // (no wait for `active: 2` here: on a loaded machine the 2 s may pass before a poll sees it)
    const s = await finished('deadline', 'Failed');
    t.match(s, { active: undefined, failed: 2 });
    t.match(s.conditions?.find((c) => c.type === 'Failed'), { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' });
    await waitFor('pods deleted', async () => (await livePods('deadline')).length === 0);
    await waitFor('events', async () =>
      (await events('deadline', 'SuccessfulCreate')).length === 2 &&
      (await events('deadline', 'SuccessfulDelete')).length === 2 &&
      (await events('deadline', 'DeadlineExceeded')).length === 1);
    t.pass('pods deleted with events');
  });

  await t.test('a parallelism change scales the active pods up and down', async (t) => {
    await client.create(RESOURCES.jobs, 'default', job('scale', { parallelism: 1, completions: 5 }));
    await waitFor('one pod', async () => (await statusOf('scale')).active === 1);
    await client.patch(RESOURCES.jobs, 'default', 'scale', 'merge', { spec: { parallelism: 3 } });
    await waitFor('three pods', async () => (await statusOf('scale')).active === 3 && (await livePods('scale')).length === 3);
    await client.patch(RESOURCES.jobs, 'default', 'scale', 'merge', { spec: { parallelism: 1 } });
    await waitFor('one pod again', async () => (await statusOf('scale')).active === 1 && (await livePods('scale')).length === 1);
    t.pass('scaled');
  });

  await t.test('ttlSecondsAfterFinished: the finished Job and its pods are deleted', async (t) => {
    await client.create(RESOURCES.jobs, 'default', job('ttl', { ttlSecondsAfterFinished: 1 }));
    // the TTL may delete the Job before a poll sees its Complete condition; the Completed event outlives it
    await waitFor('ttl completed', async () => (await events('ttl', 'Completed')).length === 1);
    await waitFor('job deleted', async () => {
      try {
        await client.get(RESOURCES.jobs, 'default', 'ttl');
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 404;
      }
    });
    await waitFor('pods deleted', async () => (await podsOf('ttl')).length === 0);
    t.pass('cleaned up');
  });
});
