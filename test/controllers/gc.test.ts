/**
 * The garbage collector against the real API server (one server, the collector in process): owners
 * and dependents made by hand from ConfigMaps, Secrets and a custom resource, deleted with each
 * propagation policy; dangling and cross-namespace owner references.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { WIDGETS, configMap, createWidgetCrd, getOrGone, ownerRef, waitGone } from './gc-fixtures';

t.test('garbage collector', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['garbagecollector']);
  const cms = RESOURCES.configMaps;

  t.test('background: dependents of a deleted owner are deleted', async (t) => {
    const owner = await configMap(client, 'default', 'bg-owner');
    await configMap(client, 'default', 'bg-dep', { ownerReferences: [ownerRef(owner)] });
    await client.create(RESOURCES.secrets, 'default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bg-secret', ownerReferences: [ownerRef(owner)] } });
    // a dependent with a second, living owner only loses the reference to the dead one
    const other = await configMap(client, 'default', 'bg-other');
    await configMap(client, 'default', 'bg-shared', { ownerReferences: [ownerRef(owner), ownerRef(other)] });
    await client.delete(cms, 'default', 'bg-owner', { propagationPolicy: 'Background' });
    await waitGone(client, cms, 'default', 'bg-dep');
    await waitGone(client, RESOURCES.secrets, 'default', 'bg-secret');
    const shared = await waitFor('the dead owner dropped from bg-shared', async () => {
      const o = await client.get(cms, 'default', 'bg-shared');
      return o.metadata?.ownerReferences?.length === 1 ? o : undefined;
    });
    t.equal(shared.metadata?.ownerReferences?.[0].uid, other.metadata?.uid, 'the living owner keeps it');
  });

  t.test('foreground: the owner waits for its blocking dependents', async (t) => {
    const owner = await configMap(client, 'default', 'fg-owner');
    await configMap(client, 'default', 'fg-dep', { ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
    await client.delete(cms, 'default', 'fg-owner', { propagationPolicy: 'Foreground' });
    await waitFor('the dependent being deleted', async () => !!(await client.get(cms, 'default', 'fg-dep')).metadata?.deletionTimestamp);
    const waiting = await client.get(cms, 'default', 'fg-owner');
    t.ok(waiting.metadata?.deletionTimestamp, 'the owner is being deleted');
    t.same(waiting.metadata?.finalizers, ['foregroundDeletion'], 'and keeps foregroundDeletion while the dependent stays');
    await client.patch(cms, 'default', 'fg-dep', 'merge', { metadata: { finalizers: null } });
    await waitGone(client, cms, 'default', 'fg-dep');
    await waitGone(client, cms, 'default', 'fg-owner');
  });

  t.test('orphan: dependents stay without the reference', async (t) => {
    const owner = await configMap(client, 'default', 'or-owner');
    const keep = await configMap(client, 'default', 'or-keep');
    await configMap(client, 'default', 'or-dep', { ownerReferences: [ownerRef(owner), ownerRef(keep)] });
    await client.delete(cms, 'default', 'or-owner', { propagationPolicy: 'Orphan' });
    await waitGone(client, cms, 'default', 'or-owner');
    const dep = await client.get(cms, 'default', 'or-dep');
    t.same(dep.metadata?.ownerReferences?.map((r) => r.name), ['or-keep'], 'only the reference to the deleted owner is removed');
  });

  t.test('a dependent whose owner uid does not exist is collected', async (t) => {
    await configMap(client, 'default', 'dangling', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was', uid: randomUUID() }] });
    // an owner of that name exists, but it is another object (another uid)
    await configMap(client, 'default', 'same-name');
    await configMap(client, 'default', 'dangling-2', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'same-name', uid: randomUUID() }] });
    await waitGone(client, cms, 'default', 'dangling');
    await waitGone(client, cms, 'default', 'dangling-2');
    t.ok(await getOrGone(client, cms, 'default', 'same-name'), 'the unrelated object of the same name stays');
  });

  t.test('a custom resource owned by a ConfigMap is collected (discovery sees the new CRD)', async (t) => {
    await createWidgetCrd(client);
    const owner = await configMap(client, 'default', 'cr-owner');
    await client.create(WIDGETS, 'default', { apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'w1', ownerReferences: [ownerRef(owner)] } });
    // and a ConfigMap owned by a Widget: the custom resource as owner, deleted in the foreground
    const w2 = await client.create(WIDGETS, 'default', { apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'w2' } });
    await configMap(client, 'default', 'cr-dep', { ownerReferences: [{ apiVersion: 'gc.example.com/v1', kind: 'Widget', name: 'w2', uid: w2.metadata!.uid!, blockOwnerDeletion: true }] });
    await client.delete(cms, 'default', 'cr-owner');
    await waitGone(client, WIDGETS, 'default', 'w1');
    await client.delete(WIDGETS, 'default', 'w2', { propagationPolicy: 'Foreground' });
    await waitGone(client, cms, 'default', 'cr-dep');
    await waitGone(client, WIDGETS, 'default', 'w2');
    t.pass('collected');
  });

  t.test('an owner in another namespace counts as absent (OwnerRefInvalidNamespace)', async (t) => {
    await client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc-other' } });
    const owner = await configMap(client, 'default', 'xns-owner');
    await configMap(client, 'gc-other', 'xns-dep', { ownerReferences: [ownerRef(owner)] });
    await waitGone(client, cms, 'gc-other', 'xns-dep');
    t.ok(await getOrGone(client, cms, 'default', 'xns-owner'), 'the owner itself is untouched');
    const event = await waitFor('the OwnerRefInvalidNamespace event', async () =>
      (await client.list(RESOURCES.events, 'gc-other')).items.find((e) => e.reason === 'OwnerRefInvalidNamespace'),
    );
    t.equal(event.type, 'Warning');
    t.match(String(event.message), `does not exist in namespace "gc-other"`);
  });
});
