/**
 * The aggregation layer in process: a registry, the aggregator, the Koa app on HTTPS, and the test
 * extension server behind a Service and Endpoints (endpoint routing). Covers the local
 * registrations, the proxy (identity headers, client certificate, streaming watch, upgrade),
 * discovery and OpenAPI of the extension, and its loss of availability.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import pino from 'pino';
import t from 'tap';
import { createAggregator } from '../../src/aggregator/aggregator';
import type { APIService } from '../../src/aggregator/apiservice';
import type { KubeObject } from '../../src/api/kind';
import { createApiServerApp } from '../../src/http/app';
import { startServer } from '../../src/http/server';
import { versionInfo } from '../../src/server/version';
import { GROUP, GV, VERSION, startExtensionServer } from '../helpers/extension-server';
import { makeFixture } from '../helpers/registry-fixture';
import { makeCa, makeCert } from '../helpers/test-pki';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('aggregation in process', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-agg-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ca = makeCa(dir, 'ballast');
  const serving = makeCert(dir, 'apiserver', ca, { commonName: 'localhost', ips: ['127.0.0.1'], usage: 'server' });
  const frontProxy = makeCert(dir, 'front-proxy', ca, { commonName: 'front-proxy-client', usage: 'client' });

  const ext = await startExtensionServer({ service: 'api', namespace: 'wardle' });
  t.teardown(() => ext.close());
  const fx = await makeFixture('memory');
  t.teardown(() => fx.close());
  const { registry, scheme } = fx;
  const builtin = new Set(scheme.kinds.map((k) => (k.group ? `${k.group}/${k.version}` : k.version)));
  const aggregator = createAggregator({
    registry,
    scheme,
    builtinGroupVersions: builtin,
    logger: pino({ level: process.env.AGG_DEBUG ? 'debug' : 'silent' }),
    enableAggregatorRouting: true,
    proxyClientCert: { cert: frontProxy.cert, key: frontProxy.key },
    availabilityResyncMs: 200,
    refreshMs: 200,
  })!;
  await aggregator.start();
  t.teardown(() => aggregator.stop());
  const api = createApiServerApp({ scheme, registry, logger: pino({ level: 'silent' }), health: [], version: versionInfo(), aggregated: aggregator });
  const server = await startServer({ app: api.app, bindAddress: '127.0.0.1', port: 0, cert: serving.cert, key: serving.key, upgrade: aggregator.upgrade.bind(aggregator) });
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  const port = (server.address() as AddressInfo).port;

  const request = (method: string, p: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, method, path: p, ca: ca.cert, headers }, (res) => {
        let data = '';
        res.on('data', (d: Buffer) => (data += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const apiService = (name: string) => registry.get({ kind: fx.kind('apiservices', 'apiregistration.k8s.io') , name }, {}) as Promise<APIService>;

  await t.test('local registrations for every built-in group/version, Available (Local)', async (t) => {
    await aggregator.idle();
    const list = await waitFor('local APIServices', async () => {
      const l = await registry.list({ kind: fx.kind('apiservices', 'apiregistration.k8s.io') }, {});
      return l.items.length >= 44 ? l : undefined;
    });
    const names = list.items.map((i) => i.metadata?.name).sort();
    t.same(names, [
      'v1.', 'v1.admissionregistration.k8s.io', 'v1.apiextensions.k8s.io', 'v1.apps', 'v1.autoscaling', 'v1.batch', 'v1.certificates.k8s.io',
      'v1.coordination.k8s.io', 'v1.discovery.k8s.io', 'v1.events.k8s.io', 'v1.flowcontrol.apiserver.k8s.io', 'v1.networking.k8s.io',
      'v1.node.k8s.io', 'v1.policy', 'v1.rbac.authorization.k8s.io', 'v1.scheduling.k8s.io', 'v1.storage.k8s.io',
      'v1alpha1.flowcontrol.apiserver.k8s.io', 'v1alpha1.internal.apiserver.k8s.io', 'v1alpha1.node.k8s.io', 'v1alpha1.rbac.authorization.k8s.io',
      'v1alpha1.scheduling.k8s.io', 'v1alpha1.storage.k8s.io', 'v1beta1.admissionregistration.k8s.io', 'v1beta1.apiextensions.k8s.io',
      'v1beta1.batch', 'v1beta1.certificates.k8s.io', 'v1beta1.coordination.k8s.io', 'v1beta1.discovery.k8s.io', 'v1beta1.events.k8s.io',
      'v1beta1.extensions', 'v1beta1.flowcontrol.apiserver.k8s.io', 'v1beta1.networking.k8s.io', 'v1beta1.node.k8s.io', 'v1beta1.policy',
      'v1beta1.rbac.authorization.k8s.io', 'v1beta1.scheduling.k8s.io', 'v1beta1.storage.k8s.io', 'v1beta2.flowcontrol.apiserver.k8s.io',
      'v1beta3.flowcontrol.apiserver.k8s.io', 'v2.autoscaling', 'v2alpha1.batch', 'v2beta1.autoscaling', 'v2beta2.autoscaling',
    ]);
    const apps = list.items.find((i) => i.metadata?.name === 'v1.apps') as APIService;
    t.same(apps.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    t.same(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    t.match(apps.status?.conditions, [{ type: 'Available', status: 'True', reason: 'Local' }]);
    await waitFor('autoregister-completion', () => aggregator.healthCheck().check().then(() => true, () => undefined));
    t.pass('the autoregister-completion check passes once they are Available');
  });

  await t.test('custom resource group/versions are registered while the Scheme serves them', async (t) => {
    const base = fx.kind('configmaps');
    scheme.add([{ ...base, group: 'stable.example.com', version: 'v1', kind: 'CronTab', listKind: 'CronTabList', resource: 'crontabs', singular: 'crontab', storage: { group: 'stable.example.com', resource: 'crontabs' } }]);
    const created = await waitFor('v1.stable.example.com', () => apiService('v1.stable.example.com').catch(() => undefined));
    t.same(created.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    t.same(created.spec, { group: 'stable.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    scheme.remove((k) => k.group === 'stable.example.com');
    await waitFor('its removal', () => apiService('v1.stable.example.com').then(() => undefined, (e: { code?: number }) => e.code === 404));
    t.pass('removed with its group/version');
  });

  await t.test('a remote registration becomes Available once its Service answers', async (t) => {
    await registry.create({ kind: fx.kind('namespaces') }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wardle' } }, { dryRun: false });
    await registry.create({ kind: fx.kind('services'), namespace: 'wardle' }, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'wardle' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] },
    }, { dryRun: false });
    await registry.create({ kind: fx.kind('endpoints'), namespace: 'wardle' }, {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'wardle' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: ext.port, protocol: 'TCP' }] }],
    } as KubeObject, { dryRun: false });
    await registry.create({ kind: fx.kind('apiservices', 'apiregistration.k8s.io') }, {
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `${VERSION}.${GROUP}` },
      spec: { group: GROUP, version: VERSION, groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'wardle', name: 'api' }, caBundle: Buffer.from(ext.ca.cert).toString('base64') },
    }, { dryRun: false });
    const available = await waitFor('Available', async () => {
      const s = await apiService(`${VERSION}.${GROUP}`);
      return s.status?.conditions?.find((c) => c.type === 'Available' && c.status === 'True');
    });
    t.match(available, { reason: 'Passed', message: 'all checks passed' });
  });

  await t.test('requests are proxied with the caller\'s identity and our client certificate', async (t) => {
    ext.seen.length = 0;
    const res = await request('GET', `/apis/${GV}/namespaces/default/flunders?limit=5&b=2&a=1`, {
      Authorization: 'Bearer secret-token',
      'Impersonate-User': 'mallory',
      'X-Remote-User': 'mallory',
    });
    t.equal(res.status, 200);
    t.equal((JSON.parse(res.body) as { kind: string }).kind, 'FlunderList');
    t.ok(res.headers['audit-id'], 'our Audit-Id is on the proxied answer');
    const seen = ext.seen.find((s) => s.url.includes('/flunders'));
    t.equal(seen?.url, `/apis/${GV}/namespaces/default/flunders?a=1&b=2&limit=5`, 'the query re-encoded, keys sorted');
    t.equal(seen?.headers['x-remote-user'], 'system:anonymous');
    t.equal(seen?.headers['x-remote-group'], 'system:unauthenticated');
    t.notOk(seen?.headers.authorization, 'the caller\'s credentials do not go further');
    t.notOk(seen?.headers['impersonate-user']);
    t.equal(seen?.headers['x-forwarded-for'], '127.0.0.1');
    t.equal(seen?.clientCN, 'front-proxy-client', 'the proxy client certificate');
    const missing = await request('GET', `/apis/${GV}/namespaces/default/flunders/nope`);
    t.equal(missing.status, 404, 'the backend\'s errors pass through');
    t.match(JSON.parse(missing.body), { reason: 'NotFound' });
  });

  await t.test('a watch streams through as the backend sends it', async (t) => {
    const events: Array<{ at: number; line: string }> = [];
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, path: `/apis/${GV}/namespaces/default/flunders?watch=true`, ca: ca.cert }, (res) => {
        let buf = '';
        res.on('data', (d: Buffer) => {
          buf += d.toString();
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            events.push({ at: Date.now() - started, line: buf.slice(0, nl) });
            buf = buf.slice(nl + 1);
          }
          if (events.length === 2) {
            req.destroy();
            resolve();
          }
        });
      });
      req.on('error', (e) => (events.length === 2 ? resolve() : reject(e)));
      req.end();
    });
    t.same(events.map((e) => (JSON.parse(e.line) as { type: string }).type), ['ADDED', 'MODIFIED']);
    t.ok(events[1].at - events[0].at >= 200, 'the first event arrived before the backend sent the second');
  });

  await t.test('protocol upgrades pass through both ways', async (t) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca: ca.cert, servername: 'localhost' });
    await new Promise<void>((r) => socket.once('secureConnect', () => r()));
    socket.write(`GET /apis/${GV}/namespaces/default/flunders/first/exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\nAuthorization: Bearer secret\r\n\r\n`);
    let got = '';
    await new Promise<void>((resolve) => {
      socket.on('data', (d: Buffer) => {
        got += d.toString();
        if (got.includes('\r\n\r\n') && !got.includes('ping')) socket.write('ping');
        if (got.includes('ping')) resolve();
      });
    });
    socket.destroy();
    t.match(got, /^HTTP\/1\.1 101 Switching Protocols/);
    const seen = ext.seen.find((s) => s.url.endsWith('/exec'));
    t.equal(seen?.headers['x-remote-user'], 'system:anonymous');
    t.equal(seen?.headers.upgrade, 'echo');
    t.notOk(seen?.headers.authorization);
  });

  await t.test('upgrade requests for paths served here still reach the app', async (t) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca: ca.cert, servername: 'localhost' });
    await new Promise<void>((r) => socket.once('secureConnect', () => r()));
    socket.write('GET /api/v1/namespaces/default/pods/nope/exec?command=ls HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n');
    let got = '';
    await new Promise<void>((resolve) => {
      socket.on('data', (d: Buffer) => (got += d.toString()));
      socket.on('end', () => resolve());
      socket.on('close', () => resolve());
    });
    t.match(got, /^HTTP\/1\.1 [45]\d\d /, 'answered as a plain request');
    t.match(got, /"kind":"Status"/);
  });

  await t.test('discovery lists the extension; its group/version document is proxied', async (t) => {
    const groups = JSON.parse((await request('GET', '/apis')).body) as { groups: Array<{ name: string }> };
    // kube's order: the autoregister priorities, then the extension's
    t.same(groups.groups.map((g) => g.name), [
      'apiregistration.k8s.io', 'extensions', 'apps', 'events.k8s.io', 'autoscaling', 'batch', 'certificates.k8s.io', 'networking.k8s.io',
      'policy', 'rbac.authorization.k8s.io', 'storage.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'scheduling.k8s.io',
      'coordination.k8s.io', 'node.k8s.io', 'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io', 'internal.apiserver.k8s.io', GROUP,
    ]);
    t.match(JSON.parse((await request('GET', `/apis/${GROUP}`)).body), { kind: 'APIGroup', name: GROUP, preferredVersion: { version: VERSION } });
    t.match(JSON.parse((await request('GET', `/apis/${GV}`)).body), { kind: 'APIResourceList', resources: [{ name: 'flunders' }] });
    const agg = await waitFor('aggregated entry', async () => {
      const doc = JSON.parse((await request('GET', '/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })).body) as {
        items: Array<{ metadata: { name: string }; versions: Array<{ version: string; freshness: string; resources?: unknown[] }> }>;
      };
      const v = doc.items.find((i) => i.metadata.name === GROUP)?.versions[0];
      return v?.freshness === 'Current' ? v : undefined;
    });
    t.same(agg, {
      version: VERSION,
      resources: [{
        resource: 'flunders',
        responseKind: { group: '', version: '', kind: 'Flunder' },
        scope: 'Namespaced',
        singularResource: 'flunder',
        verbs: ['get', 'list', 'watch'],
        shortNames: ['fl'],
        subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'Flunder' }, verbs: ['get'] }],
      }],
      freshness: 'Current',
    }, 'converted from the legacy list, as kube converts it');
  });

  await t.test("a remote registration of a built-in group/version takes it over, as in kube", async (t) => {
    const name = 'v1.coordination.k8s.io';
    const current = await apiService(name);
    current.spec = { ...current.spec, service: { namespace: 'wardle', name: 'api' }, caBundle: Buffer.from(ext.ca.cert).toString('base64') };
    await registry.update({ kind: fx.kind('apiservices', 'apiregistration.k8s.io'), name }, current, { dryRun: false });
    // the test extension does not serve coordination.k8s.io/v1, so its discovery check fails
    const cond = await waitFor('checked', async () => (await apiService(name)).status?.conditions?.find((c) => c.reason === 'FailedDiscoveryCheck'));
    t.match(cond.message, /bad status from https:\/\/127\.0\.0\.1:\d+\/apis\/coordination\.k8s\.io\/v1: 404$/);
    const res = await request('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases');
    t.equal(res.status, 503, 'no longer served here');
    t.equal(res.body, 'service unavailable\n');
    // handing it back: a local registration leaves the requests here again
    const taken = await apiService(name);
    delete taken.spec.service;
    delete taken.spec.caBundle;
    await registry.update({ kind: fx.kind('apiservices', 'apiregistration.k8s.io'), name }, taken, { dryRun: false });
    await waitFor('served here again', async () => (await request('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases')).status === 200);
  });

  await t.test('OpenAPI: v2 merged, v3 converted', async (t) => {
    const v2 = await waitFor('merged v2', async () => {
      const doc = JSON.parse((await request('GET', '/openapi/v2')).body) as { paths: Record<string, unknown>; definitions: Record<string, unknown> };
      return doc.definitions['com.example.wardle.v1alpha1.Flunder'] ? doc : undefined;
    });
    t.ok(v2.paths[`/apis/${GV}/namespaces/{namespace}/flunders`]);
    t.ok(v2.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2']);
    t.ok(v2.paths['/api/v1/namespaces/{namespace}/pods'], 'ours still there');
    const index = JSON.parse((await request('GET', '/openapi/v3')).body) as { paths: Record<string, { serverRelativeURL: string }> };
    const entry = index.paths[`apis/${GV}`];
    t.ok(entry, 'the extension has a v3 index entry');
    const v3 = JSON.parse((await request('GET', entry.serverRelativeURL)).body) as { components: { schemas: Record<string, unknown> } };
    t.match(v3.components.schemas['com.example.wardle.v1alpha1.Flunder'], { 'x-kubernetes-group-version-kind': [{ kind: 'Flunder' }] });
  });

  await t.test('a stopped extension server: Available False (FailedDiscoveryCheck), 503, Stale discovery', async (t) => {
    await ext.close();
    const cond = await waitFor('FailedDiscoveryCheck', async () => {
      const s = await apiService(`${VERSION}.${GROUP}`);
      // a probe that was under way when the server stopped may report a reset connection first
      return s.status?.conditions?.find((c) => c.type === 'Available' && c.reason === 'FailedDiscoveryCheck' && /connection refused/.test(c.message ?? ''));
    });
    const url = `https://127.0.0.1:${ext.port}/apis/${GV}`;
    t.equal(cond.status, 'False');
    t.equal(cond.message, `failing or missing response from ${url}: Get "${url}": dial tcp 127.0.0.1:${ext.port}: connect: connection refused`);
    const res = await request('GET', `/apis/${GV}/namespaces/default/flunders`);
    t.equal(res.status, 503);
    t.equal(res.body, 'service unavailable\n', "kube's plain-text answer");
    t.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    await waitFor('stale', async () => {
      const doc = JSON.parse((await request('GET', '/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })).body) as {
        items: Array<{ metadata: { name: string }; versions: Array<{ freshness: string; resources?: unknown }> }>;
      };
      const v = doc.items.find((i) => i.metadata.name === GROUP)?.versions[0];
      return v?.freshness === 'Stale' && v.resources === undefined;
    });
    t.pass('aggregated discovery marks it Stale');

    await ext.restart();
    await waitFor('Available again', async () => {
      const s = await apiService(`${VERSION}.${GROUP}`);
      return s.status?.conditions?.find((c) => c.type === 'Available' && c.status === 'True');
    });
    t.equal((await request('GET', `/apis/${GV}/namespaces/default/flunders`)).status, 200, 'and proxied again');
  });
});
