import t from 'tap';
import { budgetStatus, countHealthy, DELETION_TIMEOUT_MS, desiredHealthyOf, pendingDisruptions } from '../../src/controllers/disruption/budget';
import type { KubeObject } from '../../src/client/types';

const pod = (name: string, ready = true, deleting = false): KubeObject => ({
  metadata: { name, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

t.test('desired healthy: ints, percentages rounded up, maxUnavailable never below 0', async (t) => {
  t.same(desiredHealthyOf({ minAvailable: 2 }, 5), { expectedCount: 5, desiredHealthy: 2 });
  t.same(desiredHealthyOf({ minAvailable: '50%' }, 2, 3), { expectedCount: 3, desiredHealthy: 2 });
  t.same(desiredHealthyOf({ maxUnavailable: '50%' }, 2, 3), { expectedCount: 3, desiredHealthy: 1 });
  t.same(desiredHealthyOf({ maxUnavailable: 5 }, 2, 3), { expectedCount: 3, desiredHealthy: 0 });
});

t.test('pending disruptions expire after two minutes; gone or deleting pods leave the map', async (t) => {
  const now = Date.parse('2026-01-01T00:10:00Z');
  const recent = new Date(now - 1000).toISOString();
  const old = new Date(now - DELETION_TIMEOUT_MS - 1000).toISOString();
  const r = pendingDisruptions([pod('a'), pod('b'), pod('c', true, true)], { a: recent, b: old, c: recent, gone: recent }, now);
  t.same(r.pending, { a: recent });
  t.same(r.expired.map((p) => p.metadata?.name), ['b']);
  t.equal(r.recheckAt, now - 1000 + DELETION_TIMEOUT_MS);
  t.equal(countHealthy([pod('a'), pod('b'), pod('c', true, true), pod('d', false)], r.pending), 1, 'only b: a is pending, c deleting, d unready');
});

t.test('disruptions allowed: healthy above desired, 0 without expected pods', async (t) => {
  t.equal(budgetStatus({ pending: {}, currentHealthy: 3, desiredHealthy: 1, expectedCount: 3 }).disruptionsAllowed, 2);
  t.equal(budgetStatus({ pending: {}, currentHealthy: 1, desiredHealthy: 2, expectedCount: 3 }).disruptionsAllowed, 0);
  t.equal(budgetStatus({ pending: {}, currentHealthy: 3, desiredHealthy: 0, expectedCount: 0 }).disruptionsAllowed, 0);
});
