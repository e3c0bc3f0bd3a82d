/**
 * The client pieces against the real server process: the REST client in JSON and protobuf, errors
 * as Status, an informer following changes, leader election between two candidates, events.
 */
import t from 'tap';
import { missingKubectl, startApiServer, waitFor } from '../e2e/harness';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { JSON_TYPE, PROTOBUF_TYPE, RestClient } from '../../src/client/rest-client';
import { isAlreadyExists, isNotFound } from '../../src/client/errors';
import { SharedInformer } from '../../src/client/informer';
import { LeaderElector, type LockKind } from '../../src/client/leader-election';
import { EventRecorder } from '../../src/client/events';
import { byNamespace, NAMESPACE_INDEX } from '../../src/client/indexer';
import type { KubeObject, ResourceRef } from '../../src/client/types';

const skip = missingKubectl('1.32');
const CONFIGMAPS: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const DEPLOYMENTS: ResourceRef = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };

t.test('client against the server', { skip }, async (t) => {
  const server = await startApiServer(t);
  const config = loadClientConfig(server.kubeconfig, { userAgent: 'ballast-client-test' });
  const clients = [JSON_TYPE, PROTOBUF_TYPE].map((contentType) => new RestClient(config, { contentType, qps: -1 }));
  t.teardown(() => clients.forEach((c) => c.close()));

  for (const [i, client] of clients.entries()) {
    t.test(`verbs over ${i ? 'protobuf' : 'JSON'}`, async (t) => {
      const name = `cm-${i}`;
      const created = await client.create(CONFIGMAPS, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });
      t.equal(created.metadata?.name, name);
      t.ok(created.metadata?.uid);
      const again = await client.create(CONFIGMAPS, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }).catch((e) => e);
      t.ok(isAlreadyExists(again), 'AlreadyExists as an ApiError');
      const got = await client.get(CONFIGMAPS, 'default', name);
      t.same(got.data, { a: '1' });
      const patched = await client.patch(CONFIGMAPS, 'default', name, 'merge', { data: { b: '2' } });
      t.same(patched.data, { a: '1', b: '2' });
      const updated = await client.update(CONFIGMAPS, { ...patched, data: { c: '3' } });
      t.same(updated.data, { c: '3' });
      const list = await client.list(CONFIGMAPS, 'default');
      const mine = list.items.find((o) => o.metadata?.name === name);
      t.equal(mine?.kind, 'ConfigMap', 'list items carry their kind');
      t.ok(list.metadata?.resourceVersion);
      const dep = await client.create(DEPLOYMENTS, 'default', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: `d-${i}` },
        spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      });
      t.equal((dep.spec as { replicas?: number }).replicas, 1, 'defaults come back');
      await client.delete(CONFIGMAPS, 'default', name);
      const gone = await client.get(CONFIGMAPS, 'default', name).catch((e) => e);
      t.ok(isNotFound(gone), 'NotFound after delete');
      t.equal(gone.code, 404);
    });
  }

  t.test('an informer lists, then follows additions, changes and deletions', async (t) => {
    const client = clients[1];
    await client.create(CONFIGMAPS, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' } });
    const informer = new SharedInformer(client, CONFIGMAPS, { indexers: { [NAMESPACE_INDEX]: byNamespace } });
    const seen: string[] = [];
    informer.addEventHandler({
      add: (o, initial) => seen.push(`add ${o.metadata?.name}${initial ? ' (initial)' : ''}`),
      update: (o, n) => seen.push(`update ${n.metadata?.name} ${o.metadata?.resourceVersion !== n.metadata?.resourceVersion}`),
      delete: (o) => seen.push(`delete ${o.metadata?.name}`),
    });
    const stop = new AbortController();
    const run = informer.run(stop.signal);
    t.ok(await informer.waitForSync());
    t.ok(informer.store.getObject('default', 'before'), 'the listed object is in the store');
    await client.create(CONFIGMAPS, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } });
    await client.patch(CONFIGMAPS, 'default', 'after', 'merge', { data: { x: 'y' } });
    await client.delete(CONFIGMAPS, 'default', 'after');
    await waitFor('the deletion', () => seen.includes('delete after'));
    t.ok(seen.includes('add before (initial)'));
    t.ok(seen.includes('add after'));
    t.ok(seen.includes('update after true'));
    t.notOk(informer.store.getObject('default', 'after'));
    t.ok(informer.store.byIndex(NAMESPACE_INDEX, 'default').some((o) => o.metadata?.name === 'before'));
    stop.abort();
    await run;
  });

  for (const lock of ['leases', 'endpointsleases'] as LockKind[]) {
    t.test(`leader election with a ${lock} lock: one leads, the other takes over`, async (t) => {
      const client = clients[0];
      const leading: string[] = [];
      const stops = new Map<string, AbortController>();
      const runs: Promise<void>[] = [];
      for (const id of ['one', 'two']) {
        const stop = new AbortController();
        stops.set(id, stop);
        const elector = new LeaderElector(client, {
          lock,
          namespace: 'kube-system',
          name: `test-${lock}`,
          identity: id,
          leaseDurationMs: 2000,
          renewDeadlineMs: 1500,
          retryPeriodMs: 300,
          onStartedLeading: () => leading.push(id),
        });
        runs.push(elector.run(stop.signal));
      }
      await waitFor('a leader', () => leading.length === 1);
      await new Promise((r) => setTimeout(r, 1000));
      t.equal(leading.length, 1, 'only one leads');
      const first = leading[0];
      const lease = await client.get({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true }, 'kube-system', `test-${lock}`);
      t.equal((lease.spec as { holderIdentity?: string }).holderIdentity, first, 'the Lease names the leader');
      if (lock === 'endpointsleases') {
        const ep = await client.get({ group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true }, 'kube-system', `test-${lock}`);
        t.match(ep.metadata?.annotations?.['control-plane.alpha.kubernetes.io/leader'], `"holderIdentity":"${first}"`);
      }
      const started = Date.now();
      stops.get(first)!.abort(); // the leader goes away without releasing the lock
      await waitFor('the other candidate leading', () => leading.length === 2, 10_000);
      const took = Date.now() - started;
      t.not(leading[1], first);
      t.ok(took >= 1000, `waited for the lease to expire (${took} ms)`);
      for (const s of stops.values()) s.abort();
      await Promise.all(runs);
    });
  }

  t.test('events: created once, then counted', async (t) => {
    const client = clients[0];
    const recorder = new EventRecorder(client, { component: 'test-controller' });
    const obj: KubeObject = await client.create(CONFIGMAPS, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'evented' } });
    obj.apiVersion = 'v1';
    obj.kind = 'ConfigMap';
    recorder.event(obj, 'Normal', 'Tested', 'something happened');
    recorder.event(obj, 'Normal', 'Tested', 'something happened');
    recorder.event(obj, 'Warning', 'Other', 'something else');
    await recorder.flush();
    const events = (await client.list({ group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true }, 'default', { fieldSelector: 'involvedObject.name=evented' })).items;
    const tested = events.filter((e) => e.reason === 'Tested');
    t.equal(tested.length, 1, 'the repeated event is one Event');
    t.equal(tested[0]?.count, 2);
    t.equal((tested[0]?.source as { component?: string })?.component, 'test-controller');
    t.equal(events.filter((e) => e.reason === 'Other').length, 1);
  });
});
