import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { BootstrapTokenAuthenticator } from '../../src/auth/authn/bootstrap-token';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function secretWith(data: Record<string, string>, type = 'bootstrap.kubernetes.io/token'): KubeObject {
  return { metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' }, type, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) };
}

const good = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };

function auth(secret: KubeObject | undefined) {
  return new BootstrapTokenAuthenticator({
    lookup: async (resource, ns, name) => (resource === 'secrets' && ns === 'kube-system' && name === 'bootstrap-token-abcdef' ? secret : undefined),
  });
}

t.test('a valid bootstrap token is system:bootstrap:<id> in system:bootstrappers and its extra groups', async (t) => {
  const r = await auth(secretWith({ ...good, 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token', expiration: '2999-01-01T00:00:00Z' })).authenticateToken('abcdef.0123456789abcdef', []);
  t.same(r?.user, { name: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token'] });
});

t.test('every failure is "not recognized"', async (t) => {
  const token = 'abcdef.0123456789abcdef';
  t.equal(await auth(secretWith(good)).authenticateToken('ABCDEF.0123456789abcdef', []), undefined, 'bad format');
  t.equal(await auth(undefined).authenticateToken(token, []), undefined, 'no secret');
  t.equal(await auth(secretWith(good)).authenticateToken('abcdef.0123456789abcdee', []), undefined, 'wrong secret');
  t.equal(await auth(secretWith(good, 'Opaque')).authenticateToken(token, []), undefined, 'wrong type');
  t.equal(await auth(secretWith({ ...good, expiration: '2000-01-01T00:00:00Z' })).authenticateToken(token, []), undefined, 'expired');
  t.equal(await auth(secretWith({ ...good, 'usage-bootstrap-authentication': 'false' })).authenticateToken(token, []), undefined, 'not for authentication');
  t.equal(await auth(secretWith({ ...good, 'auth-extra-groups': 'system:masters' })).authenticateToken(token, []), undefined, 'extra group outside system:bootstrappers:');
  t.equal(await auth(secretWith({ ...good, 'token-id': 'zzzzzz' })).authenticateToken(token, []), undefined, 'token-id differs');
});
