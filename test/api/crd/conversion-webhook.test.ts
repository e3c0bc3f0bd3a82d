/**
 * Webhook conversion through the registry the HTTP layer calls: objects written in one version read
 * back in the other (get, list, watch, patch, status, apply), the webhook reached by URL and through
 * a Service's Endpoints, kube's 500 when it is gone.
 */
import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { isApiError } from '../../../src/api/errors';
import { CollectingSink } from '../../helpers/registry-fixture';
import { crdFixture, write } from './fixture';
import { startWebhookServer, twoVersionCrd } from './webhook-server';

const v1 = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name, namespace: 'default' }, spec });
const v2 = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { name, namespace: 'default' }, spec });

t.test('objects written in one version read back in the other', async (t) => {
  const hook = await startWebhookServer();
  t.teardown(() => hook.close());
  const f = await crdFixture(t);
  await f.createCrd(twoVersionCrd({ url: hook.url, caBundle: hook.caBundle }));
  const k1 = await f.waitKind('stable.example.com', 'v1', 'crontabs');
  const k2 = await f.waitKind('stable.example.com', 'v2', 'crontabs');

  const created = await f.crs.registry.create({ kind: k2, namespace: 'default' }, v2('a', { schedule: '* * * * *', image: 'x', junk: 1 }), { dryRun: false, fieldValidation: 'Warn' });
  t.same(created.object.spec, { schedule: '* * * * *', image: 'x' }, 'pruned in v2, answered in v2');
  t.same(created.warnings, ['unknown field "spec.junk"']);
  t.equal(created.object.apiVersion, 'stable.example.com/v2');
  const stored = JSON.parse((await f.store.get('/registry/stable.example.com/crontabs/default/a'))!.value) as KubeObject;
  t.equal(stored.apiVersion, 'stable.example.com/v1', 'stored in the storage version');
  t.same(stored.spec, { cronSpec: '* * * * *', image: 'x' });
  t.match(hook.requests[0], { apiVersion: 'apiextensions.k8s.io/v1', desiredAPIVersion: 'stable.example.com/v1', count: 1 });

  const asV1 = await f.crs.registry.get({ kind: k1, namespace: 'default', name: 'a' }, {});
  t.same(asV1.spec, { cronSpec: '* * * * *', image: 'x' });
  await f.crs.registry.create({ kind: k1, namespace: 'default' }, v1('b', { cronSpec: '5 * * * *' }), write);
  const before = hook.requests.length;
  const list = await f.crs.registry.list({ kind: k2, namespace: 'default' }, {});
  t.equal(list.apiVersion, 'stable.example.com/v2');
  t.same(list.items.map((i) => [i.apiVersion, (i.spec as { schedule: string }).schedule]), [['stable.example.com/v2', '* * * * *'], ['stable.example.com/v2', '5 * * * *']]);
  t.equal(hook.requests.length, before + 1, 'one review for the whole list');
  t.equal(hook.requests[hook.requests.length - 1].count, 2);

  // patches apply in the requested version
  const patched = await f.crs.registry.patch({ kind: k2, namespace: 'default', name: 'a' }, 'merge', '{"spec":{"schedule":"0 0 * * *"}}', write);
  t.equal((patched.object.spec as { schedule: string }).schedule, '0 0 * * *');
  t.equal(((await f.crs.registry.get({ kind: k1, namespace: 'default', name: 'a' }, {})).spec as { cronSpec: string }).cronSpec, '0 0 * * *');

  // status through v2
  const cur = await f.crs.registry.get({ kind: k2, namespace: 'default', name: 'a' }, {});
  const st = await f.crs.registry.updateStatus({ kind: k2, namespace: 'default', name: 'a' }, { ...cur, status: { replicas: 2 } }, write);
  t.same(st.object.status, { replicas: 2 });

  // validation in the requested version names its fields
  try {
    await f.crs.registry.create({ kind: k2, namespace: 'default' }, v2('c', { schedule: 5 }), write);
    t.fail('expected 422');
  } catch (err) {
    t.ok(isApiError(err) && err.code === 422);
    t.match((err as Error).message, 'spec.schedule: Invalid value: "integer": spec.schedule in body must be of type string: "integer"');
  }

  // server-side apply in v2
  const applied = await f.crs.registry.patch({ kind: k2, namespace: 'default', name: 'd' }, 'apply', JSON.stringify(v2('d', { schedule: '1 1 * * *' })), { dryRun: false, fieldManager: 'me' });
  t.equal((applied.object.spec as { schedule: string }).schedule, '1 1 * * *');

  // a watch in v2 sees v1 writes converted
  const sink = new CollectingSink();
  const handle = await f.crs.registry.watch({ kind: k2, namespace: 'default' }, {}, sink);
  await sink.waitFor((e) => e.length >= 3);
  await f.crs.registry.create({ kind: k1, namespace: 'default' }, v1('e', { cronSpec: '2 2 * * *' }), write);
  const events = await sink.waitFor((e) => e.some((x) => (x.object as KubeObject).metadata?.name === 'e'));
  const e = events.find((x) => (x.object as KubeObject).metadata?.name === 'e')!;
  t.equal(e.type, 'ADDED');
  t.same(((e.object as KubeObject).spec as { schedule: string }).schedule, '2 2 * * *');
  handle.cancel();

  // the webhook gone: kube's 500
  await hook.close();
  try {
    await f.crs.registry.get({ kind: k2, namespace: 'default', name: 'a' }, {});
    t.fail('expected 500');
  } catch (err) {
    t.ok(isApiError(err) && err.code === 500);
    t.match((err as Error).message, /^Internal error occurred: conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: Post "https:\/\/127\.0\.0\.1:\d+\/convert\?timeout=30s": dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/);
  }
  // the storage version itself needs no webhook
  t.equal((await f.crs.registry.get({ kind: k1, namespace: 'default', name: 'a' }, {})).metadata?.name, 'a');
});

t.test('a webhook reached through a Service and its Endpoints, v1beta1 reviews', async (t) => {
  const hook = await startWebhookServer(['conv.default.svc']);
  t.teardown(() => hook.close());
  const f = await crdFixture(t);
  const svcKind = f.scheme.byResource('', 'v1', 'services')!;
  const epKind = f.scheme.byResource('', 'v1', 'endpoints')!;
  await f.crs.registry.create({ kind: svcKind, namespace: 'default' }, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'conv', namespace: 'default' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } }, write);
  await f.crs.registry.create({ kind: epKind, namespace: 'default' }, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'conv', namespace: 'default' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: hook.port }] }] }, write);
  await f.createCrd(twoVersionCrd({ service: { namespace: 'default', name: 'conv', path: '/convert' }, caBundle: hook.caBundle }, ['v1beta1']));
  const k2 = await f.waitKind('stable.example.com', 'v2', 'crontabs');
  const created = await f.crs.registry.create({ kind: k2, namespace: 'default' }, v2('a', { schedule: '* * * * *' }), write);
  t.equal((created.object.spec as { schedule: string }).schedule, '* * * * *');
  t.match(hook.requests[0], { apiVersion: 'apiextensions.k8s.io/v1beta1' });
});
