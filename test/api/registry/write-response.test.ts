/**
 * The object a write answers with is the stored state: its JSON is byte for byte what a GET of the
 * object returns right after (same fields, defaults, resourceVersion and field order), for kinds
 * stored in their own version, kinds stored through a conversion, and bodies that are not plain
 * JSON values.
 */
import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import type { Target } from '../../../src/api/registry/types';
import { makeFixture, storeKinds, configMap, deployment, pod, namespace, write } from '../../helpers/registry-fixture';
import type { Fixture } from '../../helpers/registry-fixture';

function service(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ port: 80 }], selector: { app: name } } };
}

function cronJob(name: string, apiVersion: string): KubeObject {
  return {
    apiVersion,
    kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } } },
  };
}

function eventV1(name: string): KubeObject {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    eventTime: '2024-05-01T10:00:00.000000Z',
    reportingController: 'ballast.io/test',
    reportingInstance: 'test-1',
    action: 'Testing',
    reason: 'Tested',
    type: 'Normal',
    regarding: { kind: 'Pod', namespace: 'default', name: 'p' },
  };
}

interface Case {
  name: string;
  target(f: Fixture, name?: string): Target;
  body(): KubeObject;
}

const cases: Case[] = [
  { name: 'configmap', target: (f, n) => f.target('configmaps', 'default', n), body: () => configMap('cm', 'default', { a: '1' }) },
  { name: 'deployment (defaults, generation, status)', target: (f, n) => f.target('deployments', 'default', n), body: () => deployment('web') },
  { name: 'pod (defaults in nested lists)', target: (f, n) => f.target('pods', 'default', n), body: () => pod('p') },
  { name: 'service', target: (f, n) => f.target('services', 'default', n), body: () => service('svc') },
  { name: 'namespace (cluster scoped, PrepareForCreate)', target: (f, n) => f.target('namespaces', undefined, n), body: () => namespace('ns1') },
  {
    name: 'batch/v1beta1 cronjob (stored as batch/v1)',
    target: (f, n) => ({ kind: f.kind('cronjobs', 'batch', 'v1beta1'), namespace: 'default', name: n }),
    body: () => cronJob('cj', 'batch/v1beta1'),
  },
  {
    name: 'events.k8s.io event (stored as a core event)',
    target: (f, n) => ({ kind: f.kind('events', 'events.k8s.io', 'v1'), namespace: 'default', name: n }),
    body: () => eventV1('ev'),
  },
];

async function getJson(f: Fixture, target: Target): Promise<string> {
  return JSON.stringify(await f.registry.get(target, {}));
}

for (const backend of storeKinds()) {
  t.test(`write responses are the stored state, byte for byte (${backend})`, async (t) => {
    for (const c of cases) {
      t.test(c.name, async (t) => {
        const f = await makeFixture(backend);
        t.teardown(() => f.close());
        const body = c.body();
        const name = body.metadata!.name!;
        const created = await f.registry.create(c.target(f), body, write);
        t.equal(JSON.stringify(created.object), await getJson(f, c.target(f, name)), 'create');
        t.same(body, c.body(), 'the request body is not changed');

        // PUT of the response with a label: same-position metadata, resourceVersion moved last
        const next = JSON.parse(JSON.stringify(created.object)) as KubeObject;
        next.metadata!.labels = { ...(next.metadata!.labels ?? {}), changed: 'yes' };
        f.clock.now = new Date('2024-05-01T10:00:07.000Z');
        const updated = await f.registry.update(c.target(f, name), next, write);
        t.not(updated.object.metadata!.resourceVersion, created.object.metadata!.resourceVersion, 'written');
        t.equal(JSON.stringify(updated.object), await getJson(f, c.target(f, name)), 'update');

        // a PUT without resourceVersion (unconditional), its keys in another order
        const reordered = JSON.parse(JSON.stringify(updated.object)) as KubeObject;
        delete reordered.metadata!.resourceVersion;
        const { metadata, ...rest } = reordered;
        const again = await f.registry.update(c.target(f, name), { metadata: { ...metadata, annotations: { a: 'b' } }, ...rest }, write);
        t.equal(JSON.stringify(again.object), await getJson(f, c.target(f, name)), 'unconditional update');

        const patched = await f.registry.patch(c.target(f, name), 'merge', JSON.stringify({ metadata: { labels: { patched: 'yes' } } }), write);
        t.equal(JSON.stringify(patched.object), await getJson(f, c.target(f, name)), 'merge patch');
      });
    }

    t.test('bodies that are not plain JSON (as a YAML decoder may give)', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      // ControllerRevision data is free-form: a Date and -0 are stored as JSON turns them
      const body: KubeObject = {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: { name: 'cr', namespace: 'default', labels: undefined as unknown as Record<string, string> },
        data: { when: new Date('2024-01-02T03:04:05.000Z'), zero: -0, list: [1, undefined] },
        revision: 1,
      };
      const target = { kind: f.kind('controllerrevisions', 'apps'), namespace: 'default' };
      const created = await f.registry.create(target, body, write);
      const got = await f.registry.get({ ...target, name: 'cr' }, {});
      t.equal(JSON.stringify(created.object), JSON.stringify(got));
      t.same(created.object.data, { when: '2024-01-02T03:04:05.000Z', zero: 0, list: [1, null] }, 'the response holds the stored values');
    });

    t.test('the response is not shared with the next write', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const created = await f.registry.create(f.target('configmaps', 'default'), configMap('cm'), write);
      (created.object.data as Record<string, string>).k = 'changed by the caller';
      created.object.metadata!.labels = { mutated: 'yes' };
      const got = await f.registry.get(f.target('configmaps', 'default', 'cm'), {});
      t.same(got.data, { k: 'v' });
      t.equal(got.metadata!.labels, undefined);
    });
  });
}
