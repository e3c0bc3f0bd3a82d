/**
 * `kubectl delete --cascade=background|foreground|orphan` (kubectl 1.32) against the real API
 * server with the garbage collector running: owners and dependents are ConfigMaps made by kubectl.
 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer, waitFor } from './harness';
import type { Kubectl } from './harness';
import { startControllers } from '../helpers/controllers';

async function owned(kubectl: Kubectl, owner: string, dependents: string[], block = false): Promise<void> {
  await kubectl.ok(['create', 'configmap', owner, '--from-literal=a=b']);
  const uid = await kubectl.ok(['get', 'configmap', owner, '-o', 'jsonpath={.metadata.uid}']);
  for (const name of dependents) {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid, ...(block ? { blockOwnerDeletion: true } : {}) }] },
      data: { owner },
    };
    await kubectl.ok(['create', '-f', '-'], JSON.stringify(cm));
  }
}

async function exists(kubectl: Kubectl, name: string): Promise<boolean> {
  const r = await kubectl.run(['get', 'configmap', name, '--ignore-not-found', '-o', 'name']);
  return r.stdout.trim() !== '';
}

t.test('kubectl delete --cascade with the garbage collector', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  startControllers(t, server, ['garbagecollector']);
  const kubectl = kubectlFor(t, '1.32', server);

  t.test('background', async (t) => {
    await owned(kubectl, 'bg', ['bg-a', 'bg-b']);
    await kubectl.ok(['delete', 'configmap', 'bg', '--cascade=background']);
    await waitFor('the dependents collected', async () => !(await exists(kubectl, 'bg-a')) && !(await exists(kubectl, 'bg-b')));
    t.pass('dependents deleted after the owner');
  });

  t.test('foreground', async (t) => {
    await owned(kubectl, 'fg', ['fg-a', 'fg-b'], true);
    // kubectl waits until the owner is gone, which the collector allows only after the dependents
    await kubectl.ok(['delete', 'configmap', 'fg', '--cascade=foreground', '--timeout=60s']);
    t.notOk(await exists(kubectl, 'fg'), 'the owner is gone');
    t.notOk(await exists(kubectl, 'fg-a'), 'its blocking dependents went first');
    t.notOk(await exists(kubectl, 'fg-b'));
  });

  t.test('orphan', async (t) => {
    await owned(kubectl, 'or', ['or-a']);
    await kubectl.ok(['delete', 'configmap', 'or', '--cascade=orphan', '--timeout=60s']);
    t.notOk(await exists(kubectl, 'or'), 'the owner is gone');
    const dep = await kubectl.json<{ metadata: { ownerReferences?: unknown[] } }>(['get', 'configmap', 'or-a']);
    t.equal(dep.metadata.ownerReferences, undefined, 'the dependent stays, without its owner reference');
  });
});
