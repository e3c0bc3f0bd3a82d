import crypto from 'node:crypto';
import { decodeJwt } from 'jose';
import t from 'tap';
import { errors } from '../../src/api/errors';
import type { KindDefinition, KubeObject } from '../../src/api/kind';
import type { Registry, Target } from '../../src/api/registry/types';
import type { Scheme } from '../../src/api/scheme';
import { serviceAccountKind } from '../../src/api/kinds/core/serviceaccount';
import { signingKeyOf } from '../../src/auth/serviceaccount/keys';
import { TokenIssuer } from '../../src/auth/serviceaccount/token-issuer';
import { EXTENDED_EXPIRATION_SECONDS, withTokenRequest } from '../../src/auth/serviceaccount/token-request';

const API = 'https://kubernetes.default.svc.cluster.local';
const key = signingKeyOf(crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
const kindOf = (resource: string): KindDefinition => ({ group: '', version: 'v1', resource }) as KindDefinition;

function setup(opts: { max?: number; extend?: boolean } = {}) {
  const objects = new Map<string, KubeObject>([
    ['serviceaccounts/ns/app', { metadata: { name: 'app', namespace: 'ns', uid: 'sa-uid' } }],
    ['pods/ns/p', { metadata: { name: 'p', namespace: 'ns', uid: 'pod-uid' }, spec: { serviceAccountName: 'app' } }],
    ['pods/ns/other', { metadata: { name: 'other', namespace: 'ns', uid: 'o-uid' }, spec: { serviceAccountName: 'default' } }],
    ['secrets/ns/s', { metadata: { name: 's', namespace: 'ns', uid: 'secret-uid' } }],
    ['pods/ns/placed', { metadata: { name: 'placed', namespace: 'ns', uid: 'placed-uid' }, spec: { serviceAccountName: 'app', nodeName: 'n1' } }],
    ['nodes/undefined/n1', { metadata: { name: 'n1', uid: 'node-uid' } }],
  ]);
  const inner = {
    async get(t: Target) {
      const obj = objects.get(`${t.kind.resource}/${t.namespace}/${t.name}`);
      if (!obj) throw errors.notFound({ group: '', resource: t.kind.resource }, t.name ?? '');
      return obj;
    },
    async createSubresource() {
      return { object: { kind: 'inner' }, created: true };
    },
  } as unknown as Registry;
  const scheme = { byResource: (_g: string, _v: string, r: string) => kindOf(r) } as unknown as Scheme;
  const registry = withTokenRequest(inner, {
    scheme,
    issuer: new TokenIssuer({ key, issuer: API }),
    apiAudiences: [API],
    maxExpirationSeconds: opts.max ?? 0,
    extendExpiration: opts.extend ?? true,
    now: () => new Date('2030-01-01T00:00:00Z'),
  });
  const request = (spec: object, name = 'app') =>
    registry.createSubresource({ kind: serviceAccountKind(), namespace: 'ns', name }, 'token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec }, { dryRun: false });
  return { registry, request };
}

const claimsOf = (obj: KubeObject) => decodeJwt((obj.status as { token: string }).token);

t.test('defaults: the API audiences, an hour, the account in the claims', async (t) => {
  const { request } = setup();
  const { object, created } = await request({});
  t.ok(created);
  t.same((object.spec as Record<string, unknown>).audiences, [API]);
  t.equal((object.status as Record<string, unknown>).expirationTimestamp, '2030-01-01T01:00:00Z');
  const c = claimsOf(object);
  t.match(c, { iss: API, sub: 'system:serviceaccount:ns:app', aud: [API], 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'app', uid: 'sa-uid' } } });
  t.equal((c.exp ?? 0) - (c.iat ?? 0), 3600);
});

t.test('validation, max expiration and the one-year extension of kubelet tokens', async (t) => {
  await t.rejects(setup().request({ expirationSeconds: 599 }), { code: 422, message: /may not specify a duration less than 10 minutes/ });
  await t.rejects(setup().request({}, 'missing'), { code: 404, message: 'serviceaccounts "missing" not found' });
  const capped = await setup({ max: 3600 }).request({ expirationSeconds: 7200 });
  t.equal((capped.object.spec as Record<string, unknown>).expirationSeconds, 3600, 'cut to --service-account-max-token-expiration');
  const bound = { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' }, expirationSeconds: 3607 };
  const extended = claimsOf((await setup().request(bound)).object);
  t.equal((extended.exp ?? 0) - (extended.iat ?? 0), EXTENDED_EXPIRATION_SECONDS, 'a year');
  t.equal((extended['kubernetes.io'] as { warnafter: number }).warnafter - (extended.iat ?? 0), 3607);
  t.match(extended['kubernetes.io'], { pod: { name: 'p', uid: 'pod-uid' } });
  const plain = claimsOf((await setup({ extend: false }).request(bound)).object);
  t.equal((plain.exp ?? 0) - (plain.iat ?? 0), 3607, 'not extended without the flag');
});

t.test('bound objects', async (t) => {
  const { request } = setup();
  const secret = claimsOf((await request({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'secret-uid' } })).object);
  t.match(secret['kubernetes.io'], { secret: { name: 's', uid: 'secret-uid' } });
  await t.rejects(request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'gone' } }), { code: 404 });
  const placed = claimsOf((await request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'placed' } })).object);
  t.match(placed['kubernetes.io'], { pod: { name: 'placed', uid: 'placed-uid' }, node: { name: 'n1', uid: 'node-uid' } }, 'the pod\'s node is named too');
  const node = claimsOf((await request({ boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } })).object);
  t.match(node['kubernetes.io'], { node: { name: 'n1', uid: 'node-uid' } }, 'bound to a node');
  await t.rejects(request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other' } }), { code: 400, message: 'cannot bind token for serviceaccount "app" to pod running with different serviceaccount name.' });
  await t.rejects(request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'old' } }), { code: 409, message: /the UID in the bound object reference \(old\) does not match the UID in record/ });
  await t.rejects(request({ boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'c' } }), { code: 400, message: 'cannot bind token to object of type /v1, Kind=ConfigMap' });
});

t.test('dry run checks the request and issues no token', async (t) => {
  const { registry } = setup();
  const target = { kind: serviceAccountKind(), namespace: 'ns', name: 'app' };
  const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} };
  const r = await registry.createSubresource(target, 'token', body, { dryRun: true });
  t.equal((r.object.status as Record<string, unknown>).token, '');
  await t.rejects(registry.createSubresource({ ...target, name: 'missing' }, 'token', body, { dryRun: true }), { code: 404 });
});

t.test('other subresources go to the wrapped registry', async (t) => {
  const { registry } = setup();
  const r = await registry.createSubresource({ kind: kindOf('pods'), namespace: 'ns', name: 'p' }, 'eviction', {}, { dryRun: false });
  t.same(r.object, { kind: 'inner' });
});
