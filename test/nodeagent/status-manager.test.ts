/**
 * The status manager against a slow API (a throttled client): each status is read and written once,
 * and the batch does not pile further reads on a pod whose write is still under way.
 */
import pino from 'pino';
import t from 'tap';
import type { RestClient } from '../../src/client/rest-client';
import type { ApiPodStatus } from '../../src/nodeagent/pods/api-status';
import { StatusManager } from '../../src/nodeagent/pods/status-manager';
import type { Pod } from '../../src/nodeagent/types';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a write under way is not asked for again by every batch', async (t) => {
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [] }, status: { phase: 'Pending' } };
  const calls: string[] = [];
  // every request takes 400 ms: eight batches of 50 ms pass during one GET + PATCH
  const client = {
    get: async () => (calls.push('GET'), await sleep(400), structuredClone(pod)),
    patch: async (_r: unknown, _ns: unknown, _n: unknown, _type: unknown, body: { status: Record<string, unknown> }) => {
      calls.push('PATCH');
      await sleep(400);
      pod.status = body.status;
      return structuredClone(pod);
    },
  } as unknown as RestClient;
  // the informer's copy: the API's status only once the write is done (and a while after, as a watch)
  const manager = new StatusManager({ client, logger: pino({ level: 'silent' }), now: Date.now, syncPeriodMs: 50, apiPodOf: () => structuredClone(pod), canBeDeleted: () => false });
  manager.start();
  t.teardown(() => manager.stop());
  const status: ApiPodStatus = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [], qosClass: 'BestEffort' };
  manager.set(pod, status);
  await sleep(1500);
  t.same(calls, ['GET', 'PATCH'], 'one read and one write');
  t.equal((pod.status as { phase?: string }).phase, 'Running');
});
