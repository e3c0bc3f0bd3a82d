import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject } from '../../src/client/types';
import { missingKubectl, startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';

function deployment(name: string, replicas: number, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: {
      replicas, selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      ...extra,
    },
  };
}

type Status = { replicas?: number; updatedReplicas?: number; readyReplicas?: number; availableReplicas?: number; unavailableReplicas?: number; observedGeneration?: number; conditions?: { type: string; status: string; reason: string; message: string }[] };

const replicaSetsOf = async (client: RestClient, name: string) =>
  (await client.list(RESOURCES.replicaSets, 'default')).items
    .filter((rs) => rs.metadata?.ownerReferences?.some((r) => r.kind === 'Deployment' && r.name === name))
    .sort((a, b) => Number(a.metadata?.annotations?.['deployment.kubernetes.io/revision']) - Number(b.metadata?.annotations?.['deployment.kubernetes.io/revision']));
const statusOf = async (client: RestClient, name: string) => (await client.get(RESOURCES.deployments, 'default', name)).status as Status;
const condition = (s: Status, type: string) => s.conditions?.find((c) => c.type === type);
const specReplicas = (rs: KubeObject) => (rs.spec as { replicas: number }).replicas;

/** the rollout is over: every replica updated and available, for this generation */
async function complete(client: RestClient, name: string, replicas: number): Promise<Status> {
  return waitFor(`${name} complete`, async () => {
    const d = await client.get(RESOURCES.deployments, 'default', name);
    const s = d.status as Status;
    return (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) && s.updatedReplicas === replicas && s.replicas === replicas && s.availableReplicas === replicas && condition(s, 'Progressing')?.reason === 'NewReplicaSetAvailable' && s;
  });
}

t.test('deployment controller against the real server', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['replicaset', 'deployment']);
  const node = startFakeNode(t, client);

  await t.test('a new deployment gets a hashed ReplicaSet, pods, conditions and events', async (t) => {
    await client.create(RESOURCES.deployments, 'default', deployment('web', 3));
    const s = await complete(client, 'web', 3);
    t.match(condition(s, 'Available'), { status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' });
    const [rs] = await replicaSetsOf(client, 'web');
    const hash = rs!.metadata!.labels!['pod-template-hash']!;
    t.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    t.equal(rs!.metadata!.name, `web-${hash}`);
    t.match(rs!.metadata!.annotations, { 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
    t.match(rs!.spec, { selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } } });
    t.match(condition(s, 'Progressing'), { status: 'True', message: `ReplicaSet "web-${hash}" has successfully progressed.` });
    const d = await client.get(RESOURCES.deployments, 'default', 'web');
    t.equal(d.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
    const events = (await client.list(RESOURCES.events, 'default')).items.filter((e) => e.reason === 'ScalingReplicaSet');
    t.ok(events.some((e) => e.message === `Scaled up replica set web-${hash} to 3`), 'ScalingReplicaSet');
  });

  await t.test('a template change rolls out to a second ReplicaSet', async (t) => {
    await client.patch(RESOURCES.deployments, 'default', 'web', 'strategic', { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } } });
    await waitFor('2 replica sets', async () => (await replicaSetsOf(client, 'web')).length === 2);
    await complete(client, 'web', 3);
    const [old, cur] = await replicaSetsOf(client, 'web');
    t.equal(specReplicas(old!), 0, 'old scaled down');
    t.equal(specReplicas(cur!), 3);
    t.equal(cur!.metadata!.annotations!['deployment.kubernetes.io/revision'], '2');
    const msgs = (await client.list(RESOURCES.events, 'default')).items.filter((e) => e.reason === 'ScalingReplicaSet').map((e) => e.message);
    t.ok(msgs.some((m) => m === `Scaled down replica set ${old!.metadata!.name} to 0`), 'scaled down event');
  });

  await t.test('paused deployments do not roll out; resumed ones do', async (t) => {
    await client.patch(RESOURCES.deployments, 'default', 'web', 'merge', { spec: { paused: true } });
    await waitFor('DeploymentPaused', async () => condition(await statusOf(client, 'web'), 'Progressing')?.reason === 'DeploymentPaused');
    await client.patch(RESOURCES.deployments, 'default', 'web', 'strategic', { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:3' }] } } } });
    await waitFor('observed', async () => {
      const d = await client.get(RESOURCES.deployments, 'default', 'web');
      return (d.status as Status).observedGeneration === d.metadata?.generation;
    });
    t.equal((await replicaSetsOf(client, 'web')).length, 2, 'no new replica set while paused');
    await client.patch(RESOURCES.deployments, 'default', 'web', 'merge', { spec: { paused: false } });
    await waitFor('3 replica sets', async () => (await replicaSetsOf(client, 'web')).length === 3);
    await complete(client, 'web', 3);
  });

  await t.test('revisionHistoryLimit removes old ReplicaSets', async (t) => {
    await client.patch(RESOURCES.deployments, 'default', 'web', 'merge', { spec: { revisionHistoryLimit: 1 } });
    await waitFor('cleanup', async () => (await replicaSetsOf(client, 'web')).length === 2);
    const revisions = (await replicaSetsOf(client, 'web')).map((rs) => rs.metadata?.annotations?.['deployment.kubernetes.io/revision']);
    t.same(revisions, ['2', '3']);
  });

  await t.test('scaling mid-rollout is proportional', async (t) => {
    await client.create(RESOURCES.deployments, 'default', deployment('prop', 4, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    await complete(client, 'prop', 4);
    node.hold((p) => p.metadata?.labels?.app === 'prop');
    await client.patch(RESOURCES.deployments, 'default', 'prop', 'strategic', { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } } });
    await waitFor('surge of one', async () => {
      const rss = await replicaSetsOf(client, 'prop');
      return rss.length === 2 && specReplicas(rss[1]!) === 1;
    });
    await client.patch(RESOURCES.deployments, 'default', 'prop', 'merge', { spec: { replicas: 8 } });
    const [old, cur] = await waitFor('proportional sizes', async () => {
      const rss = await replicaSetsOf(client, 'prop');
      return specReplicas(rss[0]!) + specReplicas(rss[1]!) === 9 && rss;
    });
    // 9 allowed, 4 to add: old 4*9/5 = 7.2 -> 7, new 1*9/5 = 1.8 -> 2
    t.equal(specReplicas(old!), 7);
    t.equal(specReplicas(cur!), 2);
    node.release();
    await complete(client, 'prop', 8);
  });

  await t.test('progressDeadlineSeconds: ProgressDeadlineExceeded', async (t) => {
    node.hold((p) => p.metadata?.labels?.app === 'stuck');
    await client.create(RESOURCES.deployments, 'default', deployment('stuck', 1, { progressDeadlineSeconds: 2 }));
    const c = await waitFor('deadline', async () => {
      const cond = condition(await statusOf(client, 'stuck'), 'Progressing');
      return cond?.reason === 'ProgressDeadlineExceeded' && cond;
    }, 15_000);
    t.match(c, { status: 'False', message: /^ReplicaSet "stuck-[a-z0-9]+" has timed out progressing\.$/ });
    t.match(condition(await statusOf(client, 'stuck'), 'Available'), { status: 'False', reason: 'MinimumReplicasUnavailable' });
    node.release();
  });

  await t.test('adopts a matching orphan ReplicaSet as its new one', async (t) => {
    const d = deployment('adopt', 2);
    const spec = d.spec as { template: KubeObject };
    await client.create(RESOURCES.replicaSets, 'default', {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'adopt-manual', labels: { app: 'adopt' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'adopt' } }, template: spec.template },
    });
    await waitFor('manual pods', async () => ((await client.get(RESOURCES.replicaSets, 'default', 'adopt-manual')).status as Status).readyReplicas === 2);
    await client.create(RESOURCES.deployments, 'default', d);
    await complete(client, 'adopt', 2);
    const rss = await replicaSetsOf(client, 'adopt');
    t.same(rss.map((rs) => rs.metadata?.name), ['adopt-manual'], 'adopted, no new replica set');
    t.equal(rss[0]!.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  });

  await t.test('Recreate scales the old ReplicaSet to zero before the new one grows', async (t) => {
    await client.create(RESOURCES.deployments, 'default', deployment('re', 2, { strategy: { type: 'Recreate' } }));
    await complete(client, 're', 2);
    await client.patch(RESOURCES.deployments, 'default', 're', 'strategic', { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } } });
    const [old, cur] = await waitFor('new replica set', async () => {
      const rss = await replicaSetsOf(client, 're');
      return rss.length === 2 && rss;
    });
    t.equal(specReplicas(old!), 0, 'old already at zero when the new one appears');
    void cur;
    await complete(client, 're', 2);
  });
});
