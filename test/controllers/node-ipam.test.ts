import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../src/controllers/settings';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

const podCidrs = (n: KubeObject) => ((n.spec ?? {}) as { podCIDRs?: string[] }).podCIDRs;
const node = (name: string, spec: object = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec });

t.test('node IPAM (RangeAllocator) against the real server', async (t) => {
  const server = await startApiServer(t);
  // a node that has its subnet before the controller starts
  const made = await server.request('POST', '/api/v1/nodes', node('old', { podCIDR: '10.244.2.0/24', podCIDRs: ['10.244.2.0/24'] }), { 'Content-Type': 'application/json' });
  t.equal(made.status, 201);
  // 10.244.0.0/22 holds four /24s: the service range takes the first, `old` the third
  const { client, stop } = startControllers(t, server, ['nodeipam'], {
    nodeIpam: { ...DEFAULT_CONTROLLER_SETTINGS.nodeIpam, allocateNodeCidrs: true, clusterCidrs: ['10.244.0.0/22'], serviceClusterIpRange: '10.244.0.0/24' },
  });
  const get = (name: string) => client.get(RESOURCES.nodes, undefined, name);
  const cidrsOf = (name: string) => waitFor(`a CIDR for ${name}`, async () => {
    const n = await get(name);
    return (podCidrs(n)?.length ?? 0) > 0 && n;
  });

  await t.test('two nodes get different /24s, none taken already', async (t) => {
    await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'a' } });
    const a = await cidrsOf('a');
    await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'b' } });
    const b = await cidrsOf('b');
    const got = [podCidrs(a)![0], podCidrs(b)![0]].sort();
    t.same(got, ['10.244.1.0/24', '10.244.3.0/24'], 'not the service range, not the old node\'s');
    t.equal((a.spec as { podCIDR?: string }).podCIDR, podCidrs(a)![0], 'podCIDR is the first of podCIDRs');
  });

  await t.test('an exhausted range: CIDRNotAvailable, and a deleted node\'s subnet is given again', async (t) => {
    await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'c' } });
    const event = await waitFor('CIDRNotAvailable', async () => (await client.list(RESOURCES.events, 'default')).items.find((e) => e.reason === 'CIDRNotAvailable'));
    t.equal(event.message, 'Node c status is now: CIDRNotAvailable');
    t.match(event.source, { component: 'cidrAllocator' });
    const freed = podCidrs(await get('a'))![0];
    await client.delete(RESOURCES.nodes, undefined, 'a');
    // kube tries again on the node's next update
    await client.patch(RESOURCES.nodes, undefined, 'c', 'merge', { metadata: { labels: { retry: 'yes' } } });
    const c = await cidrsOf('c');
    t.same(podCidrs(c), [freed]);
  });

  await t.test('dual stack: one subnet of each family', async (t) => {
    await stop();
    const second = startControllers(t, server, ['nodeipam'], {
      nodeIpam: { ...DEFAULT_CONTROLLER_SETTINGS.nodeIpam, allocateNodeCidrs: true, clusterCidrs: ['10.250.0.0/16', 'fd00:10::/48'] },
    });
    await second.client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'd' } });
    // the first controllers' client is closed: read with the second's
    const cidrs = await waitFor('CIDRs for d', async () => podCidrs(await second.client.get(RESOURCES.nodes, undefined, 'd')));
    t.same(cidrs, ['10.250.0.0/24', 'fd00:10::/64']);
  });
});
