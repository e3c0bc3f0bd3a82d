/**
 * The official Python client (Debian's python3-kubernetes, installed by scripts/install-test-deps.sh)
 * against the real server: test/e2e/python/smoke.py lists namespaces, creates and reads a ConfigMap
 * and watches an ADDED and a DELETED event. It runs under /usr/bin/python3 on purpose: a pyenv
 * python3 earlier on PATH does not see Debian's dist-packages.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { MAIN_JS, startApiServer } from './harness';

const PYTHON = '/usr/bin/python3';
const SMOKE = path.join(__dirname, 'python', 'smoke.py');

function missingPython(): string | undefined {
  if (!fs.existsSync(MAIN_JS)) return `${MAIN_JS} is missing: run make build`;
  if (!fs.existsSync(PYTHON)) return `${PYTHON} not found`;
  const probe = spawnSync(PYTHON, ['-c', 'import kubernetes'], { encoding: 'utf8' });
  if (probe.status !== 0) return `${PYTHON} cannot import kubernetes (run scripts/install-test-deps.sh): ${probe.stderr.trim()}`;
  return undefined;
}

function run(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(PYTHON, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

t.test('python3-kubernetes smoke', { skip: missingPython() ?? false }, async (t) => {
  const server = await startApiServer(t);
  const r = await run([SMOKE, server.kubeconfig, 'py-smoke'], 60_000);
  t.equal(r.code, 0, `smoke.py exits 0\n${r.stderr}`);
  const steps = Object.fromEntries(
    r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { step: string } & Record<string, unknown>)
      .map((s) => [s.step, s]),
  );
  t.ok((steps.list_namespace?.names as string[] | undefined)?.includes('default'), 'namespaces listed');
  t.match(steps.create_namespaced_config_map?.resourceVersion, /^\d+$/);
  t.same(steps.read_namespaced_config_map?.data, { mode: 'fast' });
  t.same(steps.watch?.events, [
    ['ADDED', 'watched'],
    ['DELETED', 'watched'],
  ]);
  t.same(steps.done, { step: 'done', ok: true });

  // and what it wrote is really there
  const cm = await server.request('GET', '/api/v1/namespaces/py-smoke/configmaps/settings');
  t.equal(cm.status, 200);
  t.same(JSON.parse(cm.body).data, { mode: 'fast' });
});
