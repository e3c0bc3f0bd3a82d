/**
 * The env and volume sources against the real API server: a configMap read for env and a
 * projected volume, a missing one giving kube's message, and a pod-bound token from the
 * TokenRequest API (POST serviceaccounts/<name>/token).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RestClient } from '../../src/client/rest-client';
import { RESOURCES } from '../../src/client/resources';
import { makeEnvironmentVariables } from '../../src/nodeagent/env/make-env';
import { apiObjectSources } from '../../src/nodeagent/env/sources';
import type { Pod } from '../../src/nodeagent/types';
import { VolumeManager } from '../../src/nodeagent/volumes/volume-manager';
import { startApiServer } from '../e2e/harness';
import { FakeRecorder } from '../helpers/fake-object-sources';

t.test('configMaps, missing objects and TokenRequest through the API server', async (t) => {
  const server = await startApiServer(t);
  const client = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'ballast-test-nodeagent' }), { qps: -1, contentType: 'application/vnd.kubernetes.protobuf' });
  t.teardown(() => client.close());
  const sources = apiObjectSources(client);
  const recorder = new FakeRecorder();

  await client.create(RESOURCES.serviceAccounts, 'default', { metadata: { name: 'robot' } });
  await client.create(RESOURCES.configMaps, 'default', { metadata: { name: 'settings' }, data: { mode: 'fast' } });
  const pod = await client.create<Pod>(RESOURCES.pods, 'default', {
    metadata: { name: 'web' },
    spec: { serviceAccountName: 'robot', automountServiceAccountToken: false, enableServiceLinks: false, containers: [{ name: 'app', image: 'busybox' }] },
  });

  const envs = await makeEnvironmentVariables({ sources, recorder, hostIP: '127.0.0.1', allocatable: {} }, pod, { name: 'app', env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }] }, []);
  t.same(envs.find((e) => e.name === 'MODE'), { name: 'MODE', value: 'fast' });
  await t.rejects(makeEnvironmentVariables({ sources, recorder, hostIP: '', allocatable: {} }, pod, { name: 'app', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'gone', key: 'k' } } }] }, []), { message: 'configmap "gone" not found' });

  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'volumes-api-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const vm = new VolumeManager({ rootDir: root, sources, recorder });
  const withVolume = { ...pod, spec: { ...pod.spec, volumes: [{ name: 'access', projected: { sources: [
    { serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 3600 } },
    { configMap: { name: 'settings' } },
  ] } }] } };
  const vols = await vm.mountPod(withVolume);
  const dir = vols.get('access')?.hostPath as string;
  t.equal(fs.readFileSync(path.join(dir, 'mode'), 'utf8'), 'fast');
  const token = fs.readFileSync(path.join(dir, 'token'), 'utf8');
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
  t.same(claims.aud, ['vault']);
  t.equal(claims.sub, 'system:serviceaccount:default:robot');
  t.match(claims['kubernetes.io'], { pod: { name: 'web', uid: pod.metadata?.uid } }, 'bound to the pod');
  t.ok((claims.exp as number) - (claims.iat as number) >= 3600 - 1);

  await client.update(RESOURCES.configMaps, { ...(await client.get(RESOURCES.configMaps, 'default', 'settings')), data: { mode: 'slow' } });
  await vm.resync();
  t.equal(fs.readFileSync(path.join(dir, 'mode'), 'utf8'), 'slow', 'resync picks up the change');
});
