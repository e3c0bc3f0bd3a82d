import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { FlowControl } from '../../src/flowcontrol/flow-control';
import { RequestRejected } from '../../src/flowcontrol/queue-set';
import { parseRequestInfo } from '../../src/http/request-info';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../src/api/kinds/flowcontrol/flowcontrol-bootstrap-objects';

const pods = parseRequestInfo('GET', '/api/v1/namespaces/a/pods', new URLSearchParams());
const alice = { name: 'alice', groups: ['system:authenticated'] };
const admin = { name: 'root', groups: ['system:masters', 'system:authenticated'] };

const withUid = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, uid: `uid-${o.kind}-${o.metadata?.name}` } });

function schema(name: string, level: string, precedence: number, users = ['alice']): KubeObject {
  return withUid({
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: level },
      matchingPrecedence: precedence,
      distinguisherMethod: { type: 'ByUser' },
      rules: [{ subjects: users.map((u) => ({ kind: 'User', user: { name: u } })), resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }],
    },
  });
}

function level(name: string, shares: number, limitResponse: object): KubeObject {
  return withUid({
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse } },
  });
}

const bootstrapSchemas = () => [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()].map(withUid);
const bootstrapLevels = () => [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()].map(withUid);

t.test('kube defaults: system:masters is exempt, everyone else ends in a limited level', async (t) => {
  const fc = new FlowControl({ serverConcurrencyLimit: 600, requestWaitLimitMs: 15_000 });
  fc.update(bootstrapSchemas(), bootstrapLevels());
  const c = fc.classify(admin, pods);
  t.match(c, { flowSchema: { name: 'exempt', uid: 'uid-FlowSchema-exempt' }, priorityLevel: { name: 'exempt', uid: 'uid-PriorityLevelConfiguration-exempt' }, exempt: true });
  t.match(fc.classify(alice, pods), { flowSchema: { name: 'global-default' }, priorityLevel: { name: 'global-default' }, exempt: false });
  t.ok(fc.concurrencyLimit('catch-all')! >= 1);
});

t.test('precedence: lower first, ties by name; dangling schemas are skipped', async (t) => {
  const fc = new FlowControl({ serverConcurrencyLimit: 10, requestWaitLimitMs: 1000 });
  const levels = [...bootstrapLevels(), level('low', 1, { type: 'Reject' }), level('high', 1, { type: 'Reject' })];
  fc.update([...bootstrapSchemas(), schema('b-second', 'high', 500), schema('a-first', 'low', 500), schema('dangling', 'missing', 100)], levels);
  t.match(fc.classify(alice, pods), { flowSchema: { name: 'a-first' }, priorityLevel: { name: 'low' } });
  fc.update([...bootstrapSchemas(), schema('b-second', 'high', 499), schema('a-first', 'low', 500)], levels);
  t.match(fc.classify(alice, pods), { flowSchema: { name: 'b-second' } }, 'a new configuration applies at once');
  t.match(fc.classify({ name: 'bob', groups: ['system:authenticated'] }, pods), { flowSchema: { name: 'global-default' } });
});

t.test('missing mandatory objects are imagined: exempt and catch-all always exist', async (t) => {
  const fc = new FlowControl({ serverConcurrencyLimit: 10, requestWaitLimitMs: 1000 });
  t.match(fc.classify(alice, pods), { flowSchema: { name: 'catch-all', uid: undefined }, priorityLevel: { name: 'catch-all' } });
  t.match(fc.classify(admin, pods), { flowSchema: { name: 'exempt' }, exempt: true });
  t.match(fc.classify({ name: 'nobody', groups: [] }, pods), { flowSchema: { name: 'catch-all' } }, 'no match at all: catch-all');
});

t.test('seats follow shares; Reject answers at once, exempt never waits', async (t) => {
  const fc = new FlowControl({ serverConcurrencyLimit: 4, requestWaitLimitMs: 1000 });
  fc.update([schema('mine', 'tiny', 10)], [level('tiny', 1, { type: 'Reject' }), level('big', 999, { type: 'Reject' })]);
  t.equal(fc.concurrencyLimit('tiny'), 1, 'ceil(4 * 1 / (1 + 999 + 5 catch-all))');
  const c = fc.classify(alice, pods);
  const seat = await fc.admit(c);
  await t.rejects(fc.admit(c), new RequestRejected('concurrency-limit'));
  const exempt = fc.classify(admin, pods);
  await Promise.all([fc.admit(exempt), fc.admit(exempt), fc.admit(exempt)]);
  seat.release();
  (await fc.admit(c)).release();
  // a changed level: more shares, more seats, without a restart
  fc.update([schema('mine', 'tiny', 10)], [level('tiny', 1000, { type: 'Reject' }), level('big', 999, { type: 'Reject' })]);
  t.equal(fc.concurrencyLimit('tiny'), 2);
  await Promise.all([fc.admit(c), fc.admit(c)]);
});

t.test('a queue of length 1: one waits, the next is rejected, the waiter times out', async (t) => {
  const fc = new FlowControl({ serverConcurrencyLimit: 1, requestWaitLimitMs: 30 });
  fc.update([schema('mine', 'q', 10)], [level('q', 1, { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } })]);
  const c = fc.classify(alice, pods);
  await fc.admit(c);
  const waiting = fc.admit(c);
  await t.rejects(fc.admit(c), new RequestRejected('queue-full'));
  await t.rejects(waiting, new RequestRejected('time-out'));
});

t.test('a deleted level drops its queue set once idle', async (t) => {
  const fc = new FlowControl({ serverConcurrencyLimit: 4, requestWaitLimitMs: 1000 });
  fc.update([schema('mine', 'gone', 10)], [level('gone', 1, { type: 'Reject' })]);
  const seat = await fc.admit(fc.classify(alice, pods));
  fc.update([], []);
  t.ok(fc.queuedLevels.includes('gone'), 'kept while its request runs');
  seat.release();
  fc.update([], []);
  t.notOk(fc.queuedLevels.includes('gone'));
  t.ok(fc.queuedLevels.includes('catch-all'));
});
