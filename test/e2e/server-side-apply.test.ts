/**
 * Server-side apply and managed fields with real kubectl 1.32 against the real server: apply
 * --server-side create and update, a second manager's conflict and --force-conflicts, client-side
 * apply followed by server-side apply (kubectl's managedFields migration), scale and label managers.
 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer } from './harness';

interface Entry {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1: Record<string, any>;
}

function manifest(name: string, replicas: number): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: default
  labels: {app: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
`;
}

t.test('kubectl 1.32 server-side apply', { skip: missingKubectl('1.32') ?? false }, async (t) => {
  const server = await startApiServer(t);
  const k = kubectlFor(t, '1.32', server);
  const managed = async (name: string): Promise<Entry[]> => {
    const obj = await k.json<{ metadata: { managedFields?: Entry[] } }>(['get', 'deployment', name, '--show-managed-fields']);
    return obj.metadata.managedFields ?? [];
  };
  const replicas = async (name: string) => (await k.json<{ spec: { replicas: number } }>(['get', 'deployment', name])).spec.replicas;

  t.test('create then update; a second manager conflicts; --force-conflicts wins', async (t) => {
    t.match(await k.ok(['apply', '--server-side', '-f', '-'], manifest('ssa', 1)), 'deployment.apps/ssa serverside-applied');
    t.same((await managed('ssa')).map((e) => `${e.manager}/${e.operation}`), ['kubectl/Apply']);
    t.match(await k.ok(['apply', '--server-side', '-f', '-'], manifest('ssa', 2)), 'serverside-applied');
    t.equal(await replicas('ssa'), 2);
    const conflict = await k.run(['apply', '--server-side', '--field-manager=other', '-f', '-'], manifest('ssa', 4));
    t.not(conflict.code, 0);
    t.match(conflict.stderr, 'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    t.match(conflict.stderr, '--force-conflicts');
    t.equal(await replicas('ssa'), 2, 'the conflicting apply changed nothing');
    await k.ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], manifest('ssa', 4));
    t.equal(await replicas('ssa'), 4);
    const entries = await managed('ssa');
    t.same(entries.find((e) => e.manager === 'other')!.fieldsV1['f:spec']['f:replicas'], {});
    t.notOk(entries.find((e) => e.manager === 'kubectl')!.fieldsV1['f:spec']['f:replicas'], 'kubectl lost replicas');
  });

  t.test('client-side apply, then server-side apply: kubectl migrates ownership without conflicts', async (t) => {
    t.match(await k.ok(['apply', '-f', '-'], manifest('csa', 1)), 'deployment.apps/csa created');
    t.same((await managed('csa')).map((e) => `${e.manager}/${e.operation}`), ['kubectl-client-side-apply/Update']);
    t.match(await k.ok(['apply', '--server-side', '-f', '-'], manifest('csa', 3)), 'deployment.apps/csa serverside-applied');
    t.equal(await replicas('csa'), 3);
    const entries = await managed('csa');
    t.notOk(entries.some((e) => e.manager === 'kubectl-client-side-apply'), 'the client-side manager is gone');
    const kubectl = entries.find((e) => e.manager === 'kubectl' && e.operation === 'Apply')!;
    t.same(kubectl.fieldsV1['f:spec']['f:replicas'], {}, 'kubectl owns the applied fields');
    t.ok(entries.some((e) => e.manager === 'kubectl-last-applied'), 'kubectl 1.32 applied the annotation as kubectl-last-applied');
    const obj = await k.json<{ metadata: { annotations: Record<string, string> } }>(['get', 'deployment', 'csa']);
    t.match(JSON.parse(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).spec, { replicas: 3 }, 'the server kept the annotation current');
  });

  t.test('scale and label record their managers', async (t) => {
    await k.ok(['scale', 'deployment', 'csa', '--replicas=5']);
    await k.ok(['label', 'deployment', 'csa', 'team=a']);
    const entries = await managed('csa');
    const scale = entries.find((e) => e.subresource === 'scale')!;
    t.ok(scale, 'an entry for the scale subresource');
    t.same(scale.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    t.match(scale.manager, /^kubectl/, 'named after the user agent');
    t.same(entries.find((e) => e.manager === 'kubectl-label')!.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:team': {} } } });
    t.notOk(entries.find((e) => e.manager === 'kubectl' && e.operation === 'Apply')!.fieldsV1['f:spec']['f:replicas'], 'scale took replicas');
  });
});
