import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import { nextBoundaryStep, TTL_ANNOTATION, TTL_BOUNDARIES } from '../../src/controllers/ttl/ttl-controller';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

t.test('ttl steps by cluster size, with hysteresis', async (t) => {
  const ttl = (step: number) => TTL_BOUNDARIES[step]!.ttlSeconds;
  t.equal(ttl(nextBoundaryStep(0, 100)), 0, '100 nodes: 0 s');
  t.equal(ttl(nextBoundaryStep(0, 101)), 15, '101 nodes: 15 s');
  t.equal(ttl(nextBoundaryStep(1, 95)), 15, 'back to 95: still 15 s (down only below 90)');
  t.equal(ttl(nextBoundaryStep(1, 89)), 0, 'below 90: 0 s');
  t.equal(ttl(nextBoundaryStep(0, 501)), 30);
  t.equal(ttl(nextBoundaryStep(0, 1001)), 60);
  t.equal(ttl(nextBoundaryStep(0, 2001)), 300);
  t.equal(ttl(nextBoundaryStep(4, 1850)), 300, 'down from 300 s only below 1800');
  t.equal(ttl(nextBoundaryStep(4, 1799)), 60);
});

t.test('ttl controller against the real server', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['ttl']);
  await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  const annotations = await waitFor('the ttl annotation', async () => {
    const a = (await client.get(RESOURCES.nodes, undefined, 'n1')).metadata?.annotations;
    return a?.[TTL_ANNOTATION] !== undefined && a;
  });
  t.equal(annotations[TTL_ANNOTATION], '0', 'a small cluster: 0 s');
  // a changed annotation is put back
  await client.patch(RESOURCES.nodes, undefined, 'n1', 'merge', { metadata: { annotations: { [TTL_ANNOTATION]: '42' } } });
  await waitFor('put back', async () => (await client.get(RESOURCES.nodes, undefined, 'n1')).metadata?.annotations?.[TTL_ANNOTATION] === '0');
  t.pass('restored');
});
