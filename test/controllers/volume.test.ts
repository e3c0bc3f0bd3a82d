/**
 * The volume controllers (persistentvolume-binder, pv-protection, pvc-protection,
 * persistentvolume-expander) against the real API server: one server, the four controllers, and
 * the test playing the node (pods are given a nodeName and their phase by hand).
 */
import fs from 'node:fs';
import t from 'tap';
import { isNotFound } from '../../src/client/errors';
import { RESOURCES } from '../../src/client/resources';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject } from '../../src/client/types';
import { missingKubectl, startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { defaultProfiles, startScheduler } from '../helpers/scheduler';

type Obj = KubeObject & { spec: Record<string, any>; status?: Record<string, any> };

const ns = 'default';

function volume(name: string, o: { size: string; cls?: string; modes?: string[]; labels?: Record<string, string>; policy?: string; path?: string; claimRef?: object }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, labels: o.labels },
    spec: {
      capacity: { storage: o.size },
      accessModes: o.modes ?? ['ReadWriteOnce'],
      hostPath: { path: o.path ?? `/tmp/ballast-test/${name}` },
      storageClassName: o.cls ?? '',
      persistentVolumeReclaimPolicy: o.policy ?? 'Retain',
      ...(o.claimRef ? { claimRef: o.claimRef } : {}),
    },
  };
}

function claim(name: string, o: { size: string; cls?: string; selector?: object; volumeName?: string }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: ns },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: o.size } },
      storageClassName: o.cls ?? '',
      ...(o.selector ? { selector: o.selector } : {}),
      ...(o.volumeName ? { volumeName: o.volumeName } : {}),
    },
  };
}

const storageClass = (name: string, provisioner: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner,
  ...extra,
});

const podUsing = (name: string, claimName: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
});

async function getOrNone(client: RestClient, ref: typeof RESOURCES.pods, namespace: string | undefined, name: string): Promise<Obj | undefined> {
  try {
    return (await client.get(ref, namespace, name)) as Obj;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

t.test('volume controllers against the real server', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['persistentvolume-binder', 'pv-protection', 'pvc-protection', 'persistentvolume-expander'], {
    enableHostPathProvisioner: true,
    pvClaimBinderSyncPeriodMs: 1000,
  });
  const pvc = (name: string) => client.get(RESOURCES.persistentVolumeClaims, ns, name) as Promise<Obj>;
  const pv = (name: string) => client.get(RESOURCES.persistentVolumes, undefined, name) as Promise<Obj>;
  const bound = (name: string) =>
    waitFor(`claim ${name} bound`, async () => {
      const c = await pvc(name);
      return c.status?.phase === 'Bound' && c;
    });
  const event = (object: string, reason: string) =>
    waitFor(`${reason} event on ${object}`, async () =>
      (await client.list(RESOURCES.events, ns)).items.find((e) => (e.involvedObject as { name?: string })?.name === object && e.reason === reason) as
        | (KubeObject & { message: string; type: string; source: { component: string } })
        | undefined,
    );
  const gone = (ref: typeof RESOURCES.pods, namespace: string | undefined, name: string) =>
    waitFor(`${ref.kind} ${name} gone`, async () => !(await getOrNone(client, ref, namespace, name)));

  await t.test('binds a claim to the smallest volume that satisfies it, on both sides', async (t) => {
    for (const [name, size] of [['small-1g', '1Gi'], ['mid-5g', '5Gi'], ['big-10g', '10Gi']] as const) {
      await client.create(RESOURCES.persistentVolumes, undefined, volume(name, { size, cls: 'smallest' }));
    }
    const created = await client.create(RESOURCES.persistentVolumeClaims, ns, claim('smallest', { size: '3Gi', cls: 'smallest' }));
    const c = await bound('smallest');
    t.equal(c.spec.volumeName, 'mid-5g');
    t.match(c.metadata?.annotations, { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    t.same(c.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '5Gi' } });
    const v = await waitFor('volume Bound', async () => {
      const v = await pv('mid-5g');
      return v.status?.phase === 'Bound' && v;
    });
    t.match(v.spec.claimRef, { kind: 'PersistentVolumeClaim', namespace: ns, name: 'smallest', uid: created.metadata?.uid });
    t.equal(v.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
    t.equal((await pv('small-1g')).status?.phase, 'Available', 'the others are Available');
  });

  await t.test('a label selector narrows the choice', async (t) => {
    await client.create(RESOURCES.persistentVolumes, undefined, volume('plain-1g', { size: '1Gi', cls: 'sel' }));
    await client.create(RESOURCES.persistentVolumes, undefined, volume('gold-2g', { size: '2Gi', cls: 'sel', labels: { tier: 'gold' } }));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('gold', { size: '1Gi', cls: 'sel', selector: { matchLabels: { tier: 'gold' } } }));
    t.equal((await bound('gold')).spec.volumeName, 'gold-2g');
  });

  await t.test('pre-binding by the user, on the volume or on the claim', async (t) => {
    await client.create(RESOURCES.persistentVolumes, undefined, volume('free-1g', { size: '1Gi', cls: 'pre' }));
    await client.create(RESOURCES.persistentVolumes, undefined, volume('reserved-8g', { size: '8Gi', cls: 'pre', claimRef: { namespace: ns, name: 'reserved' } }));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('reserved', { size: '1Gi', cls: 'pre' }));
    const r = await bound('reserved');
    t.equal(r.spec.volumeName, 'reserved-8g', 'the volume that names the claim wins over a smaller free one');
    t.notOk((await pv('reserved-8g')).metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'the user bound the volume');

    await client.create(RESOURCES.persistentVolumes, undefined, volume('named-3g', { size: '3Gi', cls: 'pre' }));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('named', { size: '1Gi', cls: 'pre', volumeName: 'named-3g' }));
    const n = await bound('named');
    t.notOk(n.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'the user bound the claim');
    t.equal((await pv('named-3g')).metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
  });

  await t.test('Retain: a released volume keeps its data and its claimRef', async (t) => {
    await client.delete(RESOURCES.persistentVolumeClaims, ns, 'smallest');
    await gone(RESOURCES.persistentVolumeClaims, ns, 'smallest');
    const v = await waitFor('Released', async () => {
      const v = await pv('mid-5g');
      return v.status?.phase === 'Released' && v;
    });
    t.equal(v.spec.claimRef?.name, 'smallest');
  });

  await t.test('Delete: a failed delete of a path outside /tmp', async (t) => {
    await client.create(RESOURCES.persistentVolumes, undefined, volume('srv-vol', { size: '1Gi', cls: 'del', policy: 'Delete', path: '/srv/data' }));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('srv', { size: '1Gi', cls: 'del' }));
    await bound('srv');
    await client.delete(RESOURCES.persistentVolumeClaims, ns, 'srv');
    const e = await event('srv-vol', 'VolumeFailedDelete');
    t.match(e, { type: 'Warning', message: 'host_path deleter only supports /tmp/.+ but received provided /srv/data', source: { component: 'persistentvolume-controller' } });
    t.equal((await pv('srv-vol')).status?.phase, 'Failed');
  });

  await t.test('host-path provisioning for a class, and Delete when released', async (t) => {
    await client.create(RESOURCES.storageClasses, undefined, storageClass('hostpath', 'kubernetes.io/host-path', { reclaimPolicy: 'Delete', allowVolumeExpansion: true }));
    const created = await client.create(RESOURCES.persistentVolumeClaims, ns, claim('dyn', { size: '1Gi', cls: 'hostpath' }));
    const c = await bound('dyn');
    const name = `pvc-${created.metadata?.uid}`;
    t.equal(c.spec.volumeName, name);
    t.equal(c.metadata?.annotations?.['volume.beta.kubernetes.io/storage-provisioner'], 'kubernetes.io/host-path');
    const v = await pv(name);
    t.match(v.metadata?.annotations, { 'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    t.match(v.spec, { persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'hostpath', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] });
    t.match(v.spec.hostPath.path, /^\/tmp\/hostpath_pv\/[0-9a-f-]{36}$/);
    t.ok(fs.existsSync(v.spec.hostPath.path), 'the directory is made');
    t.match(await event('dyn', 'ProvisioningSucceeded'), { type: 'Normal', message: `Successfully provisioned volume ${name} using kubernetes.io/host-path` });

    // the expander: no in-tree plugin expands host-path, so kube leaves it to an external resizer
    await client.patch(RESOURCES.persistentVolumeClaims, ns, 'dyn', 'merge', { spec: { resources: { requests: { storage: '2Gi' } } } });
    t.match(await event('dyn', 'ExternalExpanding'), {
      type: 'Warning',
      message: "Ignoring the PVC: didn't find a plugin capable of expanding the volume; waiting for an external controller to process this PVC.",
      source: { component: 'volume_expand' },
    });

    await client.delete(RESOURCES.persistentVolumeClaims, ns, 'dyn');
    await gone(RESOURCES.persistentVolumes, undefined, name);
    t.notOk(fs.existsSync(v.spec.hostPath.path), 'the directory is removed');
  });

  await t.test('Recycle: a recycler pod scrubs the volume, then it is Available again', async (t) => {
    await client.create(RESOURCES.persistentVolumes, undefined, volume('rec-vol', { size: '1Gi', cls: 'rec', policy: 'Recycle', path: '/tmp/ballast-test-rec' }));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('rec', { size: '1Gi', cls: 'rec' }));
    await bound('rec');
    await client.delete(RESOURCES.persistentVolumeClaims, ns, 'rec');
    const pod = await waitFor('the recycler pod', () => getOrNone(client, RESOURCES.pods, ns, 'recycler-for-rec-vol'));
    t.match(pod.spec, { restartPolicy: 'Never', activeDeadlineSeconds: 60, volumes: [{ name: 'vol', hostPath: { path: '/tmp/ballast-test-rec' } }] });
    t.equal((await pv('rec-vol')).status?.phase, 'Released', 'released while the pod runs');
    // the node's part: the scrub ends well
    await client.patch(RESOURCES.pods, ns, 'recycler-for-rec-vol', 'merge', { status: { phase: 'Succeeded' } }, { subresource: 'status' });
    const v = await waitFor('Available', async () => {
      const v = await pv('rec-vol');
      return v.status?.phase === 'Available' && v;
    });
    t.notOk(v.spec.claimRef, 'the claimRef the controller set is gone');
    t.match(await event('rec-vol', 'VolumeRecycled'), { type: 'Normal', message: 'Volume recycled' });
    await gone(RESOURCES.pods, ns, 'recycler-for-rec-vol');
  });

  await t.test('Recycle: a failed scrub fails the volume', async (t) => {
    await client.create(RESOURCES.persistentVolumes, undefined, volume('rec-bad', { size: '1Gi', cls: 'rec-bad', policy: 'Recycle', path: '/tmp/ballast-test-rec-bad' }));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('rec-bad', { size: '1Gi', cls: 'rec-bad' }));
    await bound('rec-bad');
    await client.delete(RESOURCES.persistentVolumeClaims, ns, 'rec-bad');
    const first = await waitFor('the recycler pod', () => getOrNone(client, RESOURCES.pods, ns, 'recycler-for-rec-bad'));
    await client.patch(RESOURCES.pods, ns, 'recycler-for-rec-bad', 'merge', { status: { phase: 'Failed', message: 'rm: permission denied' } }, { subresource: 'status' });
    t.match(await event('rec-bad', 'VolumeFailedRecycle'), { type: 'Warning', message: 'Recycle failed: rm: permission denied' });
    t.match((await pv('rec-bad')).status, { phase: 'Failed', message: 'Recycle failed: rm: permission denied' });
    // the failed pod goes; as kube, a later sync tries the recycling again with a new one
    await waitFor('the failed pod gone', async () => (await getOrNone(client, RESOURCES.pods, ns, 'recycler-for-rec-bad'))?.metadata?.uid !== first.metadata?.uid);
    await client.delete(RESOURCES.persistentVolumes, undefined, 'rec-bad');
  });

  await t.test('WaitForFirstConsumer: the claim waits for the scheduler, whose volume binding picks the volume', async (t) => {
    await client.create(RESOURCES.storageClasses, undefined, storageClass('late', 'kubernetes.io/no-provisioner', { volumeBindingMode: 'WaitForFirstConsumer' }));
    await client.create(RESOURCES.persistentVolumes, undefined, volume('late-vol', { size: '1Gi', cls: 'late' }));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('late', { size: '1Gi', cls: 'late' }));
    t.match(await event('late', 'WaitForFirstConsumer'), { type: 'Normal', message: 'waiting for first consumer to be created before binding' });
    t.equal((await pvc('late')).status?.phase, 'Pending');
    t.notOk((await pv('late-vol')).spec.claimRef, 'not bound before a consumer');
    // the real scheduler, on one node: VolumeBinding reserves late-vol, writes its claimRef, and
    // binds the pod once this controller has completed the binding
    await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } });
    // (the API server taints new nodes not-ready; the node lifecycle controller would lift it from a Ready node)
    await client.patch(RESOURCES.nodes, undefined, 'node-1', 'merge', { spec: { taints: null } });
    startScheduler(t, server, defaultProfiles());
    const { nodeName: _none, ...unscheduled } = podUsing('late-user', 'late').spec as Record<string, unknown>;
    await client.create(RESOURCES.pods, ns, { ...podUsing('late-user', 'late'), spec: unscheduled });
    const c = await bound('late');
    t.equal(c.spec.volumeName, 'late-vol');
    await waitFor('the pod bound to node-1', async () => ((await client.get(RESOURCES.pods, ns, 'late-user')).spec as { nodeName?: string }).nodeName === 'node-1');
    await client.delete(RESOURCES.pods, ns, 'late-user', { gracePeriodSeconds: 0 });
  });

  await t.test('external provisioners and no class: the events kube writes', async (t) => {
    await client.create(RESOURCES.storageClasses, undefined, storageClass('ext', 'example.com/ext'));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('ext', { size: '1Gi', cls: 'ext' }));
    t.match(await event('ext', 'ExternalProvisioning'), {
      type: 'Normal',
      message: 'waiting for a volume to be created, either by external provisioner "example.com/ext" or manually created by system administrator',
    });
    const c = await pvc('ext');
    t.equal(c.metadata?.annotations?.['volume.beta.kubernetes.io/storage-provisioner'], 'example.com/ext');
    t.equal(c.status?.phase, 'Pending');

    await client.create(RESOURCES.storageClasses, undefined, storageClass('local', 'kubernetes.io/no-provisioner'));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('local', { size: '1Gi', cls: 'local' }));
    t.match(await event('local', 'ProvisioningFailed'), { type: 'Warning', message: 'no volume plugin matched name: kubernetes.io/no-provisioner' });

    await client.create(RESOURCES.storageClasses, undefined, storageClass('hostpath-opts', 'kubernetes.io/host-path', { mountOptions: ['ro', 'noatime'] }));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('opts', { size: '1Gi', cls: 'hostpath-opts' }));
    t.match(await event('opts', 'ProvisioningFailed'), { message: 'Mount options are not supported by the provisioner but StorageClass "hostpath-opts" has mount options [ro noatime]' });

    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('huge', { size: '100Gi' }));
    t.match(await event('huge', 'FailedBinding'), { type: 'Normal', message: 'no persistent volumes available for this claim and no storage class is set' });
  });

  await t.test('a bound claim whose volume is gone is Lost', async (t) => {
    await client.create(RESOURCES.persistentVolumes, undefined, volume('lost-vol', { size: '1Gi', cls: 'lost' }));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('lost', { size: '1Gi', cls: 'lost' }));
    await bound('lost');
    await client.delete(RESOURCES.persistentVolumes, undefined, 'lost-vol');
    // past pv-protection by hand: the volume is Bound, the controller would keep it
    await client.patch(RESOURCES.persistentVolumes, undefined, 'lost-vol', 'merge', { metadata: { finalizers: null } });
    t.match(await event('lost', 'ClaimLost'), { type: 'Warning', message: 'Bound claim has lost its PersistentVolume. Data on the volume is lost!' });
    t.same((await pvc('lost')).status, { phase: 'Lost' });
  });

  await t.test('protection: a claim in use and a bound volume wait for their users', async (t) => {
    await client.create(RESOURCES.persistentVolumes, undefined, volume('prot-vol', { size: '1Gi', cls: 'prot' }));
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('prot', { size: '1Gi', cls: 'prot' }));
    await bound('prot');
    t.same((await pvc('prot')).metadata?.finalizers, ['kubernetes.io/pvc-protection']);
    t.same((await pv('prot-vol')).metadata?.finalizers, ['kubernetes.io/pv-protection']);
    await client.create(RESOURCES.pods, ns, podUsing('prot-user', 'prot'));

    await client.delete(RESOURCES.persistentVolumes, undefined, 'prot-vol');
    await client.delete(RESOURCES.persistentVolumeClaims, ns, 'prot');
    // an unused claim deleted after them goes at once: by then the controllers have seen both
    await client.create(RESOURCES.persistentVolumeClaims, ns, claim('unused', { size: '1Gi', cls: 'none' }));
    await client.delete(RESOURCES.persistentVolumeClaims, ns, 'unused');
    await gone(RESOURCES.persistentVolumeClaims, ns, 'unused');
    const c = await pvc('prot');
    t.ok(c.metadata?.deletionTimestamp, 'the claim is Terminating');
    t.same(c.metadata?.finalizers, ['kubernetes.io/pvc-protection']);
    const v = await pv('prot-vol');
    t.ok(v.metadata?.deletionTimestamp, 'the volume is Terminating');
    t.equal(v.status?.phase, 'Bound');

    // the pod ends: the claim goes, its volume is released and goes too
    await client.patch(RESOURCES.pods, ns, 'prot-user', 'merge', { status: { phase: 'Succeeded' } }, { subresource: 'status' });
    await gone(RESOURCES.persistentVolumeClaims, ns, 'prot');
    await gone(RESOURCES.persistentVolumes, undefined, 'prot-vol');
    t.pass('both gone');
  });
});
