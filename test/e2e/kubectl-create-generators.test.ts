/**
 * `kubectl create <kind>` generators. kubectl 1.20 posts JSON; kubectl 1.32 posts protobuf bodies
 * for these generators (and for batch/v1 CronJob), so both codecs are exercised end to end.
 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import type { KubectlVersion } from './harness';
import type { Obj } from './manifests';

const VERSIONS: KubectlVersion[] = ['1.20', '1.32'];

for (const version of VERSIONS) {
  t.test(`kubectl ${version} create <kind>`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    const k = kubectlFor(t, version, server);
    const ns = `gen-${version.replace('.', '-')}`;

    t.test('create namespace', async (t) => {
      t.match(await k.ok(['create', 'namespace', ns]), `namespace/${ns} created`);
      t.equal((await k.json<Obj>(['get', 'namespace', ns])).metadata.name, ns);
    });

    t.test('create configmap --from-literal', async (t) => {
      t.match(await k.ok(['create', 'configmap', 'lit', '-n', ns, '--from-literal=a=1', '--from-literal=b=2']), 'configmap/lit created');
      t.same((await k.json<Obj>(['get', 'configmap', 'lit', '-n', ns])).data, { a: '1', b: '2' });
    });

    t.test('create deployment', async (t) => {
      t.match(await k.ok(['create', 'deployment', 'web', '-n', ns, '--image=nginx:1.25']), 'deployment.apps/web created');
      const d = await k.json<Obj>(['get', 'deployment', 'web', '-n', ns]);
      t.equal(d.spec?.replicas, 1, 'defaulted');
      t.same(d.spec?.template?.spec.containers.map((c) => c.image), ['nginx:1.25']);
    });

    t.test('create job', async (t) => {
      t.match(await k.ok(['create', 'job', 'once', '-n', ns, '--image=busybox', '--', 'true']), 'job.batch/once created');
      const j = await k.json<Obj>(['get', 'job', 'once', '-n', ns]);
      t.same(j.spec?.template?.spec.containers.map((c) => c.image), ['busybox']);
    });

    t.test('create cronjob', async (t) => {
      // 1.20 posts to batch/v1beta1, 1.32 to batch/v1
      t.match(await k.ok(['create', 'cronjob', 'tick', '-n', ns, '--image=busybox', '--schedule=*/5 * * * *']), 'cronjob.batch/tick created');
      t.equal((await k.json<Obj>(['get', 'cronjob', 'tick', '-n', ns])).spec?.schedule, '*/5 * * * *');
    });

    t.test('delete namespace', async (t) => {
      t.match(await k.ok(['delete', 'namespace', ns, '--timeout=60s']), `namespace "${ns}" deleted`);
      t.equal((await k.run(['get', 'namespace', ns])).code, 1);
    });
  });
}
