import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import { needsCleanup, timeLeft } from '../../src/controllers/ttlafterfinished/ttl-after-finished-controller';

const finishedAt = '2024-01-01T00:00:00Z';
const job = (ttl: number | undefined, conditions: Record<string, unknown>[]): KubeObject => ({
  metadata: { name: 'j', namespace: 'ns' },
  spec: ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl },
  status: { conditions },
});

t.test('which jobs the TTL controller cleans up, and when', async (t) => {
  const complete = [{ type: 'Complete', status: 'True', lastTransitionTime: finishedAt }];
  t.ok(needsCleanup(job(10, complete)));
  t.ok(needsCleanup(job(0, [{ type: 'Failed', status: 'True', lastTransitionTime: finishedAt }])), 'failed jobs too');
  t.notOk(needsCleanup(job(undefined, complete)), 'no TTL');
  t.notOk(needsCleanup(job(10, [])), 'not finished');
  t.notOk(needsCleanup(job(10, [{ type: 'Complete', status: 'False' }])), 'a False condition is not finished');
  const at = Date.parse(finishedAt);
  t.equal(timeLeft(job(10, complete), at + 4000), 6000);
  t.equal(timeLeft(job(10, complete), at + 10_000), 0, 'expired at the TTL');
  t.throws(() => timeLeft(job(10, [{ type: 'Complete', status: 'True' }]), at), /unable to find the time when the Job ns\/j finished/);
});
