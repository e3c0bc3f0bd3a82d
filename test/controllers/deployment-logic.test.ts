import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import { canonicalJson, computeHash, fnv32a, safeEncodeString } from '../../src/controllers/util/hash';
import {
  equalIgnoreHash, isSaturated, maxSurge, maxUnavailable, newRSNewReplicas, proportion, resolveFenceposts, scaledValue,
  setNewReplicaSetAnnotations,
} from '../../src/controllers/deployment/util';
import { rolloutStatus, stuckRequeueMs } from '../../src/controllers/deployment/status';

const dep = (replicas: number, maxSurge: number | string = '25%', maxUnavailable: number | string = '25%', type = 'RollingUpdate'): KubeObject => ({
  metadata: { name: 'd', annotations: { note: 'x', 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
  spec: { replicas, strategy: { type, rollingUpdate: { maxSurge, maxUnavailable } }, template: { metadata: { labels: { a: 'b' } } } },
  status: { replicas },
});
const rs = (replicas: number, annotations: Record<string, string> = {}, available = 0): KubeObject => ({
  metadata: { name: `rs${replicas}`, annotations },
  spec: { replicas },
  status: { availableReplicas: available },
});

t.test('the pod-template hash', async (t) => {
  t.equal(fnv32a(Buffer.from('')), 0x811c9dc5);
  t.equal(fnv32a(Buffer.from('a')), 0xe40c292c);
  t.equal(safeEncodeString('123'), '567');
  const tpl = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
  const h = computeHash(tpl);
  t.match(h, /^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
  t.equal(computeHash(JSON.parse(JSON.stringify({ spec: tpl.spec, metadata: tpl.metadata }))), h, 'key order does not matter');
  t.not(computeHash(tpl, 1), h, 'collisionCount changes it');
  t.not(computeHash({ ...tpl, spec: { containers: [{ name: 'c', image: 'busybox:2' }] } }), h);
  t.equal(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] }), '{"a":[{"c":2,"d":1}],"b":1}');
  t.ok(equalIgnoreHash({ metadata: { labels: { app: 'x', 'pod-template-hash': 'abc' } } }, { metadata: { labels: { app: 'x' } } }));
});

t.test('maxSurge and maxUnavailable as kube rounds them', async (t) => {
  t.same(resolveFenceposts('25%', '25%', 3), { surge: 1, unavailable: 0 });
  t.same(resolveFenceposts('25%', '25%', 10), { surge: 3, unavailable: 2 });
  t.same(resolveFenceposts(0, 0, 5), { surge: 0, unavailable: 1 }, 'both zero would never progress');
  t.same(resolveFenceposts('0%', '0%', 5), { surge: 0, unavailable: 1 });
  t.equal(scaledValue('50%', 5, true), 3);
  t.equal(scaledValue('50%', 5, false), 2);
  t.equal(maxSurge(dep(4, 2, 1)), 2);
  t.equal(maxUnavailable(dep(2, 0, 5)), 2, 'bounded by replicas');
  t.equal(maxSurge(dep(4, 2, 1, 'Recreate')), 0);
  t.equal(maxUnavailable(dep(0)), 0);
});

t.test('how far the new ReplicaSet may grow', async (t) => {
  const d = dep(10, 3, 2);
  const newRS = rs(0);
  t.equal(newRSNewReplicas(d, [rs(10), newRS], newRS), 3, 'up to the surge');
  t.equal(newRSNewReplicas(d, [rs(13), newRS], newRS), 0, 'already at max');
  const grown = rs(8);
  t.equal(newRSNewReplicas(d, [rs(1), grown], grown), 10, 'not past the desired count');
  t.equal(newRSNewReplicas(dep(10, 3, 2, 'Recreate'), [rs(10), newRS], newRS), 10);
  t.ok(isSaturated(dep(3), rs(3, { 'deployment.kubernetes.io/desired-replicas': '3' }, 3)));
  t.notOk(isSaturated(dep(3), rs(3, { 'deployment.kubernetes.io/desired-replicas': '3' }, 2)));
});

t.test('proportional shares when a deployment is resized mid-rollout', async (t) => {
  // 4 -> 8 replicas with maxSurge 1: 9 allowed, 5 wanted now, 4 to add
  const d = dep(8, 1, 0);
  const old = rs(4, { 'deployment.kubernetes.io/max-replicas': '5' });
  const cur = rs(1, { 'deployment.kubernetes.io/max-replicas': '5' });
  const p1 = proportion(old, d, 4, 0);
  t.equal(p1, 3, '4*9/5 = 7.2 -> 7');
  t.equal(proportion(cur, d, 4, p1), 1, '1*9/5 = 1.8 -> 2, bounded by what is left');
  t.equal(proportion(rs(0), d, 4, 0), 0);
  t.equal(proportion(old, dep(0, 1, 0), -5, 0), -4, 'to zero');
});

t.test('revision annotations', async (t) => {
  const d = dep(3);
  const fresh = rs(0);
  t.ok(setNewReplicaSetAnnotations(d, fresh, '1', false));
  t.same(fresh.metadata?.annotations, { note: 'x', 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
  t.ok(setNewReplicaSetAnnotations(d, fresh, '3', true));
  t.equal(fresh.metadata?.annotations?.['deployment.kubernetes.io/revision-history'], '1');
  setNewReplicaSetAnnotations(d, fresh, '5', true);
  t.equal(fresh.metadata?.annotations?.['deployment.kubernetes.io/revision-history'], '1,3');
  t.notOk(setNewReplicaSetAnnotations(d, fresh, '5', true), 'nothing changes twice');
  t.notOk(setNewReplicaSetAnnotations(d, fresh, '4', true), 'never lowered');
});

t.test('rollout status: Available and Progressing with the progress deadline', async (t) => {
  const now = Date.parse('2024-01-01T00:10:00Z');
  const d: KubeObject = {
    metadata: { name: 'd', generation: 2 },
    spec: { replicas: 2, progressDeadlineSeconds: 60, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
    status: {
      replicas: 2, updatedReplicas: 1, availableReplicas: 2, readyReplicas: 2,
      conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: '2024-01-01T00:00:00Z', lastTransitionTime: '2024-01-01T00:00:00Z' }],
    },
  };
  const oldRS: KubeObject = { metadata: { name: 'd-old' }, spec: { replicas: 1 }, status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } };
  const newRS: KubeObject = { metadata: { name: 'd-new' }, spec: { replicas: 1 }, status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } };
  const stuck = rolloutStatus(d, [oldRS, newRS], newRS, now);
  t.match(stuck.conditions?.find((c) => c.type === 'Progressing'), { status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "d-new" has timed out progressing.' });
  t.match(stuck.conditions?.find((c) => c.type === 'Available'), { status: 'True', reason: 'MinimumReplicasAvailable', lastTransitionTime: '2024-01-01T00:10:00Z' });
  t.equal(stuckRequeueMs(d, stuck, now), undefined, 'no requeue once timed out');
  const moving = rolloutStatus(d, [oldRS, { ...newRS, status: { replicas: 2, readyReplicas: 2, availableReplicas: 2 } }], newRS, now);
  t.match(moving.conditions?.find((c) => c.type === 'Progressing'), { reason: 'ReplicaSetUpdated', lastTransitionTime: '2024-01-01T00:00:00Z', lastUpdateTime: '2024-01-01T00:10:00Z' });
  const failing = rolloutStatus(d, [{ ...newRS, status: { conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota' }] } }], newRS, now);
  t.match(failing.conditions?.find((c) => c.type === 'ReplicaFailure'), { status: 'True', reason: 'FailedCreate', message: 'quota' });
  t.match(failing.conditions?.find((c) => c.type === 'Available'), { status: 'False', reason: 'MinimumReplicasUnavailable' });
});
