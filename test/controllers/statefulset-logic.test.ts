/** Pure logic of the StatefulSet controller and of ControllerRevision history. */
import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import { ApiError } from '../../src/client/errors';
import type { RestClient } from '../../src/client/rest-client';
import {
  createRevision,
  equalRevision,
  hashRevision,
  newRevision,
  nextRevision,
  revisionName,
  revisionsToTruncate,
  sortRevisions,
  templateOfRevision,
  templatePatch,
  type ControllerRevision,
} from '../../src/controllers/history/controller-history';
import { claimsFor, identityMatches, newStatefulPod, parentAndOrdinal, storageMatches } from '../../src/controllers/statefulset/stateful-pods';
import { completeRollingUpdate, updateStatefulSet, type StatefulPodOps } from '../../src/controllers/statefulset/update-set';

const set = (extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'web', namespace: 'ns', uid: 'u1', generation: 2 },
  spec: {
    replicas: 3,
    serviceName: 'svc',
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    ...extra,
  },
});

const ready = (pod: KubeObject): KubeObject => ({ ...pod, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });

function recordingOps(): StatefulPodOps & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    create: async (p) => void log.push(`create ${p.metadata?.name}`),
    delete: async (p) => void log.push(`delete ${p.metadata?.name}`),
    update: async (p) => void log.push(`update ${p.metadata?.name}`),
  };
}

t.test('revision names, hashes and snapshots', async (t) => {
  const s = set();
  const data = templatePatch(s);
  t.same((data.spec as { template: Record<string, unknown> }).template.$patch, 'replace', 'a replacing patch, as kubectl rollout undo applies');
  t.equal(hashRevision(data), hashRevision(structuredClone(data)), 'stable');
  t.not(hashRevision(data, 0), hashRevision(data, 1), 'the collision count changes the hash');
  const rev = newRevision(s, { app: 'web' }, data, 4);
  t.equal(rev.metadata?.name, `web-${hashRevision(data)}`);
  t.match(rev.metadata?.labels, { app: 'web', 'controller.kubernetes.io/hash': hashRevision(data) });
  t.match(rev.metadata?.ownerReferences, [{ kind: 'StatefulSet', name: 'web', uid: 'u1', controller: true }]);
  t.same(templateOfRevision(rev), (s.spec as { template: unknown }).template);
  t.ok(equalRevision(rev, newRevision(s, {}, templatePatch(s), 9, 3)), 'equal data, whatever the labels and number');
  t.notOk(equalRevision(rev, newRevision(set({ template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } }), {}, null, 1)));
  t.equal(revisionName('x'.repeat(300), 'h').length, 225, 'prefix cut to 223');
});

t.test('a name taken by other data is a collision: the count goes up', async (t) => {
  const s = set();
  const stored = new Map<string, KubeObject>();
  const squatter = newRevision(s, {}, { other: true }, 1);
  const wanted = newRevision(s, { app: 'web' }, templatePatch(s), 2);
  stored.set(`web-${hashRevision(wanted.data, 0)}`, squatter);
  const client = {
    create: async (_ref: unknown, _ns: unknown, obj: KubeObject) => {
      const name = obj.metadata!.name!;
      if (stored.has(name)) throw new ApiError(409, { kind: 'Status', reason: 'AlreadyExists', message: 'exists' });
      stored.set(name, obj);
      return obj;
    },
    get: async (_ref: unknown, _ns: unknown, name: string) => stored.get(name)!,
  } as unknown as RestClient;
  const created = await createRevision(client, wanted, 0, (h) => revisionName('web', h));
  t.equal(created.collisionCount, 1);
  t.equal(created.revision.metadata?.name, `web-${hashRevision(wanted.data, 1)}`);
  const again = await createRevision(client, wanted, 1, (h) => revisionName('web', h));
  t.equal(again.revision.metadata?.name, created.revision.metadata?.name, 'the same data under its name is the answer');
});

t.test('sorting and truncating history', async (t) => {
  const r = (name: string, revision: number, created = '2020-01-01T00:00:00Z'): ControllerRevision => ({ metadata: { name, creationTimestamp: created }, revision });
  const revs = [r('c', 3), r('a', 1), r('b', 2), r('b2', 2, '2019-01-01T00:00:00Z')];
  t.same(sortRevisions(revs).map((x) => x.metadata?.name), ['a', 'b2', 'b', 'c']);
  t.equal(nextRevision(sortRevisions(revs)), 4);
  t.equal(nextRevision([]), 1);
  t.same(revisionsToTruncate(revs, new Set(['c']), 1).map((x) => x.metadata?.name), ['a', 'b2'], 'the oldest unused go, live ones stay');
  t.same(revisionsToTruncate(revs, new Set(['a']), 0).map((x) => x.metadata?.name), ['b2', 'b', 'c']);
  t.same(revisionsToTruncate(revs, new Set(), 10), []);
});

t.test('pod identity and storage', async (t) => {
  t.same(parentAndOrdinal({ metadata: { name: 'my-set-12' } }), { parent: 'my-set', ordinal: 12 });
  t.same(parentAndOrdinal({ metadata: { name: 'nope' } }), { parent: '', ordinal: -1 });
  const s = set({ volumeClaimTemplates: [{ metadata: { name: 'data', labels: { tier: 'db' } }, spec: { accessModes: ['ReadWriteOnce'] } }] });
  const pod = newStatefulPod(s, 1, 'web-abc');
  t.equal(pod.metadata?.name, 'web-1');
  t.match(pod.metadata?.labels, { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-1', 'controller-revision-hash': 'web-abc' });
  t.match(pod.spec, { hostname: 'web-1', subdomain: 'svc', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-1' } }] });
  t.ok(identityMatches(s, pod) && storageMatches(s, pod));
  t.notOk(identityMatches(s, { ...pod, metadata: { ...pod.metadata, labels: {} } }), 'the pod-name label is part of the identity');
  const claim = claimsFor(s, 1).get('data');
  t.match(claim, { metadata: { name: 'data-web-1', namespace: 'ns', labels: { tier: 'db', app: 'web' } } });
});

t.test('OrderedReady creates one pod, then waits for it', async (t) => {
  const s = set();
  const ops = recordingOps();
  const status = await updateStatefulSet({ set: s, currentSet: s, currentRevision: 'r1', updateRevision: 'r1', pods: [] }, ops);
  t.same(ops.log, ['create web-0']);
  t.match(status, { replicas: 1, currentReplicas: 1, updatedReplicas: 1, observedGeneration: 2 });
  const ops2 = recordingOps();
  await updateStatefulSet({ set: s, currentSet: s, currentRevision: 'r1', updateRevision: 'r1', pods: [newStatefulPod(s, 0, 'r1')] }, ops2);
  t.same(ops2.log, [], 'web-0 not ready: nothing');
  const ops3 = recordingOps();
  await updateStatefulSet({ set: s, currentSet: s, currentRevision: 'r1', updateRevision: 'r1', pods: [ready(newStatefulPod(s, 0, 'r1'))] }, ops3);
  t.same(ops3.log, ['create web-1']);
});

t.test('Parallel creates every missing pod at once; scale down goes from the top', async (t) => {
  const s = set({ podManagementPolicy: 'Parallel' });
  const ops = recordingOps();
  await updateStatefulSet({ set: s, currentSet: s, currentRevision: 'r1', updateRevision: 'r1', pods: [] }, ops);
  t.same(ops.log, ['create web-0', 'create web-1', 'create web-2']);
  const ordered = set({ replicas: 1 });
  const pods = [0, 1, 2].map((i) => ready(newStatefulPod(ordered, i, 'r1')));
  const ops2 = recordingOps();
  await updateStatefulSet({ set: ordered, currentSet: ordered, currentRevision: 'r1', updateRevision: 'r1', pods }, ops2);
  t.same(ops2.log, ['delete web-2'], 'one at a time, highest first');
});

t.test('rolling update from the highest ordinal down to the partition', async (t) => {
  const s = set({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } });
  const pods = [0, 1, 2].map((i) => ready(newStatefulPod(s, i, 'r1')));
  const ops = recordingOps();
  const status = await updateStatefulSet({ set: s, currentSet: s, currentRevision: 'r1', updateRevision: 'r2', pods }, ops);
  t.same(ops.log, ['delete web-2']);
  t.match(status, { currentReplicas: 2, updatedReplicas: 0, currentRevision: 'r1', updateRevision: 'r2' });
  const updated = [ready(newStatefulPod(s, 0, 'r1')), ready(newStatefulPod(s, 1, 'r1')), ready(newStatefulPod(s, 2, 'r2'))];
  const ops2 = recordingOps();
  await updateStatefulSet({ set: s, currentSet: s, currentRevision: 'r1', updateRevision: 'r2', pods: updated }, ops2);
  t.same(ops2.log, ['delete web-1']);
  const ops3 = recordingOps();
  const onDelete = set({ updateStrategy: { type: 'OnDelete' } });
  await updateStatefulSet({ set: onDelete, currentSet: onDelete, currentRevision: 'r1', updateRevision: 'r2', pods }, ops3);
  t.same(ops3.log, [], 'OnDelete replaces nothing');
  const done = completeRollingUpdate(s, { replicas: 3, readyReplicas: 3, currentReplicas: 0, updatedReplicas: 3, currentRevision: 'r1', updateRevision: 'r2' });
  t.match(done, { currentRevision: 'r2', currentReplicas: 3 });
});

t.test('a failed pod is deleted and recreated', async (t) => {
  const s = set({ replicas: 1 });
  const failed = { ...newStatefulPod(s, 0, 'r1'), status: { phase: 'Failed' } };
  const ops = recordingOps();
  await updateStatefulSet({ set: s, currentSet: s, currentRevision: 'r1', updateRevision: 'r1', pods: [failed] }, ops);
  t.same(ops.log, ['delete web-0', 'create web-0']);
});
