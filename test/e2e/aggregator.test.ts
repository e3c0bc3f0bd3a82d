/**
 * Aggregated APIs end to end: the real server with --enable-aggregator-routing and a proxy client
 * certificate, an extension API server written in the test (wardle.example.com, own CA) behind a
 * Service and Endpoints, registered with an APIService carrying its caBundle; kubectl 1.32 and 1.20
 * discover, list, watch and explain the extension's resource through the proxy, see the local
 * registrations, and see the remote one turn unavailable when the extension server stops.
 */
import fs from 'node:fs';
import t from 'tap';
import yaml from 'js-yaml';
import { kubectlFor, missingKubectl, startApiServer, tempDir, waitFor } from './harness';
import type { KubectlVersion } from './harness';
import { GROUP, GV, VERSION, startExtensionServer } from '../helpers/extension-server';
import { makeCa, makeCert } from '../helpers/test-pki';

const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];
const NAME = `${VERSION}.${GROUP}`;

t.test('aggregated APIs with kubectl', { skip: missingKubectl('1.32') ?? missingKubectl('1.20') ?? false }, async (t) => {
  const ext = await startExtensionServer({ service: 'api', namespace: 'wardle' });
  t.teardown(() => ext.close());
  const pki = tempDir(t, 'front-proxy');
  const frontCa = makeCa(pki, 'front-proxy-ca');
  const client = makeCert(pki, 'front-proxy-client', frontCa, { commonName: 'front-proxy-client', usage: 'client' });
  const server = await startApiServer(t, {
    args: ['--enable-aggregator-routing=true', '--proxy-client-cert-file', client.certFile, '--proxy-client-key-file', client.keyFile],
  });
  const k = kubectlFor(t, '1.32', server);

  const manifests = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wardle' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'wardle' }, spec: { ports: [{ name: 'https', port: 443, targetPort: ext.port }] } },
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'api', namespace: 'wardle' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: ext.port, protocol: 'TCP' }] }],
    },
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: NAME },
      spec: {
        group: GROUP,
        version: VERSION,
        groupPriorityMinimum: 1000,
        versionPriority: 15,
        service: { namespace: 'wardle', name: 'api' },
        caBundle: Buffer.from(ext.ca.cert).toString('base64'),
      },
    },
  ];
  await k.ok(['apply', '-f', '-'], manifests.map((m) => yaml.dump(m)).join('---\n'));

  await t.test('get apiservices: the local ones and the remote one, Available', async (t) => {
    const table = await waitFor('the remote APIService Available', async () => {
      const out = await k.ok(['get', 'apiservices']);
      return new RegExp(`^${NAME.replace(/\./g, '\\.')}\\s+wardle/api\\s+True\\s`, 'm').test(out) ? out : undefined;
    });
    t.match(table, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/m);
    t.match(table, /^v1\.\s+Local\s+True\s/m);
    t.match(table, /^v1\.apps\s+Local\s+True\s/m);
    t.match(table, /^v1beta1\.batch\s+Local\s+True\s/m);
  });

  for (const version of VERSIONS) {
    await t.test(`kubectl ${version}`, async (t) => {
      const kv = kubectlFor(t, version, server);
      t.match(await kv.ok(['api-resources']), new RegExp(`^flunders\\s+fl\\s+${GV.replace(/\./g, '\\.')}\\s+true\\s+Flunder$`, 'm'), 'discovery lists the extension\'s resource');
      t.match(await kv.ok(['api-versions']), new RegExp(`^${GV.replace(/\./g, '\\.')}$`, 'm'));

      ext.seen.length = 0;
      const table = await kv.ok(['get', 'flunders', '-n', 'default']);
      t.match(table, /^NAME\s/m);
      t.match(table, /^first\s/m);
      const listed = ext.seen.find((s) => s.url.startsWith(`/apis/${GV}/namespaces/default/flunders`));
      // kubectl authenticates with the admin kubeconfig's client certificate
      t.equal(listed?.headers['x-remote-user'], 'ballast-admin', 'the extension got the caller in X-Remote-User');
      t.match(String(listed?.headers['x-remote-group']), /system:masters/, 'and the groups in X-Remote-Group');
      t.equal(listed?.clientCN, 'front-proxy-client', 'and saw the --proxy-client-cert-file certificate');

      const flunder = await kv.json<{ kind: string; metadata: { name: string } }>(['get', 'flunder', 'first', '-n', 'default']);
      t.equal(flunder.kind, 'Flunder');

      const watch = kv.stream(['get', 'flunders', '-n', 'default', '--watch']);
      await waitFor('two watch events after the list', () => watch.lines.filter((l) => /^first\s/.test(l)).length >= 3);
      await watch.kill();
      t.pass('get --watch streams the extension\'s events');

      const explained = await kv.ok(['explain', 'flunders']);
      t.match(explained, /KIND:\s+Flunder/);
      t.match(explained, /A flunder of the wardle extension\./, 'explain reads the extension\'s schema from the merged OpenAPI');
      t.match(await kv.ok(['explain', 'flunders.spec.reference']), /Name of the thing the flunder points at\./);
    });
  }

  await t.test('the extension server stops: Available False (FailedDiscoveryCheck), requests 503', async (t) => {
    await ext.close();
    // kube's availability controller checks every 30 s (and on changes)
    const table = await waitFor(
      'FailedDiscoveryCheck',
      async () => {
        const out = await k.ok(['get', 'apiservice', NAME]);
        return /False \(FailedDiscoveryCheck\)/.test(out) ? out : undefined;
      },
      50_000,
    );
    t.match(table, new RegExp(`^${NAME.replace(/\./g, '\\.')}\\s+wardle/api\\s+False \\(FailedDiscoveryCheck\\)\\s`, 'm'));
    const status = await k.json<{ status: { conditions: Array<{ type: string; message: string }> } }>(['get', 'apiservice', NAME]);
    t.match(status.status.conditions[0].message, /^failing or missing response from https:\/\/127\.0\.0\.1:\d+\/apis\/wardle\.example\.com\/v1alpha1: /);
    for (const version of VERSIONS) {
      const r = await kubectlFor(t, version, server).run(['get', '--raw', `/apis/${GV}/namespaces/default/flunders`]);
      t.not(r.code, 0);
      t.match(r.stderr, /ServiceUnavailable|the server is currently unable to handle the request/, `kubectl ${version} reports the 503`);
    }
    const raw = await server.request('GET', `/apis/${GV}/namespaces/default/flunders`);
    t.equal(raw.status, 503);
    t.equal(raw.body, 'service unavailable\n');
  });

  t.ok(fs.existsSync(server.kubeconfig));
});
