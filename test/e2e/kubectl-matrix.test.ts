/**
 * A smoke matrix over every bundled kubectl (1.27-1.33, beside the machine's kubectl dispatcher)
 * against one server, each version with its own HOME and cache dir: api-resources, get -o wide
 * (server-side Table with the wide columns), create -f and client-side apply -f, label, scale,
 * auth can-i, delete. A version that is not installed is skipped with a message.
 *
 * Client-side validation stays on (the server serves OpenAPI), and `auth can-i` on 1.32+ sends a
 * protobuf body: both must work on every version.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { MAIN_JS, startApiServer, tempDir } from './harness';

const VERSIONS = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'];

/** the directory of the kubectl dispatcher, where kubectl.1.NN live */
function bundleDir(): string | undefined {
  try {
    const dispatcher = execFileSync('bash', ['-c', 'readlink -f "$(command -v kubectl)"'], { encoding: 'utf8' }).trim();
    return dispatcher ? path.dirname(dispatcher) : undefined;
  } catch {
    return undefined;
  }
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** one kubectl binary bound to the server, with a private HOME and --cache-dir */
class MatrixKubectl {
  readonly #bin: string;
  readonly #home: string;
  readonly #kubeconfig: string;
  readonly version: string;

  constructor(init: { version: string; bin: string; home: string; kubeconfig: string }) {
    this.version = init.version;
    this.#bin = init.bin;
    this.#home = init.home;
    this.#kubeconfig = init.kubeconfig;
  }

  run(args: string[], input?: string): Promise<Run> {
    const child = spawn(
      this.#bin,
      ['--kubeconfig', this.#kubeconfig, '--cache-dir', path.join(this.#home, 'cache'), '--request-timeout=30s', ...args],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.#home } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(input);
    return new Promise((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  async ok(args: string[], input?: string): Promise<string> {
    const r = await this.run(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${this.version} ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
    return r.stdout;
  }
}

function manifests(ns: string): { namespace: string; configMap: string; deployment: (replicas: number, image: string) => string } {
  return {
    namespace: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }),
    configMap: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns }, data: { mode: 'fast' } }),
    deployment: (replicas, image) =>
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: ns, labels: { app: 'web' } },
        spec: {
          replicas,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image }] } },
        },
      }),
  };
}

const dir = bundleDir();
const noServer = fs.existsSync(MAIN_JS) ? undefined : `${MAIN_JS} is missing: run make build`;

t.test('kubectl matrix', { skip: noServer ?? (dir ? false : 'no kubectl dispatcher on PATH') }, async (t) => {
  const server = await startApiServer(t);

  for (const version of VERSIONS) {
    const bin = path.join(dir!, `kubectl.${version}`);
    const missing = fs.existsSync(bin) ? false : `kubectl ${version} is not installed (${bin})`;
    t.test(`kubectl ${version}`, { skip: missing }, async (t) => {
      const k = new MatrixKubectl({ version, bin, home: tempDir(t, `matrix-${version}`), kubeconfig: server.kubeconfig });
      const ns = `matrix-${version.replace('.', '-')}`;
      const m = manifests(ns);

      const resources = await k.ok(['api-resources']);
      t.match(resources, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment\s*$/m, 'api-resources: deployments');
      t.match(resources, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap\s*$/m, 'api-resources: configmaps');
      t.match(resources, /^selfsubjectaccessreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectAccessReview\s*$/m, 'api-resources: reviews');

      t.match(await k.ok(['create', '-f', '-'], m.namespace), `namespace/${ns} created`);
      t.match(await k.ok(['create', '-f', '-'], m.configMap), 'configmap/settings created');
      t.match(await k.ok(['apply', '-f', '-'], m.deployment(1, 'nginx:1.25')), 'deployment.apps/web created');
      t.match(await k.ok(['apply', '-f', '-'], m.deployment(1, 'nginx:1.27')), 'deployment.apps/web configured');

      const wide = await k.ok(['get', 'deployments', '-n', ns, '-o', 'wide']);
      t.match(wide, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\s*$/m, 'Table columns, wide ones included');
      t.match(wide, /^web\s+0\/1\s+\d+\s+\d+\s+\S+\s+main\s+nginx:1\.27\s+app=web\s*$/m, 'the applied image');
      t.match(await k.ok(['get', 'configmaps', '-n', ns]), /^settings\s+1\s+\S+\s*$/m, 'configmap DATA column');

      t.match(await k.ok(['label', 'deployment', 'web', '-n', ns, 'tier=front']), 'deployment.apps/web labeled');
      t.match(await k.ok(['scale', 'deployment', 'web', '-n', ns, '--replicas=3']), 'deployment.apps/web scaled');
      const d = JSON.parse(await k.ok(['get', 'deployment', 'web', '-n', ns, '-o', 'json'])) as {
        metadata: { labels: Record<string, string> };
        spec: { replicas: number };
      };
      t.same(d.metadata.labels, { app: 'web', tier: 'front' });
      t.equal(d.spec.replicas, 3);

      t.equal((await k.ok(['auth', 'can-i', 'scale', 'deployments', '-n', ns])).trim(), 'yes', 'auth can-i');

      t.match(await k.ok(['delete', 'deployment', 'web', '-n', ns]), 'deployment.apps "web" deleted');
      t.match(await k.ok(['delete', 'configmap', 'settings', '-n', ns]), 'configmap "settings" deleted');
      const left = await k.run(['get', 'deployment', 'web', '-n', ns]);
      t.not(left.code, 0);
      t.match(left.stderr, /NotFound|not found/);
    });
  }
});
