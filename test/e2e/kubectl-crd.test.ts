/**
 * CustomResourceDefinitions with kubectl 1.32 and 1.20 against the real server: a v1 CRD (and a
 * v1beta1 one) established and listed by api-resources; custom objects validated (kube's message),
 * defaulted and pruned; printer columns; explain; server-side apply; scale; `get all`; two
 * versions converted by a webhook served by this test over HTTPS with its own CA; the CRD deleted
 * with its objects, and its resource no longer served.
 */
import t from 'tap';
import yaml from 'js-yaml';
import { kubectlFor, missingKubectl, startApiServer, waitFor } from './harness';
import type { KubectlVersion } from './harness';
import { startWebhookServer, twoVersionCrd } from '../api/crd/webhook-server';

const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];

type Obj = { apiVersion: string; kind: string; metadata: { name: string; [k: string]: unknown }; spec?: Record<string, unknown>; status?: Record<string, unknown> };

function cronTabCrd(group: string): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  description: 'The desired cron tab.',
                  properties: {
                    cronSpec: { type: 'string', description: 'A cron schedule.' },
                    image: { type: 'string' },
                    replicas: { type: 'integer', default: 1 },
                  },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' } } },
              },
            },
          },
        },
      ],
    },
  };
}

const cronTab = (group: string, name: string, spec: Record<string, unknown>, apiVersion = `${group}/v1`): Obj => ({ apiVersion, kind: 'CronTab', metadata: { name }, spec });
const dump = (o: unknown) => yaml.dump(o);

for (const version of VERSIONS) {
  t.test(`kubectl ${version}`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    const k = kubectlFor(t, version, server);
    const group = `stable-${version.replace('.', '-')}.example.com`;
    const ns = 'default';

    t.test('a v1 CRD is established and listed by api-resources', async (t) => {
      t.match(await k.ok(['apply', '-f', '-'], dump(cronTabCrd(group))), `customresourcedefinition.apiextensions.k8s.io/crontabs.${group} created`);
      await k.ok(['wait', '--for=condition=Established', `crd/crontabs.${group}`, '--timeout=20s']);
      const resources = await waitFor('api-resources to list crontabs', async () => {
        const out = await k.ok(['api-resources', `--api-group=${group}`]);
        return out.includes('crontabs') && out;
      });
      t.match(resources, new RegExp(`^crontabs\\s+ct\\s+${group.replace(/\./g, '\\.')}/v1\\s+true\\s+CronTab`, 'm'));
      t.match(await k.ok(['get', 'crds']), /^NAME\s+CREATED AT/m);
    });

    t.test('custom objects: kube validation messages, defaulting and pruning', async (t) => {
      // kubectl 1.20 checks types itself first (from the published OpenAPI), as against kube
      const client = await k.run(['apply', '-f', '-'], dump(cronTab(group, 'bad', { cronSpec: '* * * * */5', replicas: 'three' })));
      t.not(client.code, 0);
      if (version === '1.20') t.match(client.stderr, `ValidationError(CronTab.spec.replicas): invalid type for com.example.stable-1-20.v1.CronTab.spec.replicas: got "string", expected "integer"`);
      const bad = await k.run(['apply', '--validate=false', '-f', '-'], dump(cronTab(group, 'bad', { cronSpec: '* * * * */5', replicas: 'three' })));
      t.not(bad.code, 0);
      t.match(bad.stderr, 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"');
      // --validate=false: the server prunes the unknown field (kubectl would refuse it first otherwise)
      t.match(await k.ok(['apply', '--validate=false', '-f', '-'], dump(cronTab(group, 'my-cron', { cronSpec: '* * * * */5', image: 'my-cron-image', extra: 'dropped' }))), `crontab.${group}/my-cron created`);
      const obj = yaml.load(await k.ok(['get', 'crontab', 'my-cron', '-n', ns, '-o', 'yaml'])) as Obj;
      t.same(obj.spec, { cronSpec: '* * * * */5', image: 'my-cron-image', replicas: 1 }, 'replicas defaulted, extra pruned');
      t.equal(obj.metadata.generation, 1);
    });

    t.test('printer columns, short names, explain, get all', async (t) => {
      const table = await k.ok(['get', 'ct', '-n', ns]);
      t.match(table, /^NAME\s+SPEC\s+REPLICAS\s+AGE/m);
      t.match(table, /^my-cron\s+\* \* \* \* \*\/5\s+1\s+\d+s/m);
      const explain = await k.ok(['explain', `crontabs.spec`, `--api-version=${group}/v1`]);
      t.match(explain, 'The desired cron tab.');
      t.match(explain, /cronSpec\s+<string>/);
      t.match(await k.ok(['get', 'all', '-n', ns]), new RegExp(`crontab\\.${group.replace(/\./g, '\\.')}/my-cron`));
    });

    t.test('server-side apply and scale', async (t) => {
      t.match(await k.ok(['apply', '--server-side', '-f', '-'], dump(cronTab(group, 'applied', { cronSpec: '0 * * * *', image: 'a' }))), `crontab.${group}/applied serverside-applied`);
      t.match(await k.ok(['apply', '--server-side', '-f', '-'], dump(cronTab(group, 'applied', { cronSpec: '0 * * * *', image: 'b' }))), 'serverside-applied');
      const applied = await k.json<Obj>(['get', 'crontab', 'applied', '-n', ns]);
      t.equal(applied.spec?.image, 'b');
      t.match(await k.ok(['scale', 'crontab', 'my-cron', '-n', ns, '--replicas=3']), `crontab.${group}/my-cron scaled`);
      t.equal((await k.json<Obj>(['get', 'crontab', 'my-cron', '-n', ns])).spec?.replicas, 3);
      t.match(await k.ok(['patch', 'crontab', 'my-cron', '-n', ns, '--type=merge', '-p', '{"spec":{"image":"patched"}}']), 'patched');
      const smp = await k.run(['patch', 'crontab', 'my-cron', '-n', ns, '-p', '{"spec":{"image":"strategic"}}']);
      t.not(smp.code, 0, 'strategic merge patch is refused for custom resources');
      // kubectl refuses it itself for kinds it has no Go type for; the server answers 415 otherwise
      t.match(smp.stderr, /strategic merge patch is not supported|the body of the request was in an unknown format/);
    });

    t.test('a v1beta1 CRD', async (t) => {
      const beta = {
        apiVersion: 'apiextensions.k8s.io/v1beta1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `widgets.${group}` },
        spec: { group, version: 'v1', scope: 'Cluster', names: { plural: 'widgets', kind: 'Widget' }, validation: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } },
      };
      t.match(await k.ok(['create', '-f', '-'], dump(beta)), `customresourcedefinition.apiextensions.k8s.io/widgets.${group} created`);
      await k.ok(['wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=20s']);
      const stored = await k.json<Obj>(['get', `customresourcedefinitions.v1.apiextensions.k8s.io`, `widgets.${group}`]);
      t.equal(stored.apiVersion, 'apiextensions.k8s.io/v1');
      t.equal(stored.spec?.preserveUnknownFields, true, 'v1beta1 defaults preserveUnknownFields to true');
      await waitFor('widgets to be served', async () => (await k.run(['get', 'widgets'])).code === 0);
      t.match(await k.ok(['create', '-f', '-'], dump({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3, kept: true } })), `widget.${group}/w created`);
      t.same((await k.json<Obj>(['get', 'widget', 'w'])).spec, { size: 3, kept: true }, 'preserveUnknownFields keeps unknown fields');
    });

    t.test('two versions converted by a webhook', async (t) => {
      const hook = await startWebhookServer();
      t.teardown(() => hook.close());
      const crd = twoVersionCrd({ url: hook.url, caBundle: hook.caBundle }) as Obj;
      crd.metadata.name = `crontabs.conv-${group}`;
      (crd.spec as { group: string }).group = `conv-${group}`;
      await k.ok(['create', '-f', '-'], dump(crd));
      await k.ok(['wait', '--for=condition=Established', `crd/crontabs.conv-${group}`, '--timeout=20s']);
      await waitFor('v2 to be served', async () => (await k.run(['get', `crontabs.v2.conv-${group}`])).code === 0);
      t.match(await k.ok(['create', '-f', '-'], dump(cronTab(`conv-${group}`, 'c2', { schedule: '5 * * * *' }, `conv-${group}/v2`))), 'created');
      t.match(await k.ok(['create', '-f', '-'], dump(cronTab(`conv-${group}`, 'c1', { cronSpec: '6 * * * *' }, `conv-${group}/v1`))), 'created');
      const asV1 = await k.json<{ items: Obj[] }>(['get', `crontabs.v1.conv-${group}`, '-n', ns]);
      t.same(asV1.items.map((i) => [i.apiVersion, i.metadata.name, i.spec]), [
        [`conv-${group}/v1`, 'c1', { cronSpec: '6 * * * *' }],
        [`conv-${group}/v1`, 'c2', { cronSpec: '5 * * * *' }],
      ]);
      const asV2 = await k.json<Obj>(['get', `crontabs.v2.conv-${group}`, 'c1', '-n', ns]);
      t.same(asV2.spec, { schedule: '6 * * * *' });
      t.match(await k.ok(['get', `crontabs.v2.conv-${group}`, '-n', ns]), /^NAME\s+SCHEDULE\s*$/m);
      t.ok(hook.requests.length > 0, 'the webhook was called');
    });

    t.test('deleting the CRD deletes its objects and stops serving it', async (t) => {
      t.match(await k.ok(['delete', 'crd', `crontabs.${group}`, '--timeout=30s']), `customresourcedefinition.apiextensions.k8s.io "crontabs.${group}" deleted`);
      await waitFor('crontabs to be unserved', async () => {
        const r = await k.run(['get', `crontabs.v1.${group}`, '-n', ns]);
        return r.code !== 0 && r.stderr;
      });
      const resources = await k.ok(['api-resources', `--api-group=${group}`]);
      t.notMatch(resources, /crontabs/);
      const res = await server.request('GET', `/apis/${group}/v1/namespaces/${ns}/crontabs`);
      t.equal(res.status, 404);
    });
  });
}
