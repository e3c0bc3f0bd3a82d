/**
 * The serving and network options of spec 2 (1.3 and 8) against the real server, one start:
 * the kubernetes service (NodePort), its Endpoints and EndpointSlice, the held cluster IP,
 * --external-hostname in /api, CORS, --max-connection-bytes-per-sec on a watch, the identity
 * lease, --enable-garbage-collector=false; and the start-up errors of the checked flags.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer } from './harness';

type Obj = { metadata: { name: string; labels?: Record<string, string>; finalizers?: string[]; resourceVersion?: string }; [k: string]: unknown };

t.test('serving and network options', { skip: missingKubectl('1.32') ?? false }, async (t) => {
  const server = await startApiServer(t, {
    args: [
      '--kubernetes-service-node-port=30443',
      '--external-hostname=api.example.test',
      '--cors-allowed-origins=^https://ok\\.example$',
      '--max-connection-bytes-per-sec=1000',
      '--identity-lease-duration-seconds=120',
      '--enable-garbage-collector=false',
    ],
  });
  const k = kubectlFor(t, '1.32', server);

  t.test('the kubernetes service, its Endpoints and EndpointSlice', async (t) => {
    const table = await k.ok(['get', 'svc,endpoints,endpointslices', 'kubernetes']);
    t.match(table, /service\/kubernetes\s+NodePort\s+10\.96\.0\.1\s+<none>\s+443:30443\/TCP/);
    t.match(table, new RegExp(`endpoints/kubernetes\\s+127\\.0\\.0\\.1:${server.port}`));
    t.match(table, new RegExp(`endpointslice.discovery.k8s.io/kubernetes\\s+IPv4\\s+${server.port}\\s+127\\.0\\.0\\.1`));
    const svc = await k.json<Obj & { spec: { ports: Record<string, unknown>[]; type: string; clusterIP: string } }>(['get', 'svc', 'kubernetes']);
    t.same(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    t.match(svc.spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: server.port, nodePort: 30443 }]);
    const slice = await k.json<Obj & { addressType: string; endpoints: unknown[] }>(['get', 'endpointslice', 'kubernetes']);
    t.equal(slice.metadata.labels?.['kubernetes.io/service-name'], 'kubernetes');
    t.match(slice.endpoints, [{ addresses: ['127.0.0.1'] }]);
  });

  t.test('a Service asking for the kubernetes service IP or node port is refused', async (t) => {
    const svc = (name: string, spec: object) => JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], selector: { a: 'b' }, ...spec } });
    const ip = await server.request('POST', '/api/v1/namespaces/default/services', svc('taken-ip', { clusterIP: '10.96.0.1' }), { 'Content-Type': 'application/json' });
    t.equal(ip.status, 422, ip.body);
    t.match(ip.body, 'provided IP is already allocated');
    const port = await server.request('POST', '/api/v1/namespaces/default/services', svc('taken-port', { type: 'NodePort', ports: [{ port: 80, nodePort: 30443 }] }), { 'Content-Type': 'application/json' });
    t.equal(port.status, 422, port.body);
    t.match(port.body, 'provided port is already allocated');
  });

  t.test('/api names the external host name and the port', async (t) => {
    const r = await server.request('GET', '/api');
    t.same(JSON.parse(r.body).serverAddressByClientCIDRs, [{ clientCIDR: '0.0.0.0/0', serverAddress: `api.example.test:${server.port}` }]);
    const jwks = JSON.parse((await server.request('GET', '/.well-known/openid-configuration')).body);
    t.equal(jwks.jwks_uri, `https://api.example.test:${server.port}/openid/v1/jwks`);
  });

  t.test('CORS for the allowed origins only; preflights before authentication', async (t) => {
    const pre = await server.requestWithoutCert('OPTIONS', '/api/v1/namespaces', undefined, { Origin: 'https://ok.example', 'Access-Control-Request-Method': 'GET' });
    t.equal(pre.status, 204);
    t.equal(pre.headers['access-control-allow-origin'], 'https://ok.example');
    t.equal(pre.headers['access-control-allow-methods'], 'POST, GET, OPTIONS, PUT, DELETE, PATCH');
    t.equal(pre.headers['access-control-allow-headers'], 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since');
    t.equal(pre.headers['access-control-expose-headers'], 'Date');
    t.equal(pre.headers['access-control-allow-credentials'], 'true');
    const get = await server.request('GET', '/version', undefined, { Origin: 'https://ok.example' });
    t.equal(get.status, 200);
    t.equal(get.headers['access-control-allow-origin'], 'https://ok.example');
    const other = await server.requestWithoutCert('OPTIONS', '/api/v1/namespaces', undefined, { Origin: 'https://ok.example.evil' });
    t.not(other.status, 204);
    t.equal(other.headers['access-control-allow-origin'], undefined);
  });

  t.test('--max-connection-bytes-per-sec slows a watch', async (t) => {
    const ns = 'throttle';
    await server.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), { 'Content-Type': 'application/json' });
    for (let i = 0; i < 5; i++) {
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { pad: 'x'.repeat(500) } };
      t.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, JSON.stringify(cm), { 'Content-Type': 'application/json' })).status, 201);
    }
    // a list is not long-running: not throttled
    const listStart = Date.now();
    const list = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    t.ok(list.body.length > 2500);
    t.ok(Date.now() - listStart < 1500, 'the list is not throttled');
    const started = Date.now();
    const watch = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=0&timeoutSeconds=1`);
    const elapsed = Date.now() - started;
    t.equal(watch.body.trim().split('\n').length, 5, 'every event arrives');
    t.ok(watch.body.length > 3000, `${watch.body.length} bytes`);
    // over 3000 bytes at 1000 B/s (no burst at the start) take at least 3 s; unthrottled the watch ends after 1 s
    t.ok(elapsed >= 2800, `took ${elapsed} ms`);
  });

  t.test('the identity lease', async (t) => {
    const list = await k.json<{ items: (Obj & { spec: Record<string, unknown> })[] }>(['get', 'leases', '-n', 'kube-system', '-l', 'apiserver.kubernetes.io/identity=kube-apiserver']);
    t.equal(list.items.length, 1);
    const lease = list.items[0];
    t.match(lease.metadata.name, /^apiserver-[a-z2-7]{26}$/);
    t.equal(lease.metadata.labels?.['kubernetes.io/hostname'], os.hostname());
    t.match(lease.spec.holderIdentity, new RegExp(`^${lease.metadata.name}_[0-9a-f-]{36}$`));
    t.equal(lease.spec.leaseDurationSeconds, 120);
    t.match(lease.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  t.test('--enable-garbage-collector=false: propagationPolicy adds no finalizer', async (t) => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'orphaned' } };
    t.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify(cm), { 'Content-Type': 'application/json' })).status, 201);
    const options = JSON.stringify({ propagationPolicy: 'Orphan' });
    // Node sends a DELETE body unframed unless told its length
    const del = await server.request('DELETE', '/api/v1/namespaces/default/configmaps/orphaned', options, { 'Content-Type': 'application/json', 'Content-Length': String(options.length) });
    t.equal(del.status, 200, del.body);
    const after = await server.request('GET', '/api/v1/namespaces/default/configmaps/orphaned');
    t.equal(after.status, 404, after.body);
  });

  t.test('/livez and /readyz list the post-start hooks', async (t) => {
    const livez = await server.request('GET', '/livez?verbose');
    t.match(livez.body, '[+]poststarthook/bootstrap-controller ok');
    t.match(livez.body, '[+]poststarthook/start-kube-apiserver-identity-lease-controller ok');
  });
});

function ballast(...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN_JS, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stderr: r.stderr };
}

t.test('start-up errors of the checked flags are one line', { skip: fs.existsSync(MAIN_JS) ? false : 'not built' }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-apiopts-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const base = ['apiserver', '--data-dir', dir, '--secure-port', String(await freePort()), '--bind-address', '127.0.0.1'];
  const expect = (args: string[], message: string | RegExp) => {
    const r = ballast(...base, ...args);
    t.not(r.code, 0);
    t.match(r.stderr, message);
    t.notMatch(r.stderr, /^\s+at /m, 'no stack');
  };
  expect(['--cors-allowed-origins=(unclosed'], /^Error: invalid argument "\(unclosed" for "--cors-allowed-origins" flag: .*Unterminated group/m);
  expect(['--kubernetes-service-node-port=80'], /^Error: kubernetes service node port range 30000-32767 doesn't contain 80$/m);
  expect(['--kubelet-preferred-address-types=InternalIP,Bogus'], /^Error: --kubelet-preferred-address-types: unknown address type "Bogus"/m);
  expect(['--kubelet-certificate-authority', path.join(dir, 'missing.crt')], new RegExp(`^Error: --kubelet-certificate-authority ${dir}/missing.crt: no such file or directory$`, 'm'));
  const egress = path.join(dir, 'egress.yaml');
  fs.writeFileSync(egress, 'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: HTTPConnect\n');
  expect(['--egress-selector-config-file', egress], new RegExp(`^Error: --egress-selector-config-file ${egress}: egressSelections\\[0\\]\\.connection\\.proxyProtocol: HTTPConnect is not supported by Ballast \\(only Direct\\)$`, 'm'));
});
