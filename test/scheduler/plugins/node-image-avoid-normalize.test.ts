/** ImageLocality, NodePreferAvoidPods and DefaultNormalizeScore. */
import t from 'tap';
import type { KubeObject } from '../../../src/client/types';
import { NodeInfo } from '../../../src/scheduler/framework/node-info';
import { Code, type Status } from '../../../src/scheduler/framework/status';
import { CycleState, type NodeScore } from '../../../src/scheduler/framework/types';
import { imageLocalityScore, newImageLocality, normalizedImageName } from '../../../src/scheduler/plugins/node/image-locality';
import { newNodePreferAvoidPods } from '../../../src/scheduler/plugins/node/node-prefer-avoid-pods';
import { defaultNormalizeScore } from '../../../src/scheduler/plugins/node/normalize';
import { fakeHandle, makeNode, makePod, Snapshot } from '../helpers';

const MB = 1024 * 1024;
const withImages = (...images: string[]) => makePod('p', { spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) } });

t.test('image names without a tag are the :latest ones', async (t) => {
  t.equal(normalizedImageName('nginx'), 'nginx:latest');
  t.equal(normalizedImageName('nginx:1.19'), 'nginx:1.19');
  t.equal(normalizedImageName('localhost:5000/app'), 'localhost:5000/app:latest', 'a registry port is not a tag');
  t.equal(normalizedImageName('localhost:5000/app:v1'), 'localhost:5000/app:v1');
});

t.test('ImageLocality', async (t) => {
  const snapshot = Snapshot.of([makeNode('n1'), makeNode('n2')]);
  const n1 = snapshot.get('n1')!;
  n1.imageStates.set('nginx:latest', { size: 500 * MB, numNodes: 1 });
  n1.imageStates.set('redis:6', { size: 800 * MB, numNodes: 2 });
  const n2 = snapshot.get('n2')!;
  n2.imageStates.set('redis:6', { size: 800 * MB, numNodes: 2 });
  n2.imageStates.set('tiny:latest', { size: 30 * MB, numNodes: 1 });
  const p = newImageLocality(undefined, fakeHandle(snapshot));
  const state = new CycleState();
  // 500MB on 1 of 2 nodes counts 250MB: 100 * (250 - 23) / (1000 - 23)
  t.equal(p.score!(state, withImages('nginx'), n1), 23);
  t.equal(p.score!(state, withImages('nginx'), n2), 0, 'an absent image scores 0');
  // two containers: 250MB + 800MB against 2 x 1000MB
  t.equal(p.score!(state, withImages('nginx', 'redis:6'), n1), 51);
  t.equal(p.score!(state, withImages('tiny'), n2), 0, 'below 23MB after spreading scores 0');
  t.equal(p.score!(state, withImages('redis:6'), n1), 79, 'an image on every node counts its full size');
  t.equal(imageLocalityScore(5000 * MB, 1), 100, 'clamped at the maximum');
  t.equal(imageLocalityScore(0, 0), 0, 'no containers: raised to the minimum, scoring 0');
  t.equal((p.score!(state, withImages('nginx'), new NodeInfo()) as Status).code, Code.Error);
});

t.test('NodePreferAvoidPods', async (t) => {
  const p = newNodePreferAvoidPods(undefined, fakeHandle(Snapshot.of([])));
  const state = new CycleState();
  const avoid = (kind: string, uid: string) => ({
    'scheduler.alpha.kubernetes.io/preferAvoidPods': JSON.stringify({ preferAvoidPods: [{ podSignature: { podController: { apiVersion: 'v1', kind, name: 'x', uid, controller: true } }, reason: 'r' }] }),
  });
  const owned = (kind: string, uid: string, controller = true): KubeObject =>
    makePod('p', { ownerReferences: [{ apiVersion: 'apps/v1', kind, name: 'owner', uid, controller }] });
  const node = new NodeInfo(makeNode('n1', { annotations: avoid('ReplicaSet', 'rs-1') }));
  t.equal(p.score!(state, owned('ReplicaSet', 'rs-1'), node), 0, 'the named controller is avoided');
  t.equal(p.score!(state, owned('ReplicaSet', 'rs-2'), node), 100, 'another uid is not');
  t.equal(p.score!(state, owned('ReplicaSet', 'rs-1', false), node), 100, 'an owner that is not the controller does not count');
  t.equal(p.score!(new CycleState(), owned('ReplicationController', 'rc-1'), new NodeInfo(makeNode('n2', { annotations: avoid('ReplicationController', 'rc-1') }))), 0);
  t.equal(p.score!(state, owned('StatefulSet', 'ss-1'), new NodeInfo(makeNode('n3', { annotations: avoid('StatefulSet', 'ss-1') }))), 100, 'only RC and RS pods are steered');
  t.equal(p.score!(state, makePod('bare'), node), 100);
  t.equal(p.score!(state, owned('ReplicaSet', 'rs-1'), new NodeInfo(makeNode('n4', { annotations: { 'scheduler.alpha.kubernetes.io/preferAvoidPods': '{not json' } }))), 100, 'a malformed annotation is ignored');
  t.equal((p.score!(state, makePod('bare'), new NodeInfo()) as Status).code, Code.Error);
});

t.test('DefaultNormalizeScore', async (t) => {
  const scores = (...v: number[]): NodeScore[] => v.map((score, i) => ({ name: `n${i}`, score }));
  const run = (reverse: boolean, ...v: number[]) => {
    const s = scores(...v);
    defaultNormalizeScore(100, reverse, s);
    return s.map((x) => x.score);
  };
  t.same(run(false, 3, 2, 0), [100, 66, 0], 'scaled to the maximum, truncated');
  t.same(run(true, 3, 2, 0), [0, 34, 100], 'reversed');
  t.same(run(false, 0, 0), [0, 0]);
  t.same(run(true, 0, 0), [100, 100], 'all zero reversed: all at the maximum');
  t.same(run(false), []);
});
