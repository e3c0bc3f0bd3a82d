/**
 * kube decodes request bodies into Go types: a field set to JSON null is unset. Charts render such
 * nulls routinely (`nodePort: null`, `labels: null`, `env: null`); they must not be stored, validated
 * as values or recorded in managedFields. Free-form fields (RawExtension) keep their nulls.
 */
import t from 'tap';
import { makeFixture, write } from '../../helpers/registry-fixture';
import type { KubeObject } from '../../../src/api/kind';

const service = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'default', labels: null, annotations: null } as never,
  spec: { type: 'ClusterIP', selector: { app: 'web' }, clusterIP: null, ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: null, protocol: 'TCP' }] } as never,
});

const managedPaths = (o: KubeObject): string => JSON.stringify((o.metadata?.managedFields ?? []).map((m) => m.fieldsV1));

t.test('create: null fields are unset before defaulting and validation, and are neither stored nor managed', async (t) => {
  const f = await makeFixture();
  t.teardown(() => f.close());
  // kube: 201 (a null nodePort on a ClusterIP service is no nodePort at all)
  const svc = (await f.registry.create(f.target('services', 'default'), service('web'), write)).object;
  t.same((svc.spec as any).ports, [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }]);
  t.notOk('labels' in svc.metadata!, 'labels: null is no labels');
  t.notOk('annotations' in svc.metadata!);
  t.not((svc.spec as any).clusterIP, null, 'clusterIP: null is left to the server');
  t.notMatch(managedPaths(svc), /nodePort|f:labels|f:annotations/);

  const cm = (await f.registry.create(f.target('configmaps', 'default'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: null } as never, write)).object;
  t.notOk('data' in cm, 'data: null is no data');
  t.notMatch(managedPaths(cm), /f:data/);

  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'web', empty: null } },
    spec: {
      nodeSelector: null,
      containers: [{ name: 'c', image: 'nginx', env: null, args: null, ports: [{ containerPort: 80, hostPort: null }], resources: { limits: null } }],
    },
  } as unknown as KubeObject;
  const p = (await f.registry.create(f.target('pods', 'default'), pod, write)).object as any;
  t.same(p.metadata.labels, { app: 'web', empty: '' }, 'a null map value is its zero value, as in Go');
  const c = p.spec.containers[0];
  t.notOk('env' in c);
  t.notOk('args' in c);
  t.same(c.ports, [{ containerPort: 80, protocol: 'TCP' }], 'hostPort: null is no hostPort (no 422)');
  t.same(c.resources, {});
  t.notOk('nodeSelector' in p.spec);
  t.notMatch(managedPaths(p), /f:env|f:args|f:hostPort|f:nodeSelector|f:limits/);
});

t.test('update, merge patch, strategic and JSON patches: the patched result is decoded the same way', async (t) => {
  const f = await makeFixture();
  t.teardown(() => f.close());
  const target = f.target('services', 'default', 'web');
  const svc = (await f.registry.create(f.target('services', 'default'), service('web'), write)).object;
  // PUT with nulls
  const put = JSON.parse(JSON.stringify(svc));
  put.metadata.labels = null;
  put.spec.ports[0].nodePort = null;
  put.spec.sessionAffinityConfig = null;
  const updated = (await f.registry.update(target, put, write)).object as any;
  t.notOk('labels' in updated.metadata);
  t.notOk('nodePort' in updated.spec.ports[0]);
  // merge patch: null deletes first (patch semantics), the rest is decoded
  const merged = (await f.registry.patch(target, 'merge', JSON.stringify({ metadata: { labels: { a: 'b' } }, spec: { externalName: null } }), write)).object as any;
  t.same(merged.metadata.labels, { a: 'b' });
  const removed = (await f.registry.patch(target, 'merge', JSON.stringify({ metadata: { labels: null } }), write)).object as any;
  t.notOk('labels' in removed.metadata, 'merge patch null removes the field');
  // strategic: a list item with a null field
  const smp = (await f.registry.patch(target, 'strategic', JSON.stringify({ spec: { ports: [{ port: 80, name: 'http', nodePort: null, targetPort: 9090 }] } }), write)).object as any;
  t.same(smp.spec.ports[0], { name: 'http', port: 80, targetPort: 9090, protocol: 'TCP' });
  // JSON patch setting a value to null
  const jp = (await f.registry.patch(target, 'json', JSON.stringify([{ op: 'add', path: '/spec/ports/0/nodePort', value: null }, { op: 'add', path: '/metadata/annotations', value: null }]), write)).object as any;
  t.notOk('nodePort' in jp.spec.ports[0]);
  t.notOk('annotations' in jp.metadata);
  t.notMatch(managedPaths(jp), /nodePort|f:annotations/);
});

t.test('server-side apply: null fields of the configuration are not applied or owned', async (t) => {
  const f = await makeFixture();
  t.teardown(() => f.close());
  const target = f.target('configmaps', 'default', 'applied');
  const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', labels: null, annotations: { a: null } }, data: null, binaryData: null };
  const res = await f.registry.patch(target, 'apply', JSON.stringify(config), { ...write, fieldManager: 'helm' } as never);
  const cm = res.object as any;
  t.notOk('data' in cm);
  t.notOk('labels' in cm.metadata);
  t.same(cm.metadata.annotations, { a: '' });
  const mine = cm.metadata.managedFields.find((m: { manager: string }) => m.manager === 'helm');
  t.notMatch(JSON.stringify(mine.fieldsV1), /f:data|f:binaryData|f:labels/);
});

t.test('free-form fields keep their nulls (ControllerRevision data is a RawExtension)', async (t) => {
  const f = await makeFixture();
  t.teardown(() => f.close());
  const kind = f.scheme.byResource('apps', 'v1', 'controllerrevisions')!;
  const rev = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r1', labels: null }, revision: 1, data: { spec: { template: { metadata: { creationTimestamp: null } } }, extra: null } };
  const created = (await f.registry.create({ kind, namespace: 'default' }, rev as never, write)).object as any;
  t.same(created.data, { spec: { template: { metadata: { creationTimestamp: null } } }, extra: null });
  t.notOk('labels' in created.metadata);
});
