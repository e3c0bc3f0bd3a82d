import { compactVerify } from 'jose';
import t from 'tap';
import { isAlreadyExists, isNotFound } from '../../src/client/errors';
import { RESOURCES } from '../../src/client/resources';
import { detachedSignature } from '../../src/controllers/bootstrap/bootstrap-signer';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

const b64 = (s: string) => Buffer.from(s).toString('base64');

const tokenSecret = (id: string, secret: string, extra: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
  type: 'bootstrap.kubernetes.io/token',
  data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': secret, ...extra }).map(([k, v]) => [k, b64(v)])),
});

/** a detached JWS verifies once its payload is put back */
async function verifies(detached: string, content: string, id: string, secret: string): Promise<boolean> {
  const [header, , signature] = detached.split('.');
  const jws = `${header}.${Buffer.from(content).toString('base64url')}.${signature}`;
  try {
    const { protectedHeader } = await compactVerify(jws, Buffer.from(`${id}.${secret}`));
    return protectedHeader.kid === id;
  } catch {
    return false;
  }
}

t.test('detached signatures', async (t) => {
  const sig = await detachedSignature('hello', 'abcdef', '0123456789abcdef');
  t.match(sig, /^[\w-]+\.\.[\w-]+$/);
  t.ok(await verifies(sig, 'hello', 'abcdef', '0123456789abcdef'));
  t.notOk(await verifies(sig, 'hello!', 'abcdef', '0123456789abcdef'), 'another content');
  t.notOk(await verifies(sig, 'hello', 'abcdef', 'fedcba9876543210'), 'another secret');
});

t.test('bootstrapsigner signs cluster-info; tokencleaner deletes expired tokens', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['bootstrapsigner', 'tokencleaner']);
  await client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-public' } }).catch((err: unknown) => {
    if (!isAlreadyExists(err)) throw err;
  });
  const kubeconfig = 'apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    server: https://10.0.0.1:6443\n';
  await client.create(RESOURCES.configMaps, 'kube-public', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info' }, data: { kubeconfig } });
  await client.create(RESOURCES.secrets, 'kube-system', tokenSecret('abcdef', '0123456789abcdef', { 'usage-bootstrap-signing': 'true' }));
  await client.create(RESOURCES.secrets, 'kube-system', tokenSecret('nosign', '0123456789abcdef', { 'usage-bootstrap-authentication': 'true' }));
  const data = async () => (await client.get(RESOURCES.configMaps, 'kube-public', 'cluster-info')).data as Record<string, string>;

  const sig = await waitFor('the signature', async () => (await data())['jws-kubeconfig-abcdef']);
  t.ok(await verifies(sig, kubeconfig, 'abcdef', '0123456789abcdef'), 'verifies with the token');
  t.notOk('jws-kubeconfig-nosign' in (await data()), 'tokens without usage-bootstrap-signing do not sign');

  // a changed kubeconfig is signed again; a deleted token's signature goes
  const changed = kubeconfig.replace('10.0.0.1', '10.0.0.2');
  await client.patch(RESOURCES.configMaps, 'kube-public', 'cluster-info', 'merge', { data: { kubeconfig: changed } });
  await waitFor('a new signature', async () => verifies((await data())['jws-kubeconfig-abcdef'] ?? '', changed, 'abcdef', '0123456789abcdef'));
  await client.delete(RESOURCES.secrets, 'kube-system', 'bootstrap-token-abcdef');
  await waitFor('the signature removed', async () => !('jws-kubeconfig-abcdef' in (await data())));

  // expired tokens are deleted, now or when they expire
  const gone = (name: string) => client.get(RESOURCES.secrets, 'kube-system', name).then(() => false, (err: unknown) => isNotFound(err));
  await client.create(RESOURCES.secrets, 'kube-system', tokenSecret('old123', '0123456789abcdef', { expiration: new Date(Date.now() - 60_000).toISOString() }));
  await client.create(RESOURCES.secrets, 'kube-system', tokenSecret('soon12', '0123456789abcdef', { expiration: new Date(Date.now() + 3000).toISOString() }));
  await client.create(RESOURCES.secrets, 'kube-system', tokenSecret('later1', '0123456789abcdef', { expiration: new Date(Date.now() + 3600_000).toISOString() }));
  await waitFor('the expired token deleted', () => gone('bootstrap-token-old123'));
  await waitFor('the token deleted when it expires', () => gone('bootstrap-token-soon12'));
  t.notOk(await gone('bootstrap-token-later1'), 'an unexpired token stays');
  t.notOk(await gone('bootstrap-token-nosign'), 'a token without expiration stays');
});
