import t from 'tap';
import pino from 'pino';
import { makeFixture } from '../helpers/registry-fixture';
import { IDENTITY_LABEL, IdentityLeaseController, identityLeaseName } from '../../src/server/identity-lease';

const logger = pino({ level: 'silent' });

t.test('the lease name is kube\'s hash of the host name', async (t) => {
  // computed independently: base32(sha256(len16 "node-1" len16 "kube-apiserver")[:16]), lower case
  t.equal(identityLeaseName('node-1'), 'apiserver-lgabes5ywnaqeagh5dny4zlzs4');
});

t.test('created, renewed, and expired leases collected', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const kind = f.scheme.byResource('coordination.k8s.io', 'v1', 'leases')!;
  let now = new Date('2024-05-01T10:00:00.000Z');
  const c = new IdentityLeaseController({ registry: f.registry, kind, logger, durationSeconds: 60, renewIntervalSeconds: 10, hostname: 'node-1', clock: () => now });
  await c.renew();
  const target = { kind, namespace: 'kube-system', name: 'apiserver-lgabes5ywnaqeagh5dny4zlzs4' };
  const lease = await f.registry.get(target, {});
  t.same(lease.metadata?.labels, { [IDENTITY_LABEL]: 'kube-apiserver', 'kubernetes.io/hostname': 'node-1' });
  t.match(lease.spec, { holderIdentity: c.holderIdentity, leaseDurationSeconds: 60, renewTime: '2024-05-01T10:00:00.000000Z' });
  t.match(c.holderIdentity, /^apiserver-lgabes5ywnaqeagh5dny4zlzs4_[0-9a-f-]{36}$/);

  now = new Date('2024-05-01T10:00:30.000Z');
  await c.renew();
  t.match((await f.registry.get(target, {})).spec, { renewTime: '2024-05-01T10:00:30.000000Z' });

  // another server that stopped renewing long ago
  const other = new IdentityLeaseController({ registry: f.registry, kind, logger, durationSeconds: 60, renewIntervalSeconds: 10, hostname: 'node-2', clock: () => new Date('2024-05-01T09:00:00.000Z') });
  await other.renew();
  t.same(await c.collectExpired(), [other.name]);
  t.same(await c.collectExpired(), [], 'a live lease is kept');
  t.ok(await f.registry.get(target, {}));
});
