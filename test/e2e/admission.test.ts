/**
 * Admission end to end with kubectl 1.32: the default plugins (NamespaceLifecycle, ServiceAccount,
 * LimitRanger, ResourceQuota) on real requests, AlwaysDeny switched on by flag (dry-run refused the
 * same way), and the start-up errors of an unknown plugin and of a bad configuration file.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startControllers } from '../helpers/controllers';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir, waitFor } from './harness';

const podYaml = (name: string, ns = 'default') => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}}
spec:
  containers: [{name: c, image: busybox}]
`;

t.test('default plugins on kubectl requests', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const server = await startApiServer(t);
  const k = kubectlFor(t, '1.32', server);
  // the quota is enforced once the resourcequota controller has written its status (kube's order)
  startControllers(t, server, ['resourcequota']);

  const nowhere = await k.run(['create', '-f', '-'], podYaml('p', 'nowhere'));
  t.not(nowhere.code, 0);
  t.match(nowhere.stderr, /namespaces "nowhere" not found/, 'a pod in a missing namespace is refused');

  await k.ok(['create', '-f', '-'], `apiVersion: v1
kind: LimitRange
metadata: {name: lr, namespace: default}
spec:
  limits: [{type: Container, default: {cpu: 200m, memory: 64Mi}, defaultRequest: {cpu: 100m, memory: 32Mi}}]
`);
  await k.ok(['create', 'quota', 'q', '--hard=pods=2']);
  await waitFor('quota status', async () => (await k.json<{ status?: { used?: Record<string, string> } }>(['get', 'quota', 'q'])).status?.used?.pods === '0');
  await k.ok(['create', '-f', '-'], podYaml('a'));
  const a = await k.json<{ spec: { serviceAccountName: string; volumes: Array<{ name: string }>; containers: Array<{ resources: unknown; volumeMounts: Array<{ mountPath: string }> }> } }>(['get', 'pod', 'a']);
  t.equal(a.spec.serviceAccountName, 'default', 'the default service account is filled in');
  t.match(a.spec.volumes[0].name, /^kube-api-access-/);
  t.equal(a.spec.containers[0].volumeMounts[0].mountPath, '/var/run/secrets/kubernetes.io/serviceaccount');
  t.same(a.spec.containers[0].resources, { limits: { cpu: '200m', memory: '64Mi' }, requests: { cpu: '100m', memory: '32Mi' } }, 'LimitRange defaults applied');

  await k.ok(['create', '-f', '-'], podYaml('b'));
  const over = await k.run(['create', '-f', '-'], podYaml('c'));
  t.not(over.code, 0);
  t.match(over.stderr, 'Error from server (Forbidden): error when creating "STDIN": pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
  const used = await k.json<{ status: { used: Record<string, string> } }>(['get', 'quota', 'q']);
  t.same(used.status.used, { pods: '2' }, 'status.used charged by admission');
});

t.test('AlwaysDeny by flag refuses creates, dry-run too', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const server = await startApiServer(t, { args: ['--enable-admission-plugins=AlwaysDeny'] });
  const k = kubectlFor(t, '1.32', server);
  for (const extra of [[], ['--dry-run=server']]) {
    const r = await k.run(['create', 'configmap', 'cm', '--from-literal=a=b', ...extra]);
    t.not(r.code, 0);
    t.match(r.stderr, /configmaps "cm" is forbidden: admission control is denying all modifications/, `refused ${extra.join(' ') || 'for real'}`);
  }
  t.match(await k.ok(['get', 'namespaces', '-o', 'name']), /namespace\/kube-system/, 'reads still work');
});

t.test('start-up errors: an unknown plugin, a bad configuration file', async (t) => {
  const dir = tempDir(t, 'admission-flags');
  const port = String(await freePort());
  const run = (args: string[]) => spawnSync(process.execPath, [MAIN_JS, 'apiserver', '--data-dir', path.join(dir, 'data'), '--secure-port', port, '--bind-address', '127.0.0.1', ...args], { encoding: 'utf8', timeout: 30_000 });
  const unknown = run(['--enable-admission-plugins=NamespaceLifecycle,Bogus']);
  t.not(unknown.status, 0);
  t.match(unknown.stderr, /^Error: enable-admission-plugins plugin "Bogus" is unknown$/m);
  const file = path.join(dir, 'admission.yaml');
  fs.writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ResourceQuota\n  path: missing.yaml\n');
  const bad = run(['--admission-control-config-file', file]);
  t.not(bad.status, 0);
  t.match(bad.stderr, new RegExp(`Error: admission-control-config-file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: unable to read`));
});
