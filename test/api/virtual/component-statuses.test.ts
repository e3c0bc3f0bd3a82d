import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import { makeFixture } from '../../helpers/registry-fixture';
import { rejects } from '../../helpers/registry-assert';
import { withVirtualKinds } from '../../../src/api/virtual';
import type { ComponentProbe } from '../../../src/api/virtual';
import { httpsHealthProbe, storeProbe } from '../../../src/server/component-probes';
import { ensureServingPki } from '../../../src/server/pki';
import { freePort } from '../../e2e/harness';

const fixed = (name: string, healthy: boolean, message: string, error?: string): ComponentProbe => ({
  name,
  check: async () => ({ healthy, message, ...(error ? { error } : {}) }),
});

t.test('componentstatuses: get and list answer from the probes, never from storage', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const probes = [
    fixed('scheduler', false, 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused'),
    fixed('controller-manager', true, 'ok'),
    { name: 'etcd-0', check: async () => Promise.reject(new Error('database is closed')) },
  ];
  const registry = withVirtualKinds(f.registry, { scheme: f.scheme, componentProbes: probes });
  const kind = f.kind('componentstatuses');
  const list = await registry.list({ kind }, {});
  t.same(list, {
    apiVersion: 'v1',
    kind: 'ComponentStatusList',
    metadata: {},
    items: [
      {
        kind: 'ComponentStatus',
        apiVersion: 'v1',
        metadata: { name: 'scheduler', creationTimestamp: null },
        conditions: [{ type: 'Healthy', status: 'False', message: 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused' }],
      },
      { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: 'controller-manager', creationTimestamp: null }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] },
      { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: 'etcd-0', creationTimestamp: null }, conditions: [{ type: 'Healthy', status: 'False', error: 'database is closed' }] },
    ],
  });
  t.same(kind.table!.cells(list.items[0], new Date()).slice(0, 2), ['scheduler', 'Unhealthy']);
  const one = await registry.get({ kind, name: 'controller-manager' }, {});
  t.same(one.conditions, [{ type: 'Healthy', status: 'True', message: 'ok' }]);
  // kube answers an unknown component with a plain error: 500, no reason
  try {
    await registry.get({ kind, name: 'kubelet' }, {});
    t.fail('expected a failure');
  } catch (err) {
    const status = (err as { status: Record<string, unknown> }).status;
    t.same([status.code, status.reason, status.message], [500, undefined, 'Component not found: kubelet']);
  }
  // selectors filter the list; unknown fields are refused as for any kind
  t.same((await registry.list({ kind }, { fieldSelector: 'metadata.name=etcd-0' })).items.map((i) => i.metadata!.name), ['etcd-0']);
  t.same((await registry.list({ kind }, { fieldSelector: 'metadata.name!=etcd-0' })).items.length, 2);
  t.same((await registry.list({ kind }, { labelSelector: 'app=x' })).items, []);
  await rejects(t, registry.list({ kind }, { fieldSelector: 'status=x' }), 400, 'BadRequest', '"status" is not a known field selector: only "metadata.name", "metadata.namespace"');
  await rejects(t, registry.watch({ kind }, {}, { send: () => true, end() {} }), 405, 'MethodNotAllowed');
  // other kinds pass through
  t.equal((await registry.list(f.target('namespaces'), {})).kind, 'NamespaceList');
});

t.test('the server\'s probes: Go\'s words for a refused connection, the body of a healthy answer', async (t) => {
  const port = await freePort();
  const refused = await httpsHealthProbe({ name: 'scheduler', host: '127.0.0.1', port, path: '/healthz', timeoutMs: 2000 }).check();
  t.same(refused, { healthy: false, message: `Get "https://127.0.0.1:${port}/healthz": dial tcp 127.0.0.1:${port}: connect: connection refused` });

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-probe-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const pki = ensureServingPki({ certDir: dir, dnsNames: ['localhost'], ips: ['127.0.0.1'], logger: pino({ level: 'silent' }) });
  let code = 200;
  const server = https.createServer({ cert: pki.certChain, key: pki.key }, (req, res) => {
    res.writeHead(req.url === '/healthz' ? code : 404);
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const probe = httpsHealthProbe({ name: 'controller-manager', host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/healthz', timeoutMs: 2000 });
  t.same(await probe.check(), { healthy: true, message: 'ok' }, 'self-signed certificates are not checked, as kube does not');
  code = 500;
  t.same(await probe.check(), { healthy: false, message: 'HTTP probe failed with statuscode: 500' });

  t.same(await storeProbe('etcd-0', async () => undefined).check(), { healthy: true, message: 'ok' });
  t.same(await storeProbe('etcd-0', async () => Promise.reject(new Error('closed'))).check(), { healthy: false, message: '', error: 'closed' });
});
