import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import type { Test } from 'tap';
import { Scheme } from '../../src/api/scheme';
import { createApiServerApp } from '../../src/http/app';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { BALLAST_GATED, DEFAULT_FEATURE_GATES, FEATURE_GATES, FeatureGates } from '../../src/options/feature-gates';
import { parseOptions } from '../../src/options/parse';
import { FakeRegistry, sampleObject } from '../http/fake-registry';
import { testVersion, widgetKind } from '../http/helpers';
import type { KindDefinition, KubeObject } from '../../src/api/kind';
import type { Registry as RegistryApi } from '../../src/api/registry/types';
import { serviceAccountKind } from '../../src/api/kinds/core/serviceaccount';
import { signingKeyOf } from '../../src/auth/serviceaccount/keys';
import { TokenIssuer } from '../../src/auth/serviceaccount/token-issuer';
import { withTokenRequest } from '../../src/auth/serviceaccount/token-request';

const config = (...argv: string[]) => apiServerConfig(parseOptions(apiServerOptionGroups, argv), {});

/** core/v1 pods with the ephemeralcontainers subresource, enough for the route */
const podKind: KindDefinition = {
  ...widgetKind,
  group: '',
  version: 'v1',
  kind: 'Pod',
  resource: 'pods',
  singular: 'pod',
  listKind: 'PodList',
  shortNames: [],
  categories: [],
  storage: { group: '', resource: 'pods' },
  storageVersion: 'v1',
  scale: undefined,
  table: undefined,
  subresources: [{ name: 'ephemeralcontainers', type: 'partial', verbs: ['get', 'patch', 'update'] }],
};

class Registry extends FakeRegistry {
  async getSubresource(): Promise<KubeObject> {
    return sampleObject('p');
  }
}

async function serve(t: Test, gates: FeatureGates): Promise<{ url: string; registry: Registry }> {
  const registry = new Registry();
  const { app } = createApiServerApp({
    scheme: new Scheme([widgetKind, podKind]),
    registry,
    logger: pino({ level: 'silent' }),
    health: [],
    version: testVersion,
    featureGates: gates,
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, registry };
}

const WIDGETS = '/apis/test.ballast.io/v1/namespaces/ns1/widgets';

t.test('FeatureGates: kube\'s defaults, overrides from --feature-gates, TypeError for unknown names', async (t) => {
  t.equal(DEFAULT_FEATURE_GATES.enabled('ServerSideApply'), true);
  t.equal(DEFAULT_FEATURE_GATES.enabled('InPlacePodVerticalScaling'), false);
  t.equal(DEFAULT_FEATURE_GATES.enabled('EphemeralContainers'), true, 'served by default, as kube 1.32 does');
  t.throws(() => DEFAULT_FEATURE_GATES.enabled('NoSuchGate'), TypeError);
  t.throws(() => new FeatureGates({ NoSuchGate: true }), TypeError);
  const c = config('--feature-gates=ServerSideApply=false,InPlacePodVerticalScaling=true');
  t.equal(c.featureGates.enabled('ServerSideApply'), false);
  t.equal(c.featureGates.enabled('InPlacePodVerticalScaling'), true);
  t.same(c.featureGates.overrides(), { ServerSideApply: false, InPlacePodVerticalScaling: true });
  for (const name of Object.keys(BALLAST_GATED)) t.ok(FEATURE_GATES.has(name), `${name} is a known gate`);
});

t.test('the 1.20 beta gates 1.32 locked stay settable (spec 2, part 9)', async (t) => {
  const c = config('--feature-gates=APIListChunking=false,RemainingItemCount=false');
  t.equal(c.featureGates.enabled('APIListChunking'), false);
  t.equal(c.featureGates.enabled('RemainingItemCount'), false);
  t.throws(() => config('--feature-gates=MemoryManager=false'), /feature is locked to true/, '1.32-only locks stay');
});

t.test('APIPriorityAndFairness off means the plain in-flight limits, as --enable-priority-and-fairness=false', async (t) => {
  t.equal(config().enablePriorityAndFairness, true);
  t.equal(config('--feature-gates=APIPriorityAndFairness=false').enablePriorityAndFairness, false);
  t.equal(config('--enable-priority-and-fairness=false').enablePriorityAndFairness, false);
});

t.test('APIListChunking and RemainingItemCount off: limit and continue dropped, no remainingItemCount', async (t) => {
  for (const on of [true, false]) {
    const s = await serve(t, new FeatureGates(on ? {} : { APIListChunking: false, RemainingItemCount: false }));
    s.registry.listMeta = { resourceVersion: '42', continue: 'next', remainingItemCount: 5 };
    const r = await fetch(`${s.url}${WIDGETS}?limit=1&continue=abc`);
    const body = (await r.json()) as { metadata: Record<string, unknown> };
    const opts = s.registry.lastCall().options as Record<string, unknown>;
    if (on) {
      t.equal(opts.limit, 1);
      t.equal(opts.continue, 'abc');
      t.equal(body.metadata.remainingItemCount, 5);
    } else {
      t.equal(opts.limit, undefined, 'limit ignored');
      t.equal(opts.continue, undefined, 'continue ignored');
      t.equal(body.metadata.remainingItemCount, undefined);
    }
  }
});

t.test('WatchBookmark off: allowWatchBookmarks is not passed on', async (t) => {
  for (const on of [true, false]) {
    const s = await serve(t, new FeatureGates(on ? {} : { WatchBookmark: false }));
    const ac = new AbortController();
    await fetch(`${s.url}${WIDGETS}?watch=true&allowWatchBookmarks=true`, { signal: ac.signal });
    ac.abort();
    t.equal(s.registry.watches[0].options.allowWatchBookmarks, on ? true : undefined);
  }
});

t.test('ServerSideApply off: apply patches are a 415 naming the other patch types', async (t) => {
  const s = await serve(t, new FeatureGates({ ServerSideApply: false }));
  const r = await fetch(`${s.url}${WIDGETS}/a?fieldManager=me`, { method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' }, body: 'kind: Widget' });
  t.equal(r.status, 415);
  const status = (await r.json()) as { reason: string; message: string };
  t.equal(status.reason, 'UnsupportedMediaType');
  t.equal(status.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json');
  const merge = await fetch(`${s.url}${WIDGETS}/a`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{}' });
  t.ok(merge.status < 300, 'other patches still work');
  const on = await serve(t, DEFAULT_FEATURE_GATES);
  const applied = await fetch(`${on.url}${WIDGETS}/a?fieldManager=me`, { method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' }, body: 'kind: Widget' });
  t.not(applied.status, 415);
});

t.test('EphemeralContainers off: pods/ephemeralcontainers is 404', async (t) => {
  const on = await serve(t, DEFAULT_FEATURE_GATES);
  t.equal((await fetch(`${on.url}/api/v1/namespaces/ns1/pods/p/ephemeralcontainers`)).status, 200);
  const off = await serve(t, new FeatureGates({ EphemeralContainers: false }));
  t.equal((await fetch(`${off.url}/api/v1/namespaces/ns1/pods/p/ephemeralcontainers`)).status, 404);
});

t.test('APIResponseCompression: large responses are gzipped when accepted, never with the gate off', async (t) => {
  const big = Array.from({ length: 3 }, (_, i) => sampleObject(`w${i}`, { spec: { blob: 'x'.repeat(60 * 1024) } }));
  const get = (url: string, encoding: string) =>
    new Promise<{ encoding?: string; bytes: number }>((resolve, reject) => {
      http.get(`${url}${WIDGETS}`, { headers: { 'Accept-Encoding': encoding } }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], bytes }));
      }).on('error', reject);
    });
  const on = await serve(t, DEFAULT_FEATURE_GATES);
  on.registry.objects = big;
  const gz = await get(on.url, 'gzip');
  t.equal(gz.encoding, 'gzip');
  t.ok(gz.bytes < 20_000, `compressed to ${gz.bytes} bytes`);
  t.equal((await get(on.url, 'identity')).encoding, undefined, 'not without Accept-Encoding: gzip');
  on.registry.objects = [sampleObject('small')];
  t.equal((await get(on.url, 'gzip')).encoding, undefined, 'small responses stay as they are');
  const off = await serve(t, new FeatureGates({ APIResponseCompression: false }));
  off.registry.objects = big;
  const plain = await get(off.url, 'gzip');
  t.equal(plain.encoding, undefined);
  t.ok(plain.bytes > 180_000);
});

t.test('ServiceAccountTokenNodeBinding off: a TokenRequest bound to a Node is a 400', async (t) => {
  const key = signingKeyOf(crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
  const objects: Record<string, KubeObject> = {
    'serviceaccounts/app': { metadata: { name: 'app', namespace: 'ns', uid: 'sa-uid' } },
    'nodes/n1': { metadata: { name: 'n1', uid: 'node-uid' } },
  };
  const inner = {
    async get(target: { kind: { resource: string }; name?: string }) {
      return objects[`${target.kind.resource}/${target.name}`];
    },
  } as unknown as RegistryApi;
  const scheme = { byResource: (_g: string, _v: string, r: string) => ({ group: '', version: 'v1', resource: r }) } as unknown as Scheme;
  const request = (nodeBinding: boolean) =>
    withTokenRequest(inner, { scheme, issuer: new TokenIssuer({ key, issuer: 'https://x' }), apiAudiences: ['https://x'], maxExpirationSeconds: 0, extendExpiration: false, nodeBinding }).createSubresource(
      { kind: serviceAccountKind(), namespace: 'ns', name: 'app' },
      'token',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } } },
      { dryRun: false },
    );
  t.ok((await request(true)).created);
  await t.rejects(request(false), { code: 400, message: 'cannot bind token to a Node object as the "ServiceAccountTokenNodeBinding" feature-gate is disabled' });
});
