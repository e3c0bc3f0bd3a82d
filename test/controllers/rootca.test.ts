import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { isNotFound } from '../../src/client/errors';
import { RESOURCES } from '../../src/client/resources';
import { ROOT_CA_CONFIGMAP } from '../../src/controllers/rootcacertpublisher/publisher';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

t.test('kube-root-ca.crt in every namespace, restored when changed or deleted', async (t) => {
  const server = await startApiServer(t);
  const first = startControllers(t, server, ['root-ca-cert-publisher']);
  const { client } = first;
  const ca = fs.readFileSync(path.join(server.dataDir, 'pki', 'ca.crt'), 'utf8');
  const caIn = async (ns: string) => {
    try {
      return ((await client.get(RESOURCES.configMaps, ns, ROOT_CA_CONFIGMAP)).data as Record<string, string> | undefined)?.['ca.crt'];
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };

  for (const ns of ['default', 'kube-system']) t.equal(await waitFor(`the CA in ${ns}`, () => caIn(ns)), ca, `${ns} has the kubeconfig's CA`);
  await client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } });
  t.equal(await waitFor('the CA in a new namespace', () => caIn('fresh')), ca);

  await client.patch(RESOURCES.configMaps, 'fresh', ROOT_CA_CONFIGMAP, 'merge', { data: { 'ca.crt': 'tampered', extra: 'x' } });
  await waitFor('the changed copy restored', async () => {
    const cm = await client.get(RESOURCES.configMaps, 'fresh', ROOT_CA_CONFIGMAP);
    const data = cm.data as Record<string, string>;
    return data['ca.crt'] === ca && !('extra' in data);
  });
  await client.delete(RESOURCES.configMaps, 'fresh', ROOT_CA_CONFIGMAP);
  t.equal(await waitFor('the deleted copy restored', () => caIn('fresh')), ca);

  // a manager started with --root-ca-file publishes that bundle instead
  await first.stop();
  const file = path.join(server.dataDir, 'bundle.pem');
  const bundle = `${fs.readFileSync(path.join(server.dataDir, 'pki', 'ca.crt'), 'utf8')}`.replace(/\n*$/, '\n# bundle\n');
  fs.writeFileSync(file, bundle);
  startControllers(t, server, ['root-ca-cert-publisher'], { rootCaFile: file });
  t.equal(await waitFor('the --root-ca-file bundle', async () => ((await caIn('fresh')) === bundle ? bundle : undefined)), bundle);
});
