import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import { findBestMatch, recyclerTimeoutSeconds, volumeMismatch } from '../../src/controllers/volume/binder/matching';
import { expansionDecision } from '../../src/controllers/volume/expand-controller';
import { podUsesClaim } from '../../src/controllers/volume/protection';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recyclerPod, defaultRecyclerPodTemplate, loadRecyclerPodTemplate } from '../../src/controllers/volume/binder/host-path';

const pv = (name: string, size: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject => ({
  metadata: { name, labels },
  spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: 'c', ...spec },
});
const pvc = (size: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  metadata: { name: 'claim', namespace: 'ns', uid: 'u1', annotations },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: 'c', ...spec },
});
const names = (v?: KubeObject) => v?.metadata?.name;

t.test('the smallest volume large enough, of the class, modes and volumeMode asked for', async (t) => {
  const vols = [pv('5g', '5Gi'), pv('2g', '2Gi'), pv('1g', '1Gi'), pv('3g-other', '3Gi', { storageClassName: 'x' }), pv('2g-block', '2Gi', { volumeMode: 'Block' })];
  t.equal(names(findBestMatch(vols, pvc('1500Mi'), false)), '2g');
  t.equal(names(findBestMatch(vols, pvc('1500Mi', { volumeMode: 'Block' }), false)), '2g-block');
  t.equal(names(findBestMatch(vols, pvc('3Gi', { storageClassName: 'x' }), false)), '3g-other');
  t.equal(findBestMatch(vols, pvc('6Gi'), false), undefined);
  t.equal(findBestMatch(vols, pvc('1Gi', { accessModes: ['ReadWriteMany'] }), false), undefined);
});

t.test('fewer access modes win over a smaller size, as kube\'s index orders them', async (t) => {
  const vols = [pv('1g-rwo-rox', '1Gi', { accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] }), pv('4g-rwo', '4Gi')];
  t.equal(names(findBestMatch(vols, pvc('1Gi'), false)), '4g-rwo');
});

t.test('bound, claimed, deleted and unselected volumes are skipped; pre-bound ones win', async (t) => {
  const vols = [
    pv('taken', '1Gi', { claimRef: { namespace: 'ns', name: 'other', uid: 'u2' } }),
    pv('deleting', '1Gi'),
    pv('gold', '8Gi', {}, { tier: 'gold' }),
  ];
  vols[1]!.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z';
  t.equal(names(findBestMatch(vols, pvc('1Gi')!, false)), 'gold');
  t.equal(findBestMatch(vols, pvc('1Gi', { selector: { matchLabels: { tier: 'silver' } } }), false), undefined);
  const reserved = pv('reserved', '9Gi', { claimRef: { namespace: 'ns', name: 'claim' } });
  t.equal(names(findBestMatch([...vols, reserved], pvc('1Gi'), false)), 'reserved');
  t.equal(names(findBestMatch([...vols, reserved], pvc('1Gi'), true)), 'reserved', 'even when binding waits for a consumer');
  t.equal(findBestMatch(vols, pvc('1Gi'), true), undefined, 'a waiting claim takes no free volume');
});

t.test('the beta class annotation counts as the class', async (t) => {
  const vols = [pv('beta', '1Gi', { storageClassName: '' })];
  vols[0]!.metadata!.annotations = { 'volume.beta.kubernetes.io/storage-class': 'gold' };
  t.equal(names(findBestMatch(vols, pvc('1Gi', { storageClassName: undefined }, { 'volume.beta.kubernetes.io/storage-class': 'gold' }), false)), 'beta');
});

t.test('a volume named by the claim is checked as kube does', async (t) => {
  t.equal(volumeMismatch(pv('v', '1Gi'), pvc('2Gi')), 'requested PV is too small');
  t.equal(volumeMismatch(pv('v', '2Gi'), pvc('2Gi', { storageClassName: 'y' })), 'storageClassName does not match');
  t.equal(volumeMismatch(pv('v', '2Gi'), pvc('2Gi', { volumeMode: 'Block' })), 'incompatible volumeMode');
  t.equal(volumeMismatch(pv('v', '2Gi'), pvc('2Gi')), undefined);
});

t.test('the recycler: its timeout and its pod', async (t) => {
  t.equal(recyclerTimeoutSeconds(pv('v', '1Gi'), 60, 30), 60, 'at least the minimum');
  t.equal(recyclerTimeoutSeconds(pv('v', '10Gi'), 60, 30), 300, 'the increment per GiB');
  const pod = recyclerPod(defaultRecyclerPodTemplate(), pv('v', '10Gi', { hostPath: { path: '/tmp/x' } }), 300);
  t.match(pod, { metadata: { name: 'recycler-for-v', namespace: 'default' }, spec: { activeDeadlineSeconds: 300, volumes: [{ name: 'vol', hostPath: { path: '/tmp/x' } }] } });
  t.notOk(pod.metadata?.generateName);
});

t.test('--pv-recycler-pod-template-filepath-hostpath replaces the template', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-recycler-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'pod.yaml');
  fs.writeFileSync(file, 'apiVersion: v1\nkind: Pod\nmetadata:\n  namespace: kube-system\nspec:\n  volumes:\n  - name: scrub\n  containers:\n  - name: wipe\n    image: alpine\n');
  const pod = recyclerPod(await loadRecyclerPodTemplate(file), pv('v', '1Gi', { hostPath: { path: '/tmp/y' } }), 60);
  t.match(pod, { metadata: { name: 'recycler-for-v', namespace: 'kube-system' }, spec: { volumes: [{ name: 'scrub', hostPath: { path: '/tmp/y' } }], containers: [{ name: 'wipe' }] } });
  fs.writeFileSync(file, 'apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n');
  await t.rejects(loadRecyclerPodTemplate(file), /has no volume/);
});

t.test('protection: only scheduled pods that have not ended use a claim', async (t) => {
  const pod = (nodeName: string, phase?: string): KubeObject => ({
    metadata: { name: 'p', namespace: 'ns' },
    spec: { nodeName, volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'claim' } }] },
    status: { phase },
  });
  t.ok(podUsesClaim(pod('n1', 'Running'), 'ns', 'claim'));
  t.notOk(podUsesClaim(pod('', 'Pending'), 'ns', 'claim'), 'not scheduled');
  t.notOk(podUsesClaim(pod('n1', 'Succeeded'), 'ns', 'claim'));
  t.notOk(podUsesClaim(pod('n1', 'Running'), 'other', 'claim'));
});

t.test('expansion: what kube does for the volume types there are', async (t) => {
  const claim = (request: string, capacity: string): KubeObject => ({
    metadata: { name: 'c', namespace: 'ns', uid: 'u1' },
    spec: { resources: { requests: { storage: request } }, volumeName: 'v' },
    status: { phase: 'Bound', capacity: { storage: capacity } },
  });
  const bound = (source: Record<string, unknown>) => pv('v', '1Gi', { claimRef: { namespace: 'ns', name: 'c', uid: 'u1' }, ...source });
  t.equal(expansionDecision(claim('1Gi', '1Gi'), bound({ hostPath: { path: '/tmp/a' } })), 'none');
  t.equal(expansionDecision(claim('2Gi', '1Gi'), bound({ hostPath: { path: '/tmp/a' } })), 'Warning', 'host-path: not among the expandable plugins');
  t.equal(expansionDecision(claim('2Gi', '1Gi'), bound({ csi: { driver: 'd', volumeHandle: 'h' } })), 'Warning', 'nor is CSI');
  t.equal(expansionDecision(claim('2Gi', '1Gi'), pv('v', '1Gi')), 'not bound');
});
