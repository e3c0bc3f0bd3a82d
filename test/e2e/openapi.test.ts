/**
 * kubectl 1.32 and 1.20 against the real server with client validation ON (no --validate=false):
 * both need /openapi/v2 in protobuf, 1.32 also /openapi/v3. apply (create, then update), server
 * dry-run, diff's exit codes, explain printing our descriptions, and an unknown field refused with
 * kubectl's own message (1.32: the server's strict decoding error; 1.20: its client-side check).
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { definitions } from '../../src/schema';
import { kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';
import type { KubectlVersion } from './harness';
import { deployment } from './manifests';
import type { Obj } from './manifests';

const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];
const containersDescription = (definitions['io.k8s.api.core.v1.PodSpec'].properties?.containers.description ?? '').split(/\s+/).slice(0, 5).join(' ');

for (const version of VERSIONS) {
  t.test(`kubectl ${version} with OpenAPI`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    const k = kubectlFor(t, version, server);
    const dir = tempDir(t, 'openapi');
    const file = (name: string, text: string) => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, text);
      return p;
    };
    const web = file('web.json', deployment('web', 'default', { replicas: 1 }));

    t.test('apply -f creates, then updates (strategic merge patch from OpenAPI v2)', async (t) => {
      t.match(await k.ok(['apply', '-f', web]), 'deployment.apps/web created');
      file('web.json', deployment('web', 'default', { replicas: 2, image: 'nginx:1.26' }));
      t.match(await k.ok(['apply', '-f', web]), 'deployment.apps/web configured');
      const live = await k.json<Obj>(['get', 'deployment', 'web']);
      t.equal(live.spec?.replicas, 2);
      t.same(live.spec?.template?.spec.containers.map((c) => c.image), ['nginx:1.26']);
    });

    t.test('diff -f: 0 without changes, 1 with', async (t) => {
      const same = await k.run(['diff', '-f', web]);
      t.equal(same.code, 0, same.stderr);
      t.equal(same.stdout, '');
      file('web.json', deployment('web', 'default', { replicas: 5, image: 'nginx:1.26' }));
      const changed = await k.run(['diff', '-f', web]);
      t.equal(changed.code, 1, changed.stderr);
      t.match(changed.stdout, /^-\s+replicas: 2$/m);
      t.match(changed.stdout, /^\+\s+replicas: 5$/m);
      t.equal((await k.json<Obj>(['get', 'deployment', 'web'])).spec?.replicas, 2, 'diff changes nothing');
    });

    t.test('create -f --dry-run=server', async (t) => {
      const z = file('z.json', deployment('z', 'default'));
      t.match(await k.ok(['create', '-f', z, '--dry-run=server']), 'deployment.apps/z created (server dry run)');
      const get = await k.run(['get', 'deployment', 'z']);
      t.not(get.code, 0);
      t.match(get.stderr, /NotFound|not found/);
    });

    t.test('explain prints the schema descriptions', async (t) => {
      const out = await k.ok(['explain', 'deployment.spec.template.spec.containers']);
      t.match(out, /KIND:\s+Deployment/);
      t.match(out.replace(/\s+/g, ' '), containersDescription);
      t.match(out, /^\s+image\s+<string>/m);
    });

    t.test('an unknown field is refused by validation', async (t) => {
      const bad = JSON.parse(deployment('bad', 'default')) as { spec: Record<string, unknown> };
      bad.spec.replicaz = 3;
      const r = await k.run(['apply', '-f', file('bad.json', JSON.stringify(bad))]);
      t.not(r.code, 0);
      if (version === '1.20') {
        // 1.20 validates on the client against /openapi/v2
        t.match(r.stderr, 'unknown field "replicaz" in io.k8s.api.apps.v1.DeploymentSpec');
      } else {
        // 1.32 learns from /openapi/v3 that the server validates: it sends fieldValidation=Strict
        t.match(r.stderr, 'strict decoding error: unknown field "spec.replicaz"');
      }
      t.not((await k.run(['get', 'deployment', 'bad'])).code, 0, 'nothing was created');
    });
  });
}
