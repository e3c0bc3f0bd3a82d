import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { LiveServiceAllocator, parseServiceRange } from '../../../src/api/service-allocator/live';
import { openStore } from '../../../src/storage/open';

const svc = (ip: string, ...nodePorts: number[]) => ({ spec: { clusterIP: ip, clusterIPs: [ip], ports: nodePorts.map((nodePort, i) => ({ port: 80 + i, nodePort })) } });

t.test('ranges: network and broadcast excluded, bad and odd sizes refused', async (t) => {
  t.same(parseServiceRange('10.96.0.0/12'), { cidr: '10.96.0.0/12', first: (10 << 24) + (96 << 16) + 1, last: (10 << 24) + (111 << 16) + (255 << 8) + 254 });
  t.equal(parseServiceRange('10.0.0.7/29').cidr, '10.0.0.0/29', 'host bits dropped');
  t.throws(() => parseServiceRange('10.0.0.0'), /invalid CIDR address: 10.0.0.0/);
  t.throws(() => parseServiceRange('10.0.0.0/30'), /too small/);
  t.throws(() => parseServiceRange('10.0.0.0/8'), /too large/);
});

t.test('cluster IPs: unique, the first kept for the kubernetes service, requested ones checked, freed on delete', async (t) => {
  let now = 0;
  const a = new LiveServiceAllocator({ range: parseServiceRange('10.0.0.0/29'), ports: { min: 30000, max: 30002 }, clock: () => now });
  t.equal(a.firstIP, '10.0.0.1');
  const byService = new Map<string, string>();
  for (let i = 0; i < 5; i++) byService.set(`ns/s${i}`, a.allocateIP(`ns/s${i}`));
  const got = new Set(byService.values());
  t.same([...got].sort(), ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6'], 'every usable address once, never .1');
  t.throws(() => a.allocateIP('ns/s5'), /range is full/);
  t.equal(a.refuseIP('10.0.0.1', 'default/kubernetes'), undefined, 'the first address may be requested');
  t.equal(a.refuseIP('10.0.0.9', 'ns/x'), 'the provided IP (10.0.0.9) is not in the valid range. The range of valid IPs is 10.0.0.0/29');
  const s0 = byService.get('ns/s0')!;
  const s1 = byService.get('ns/s1')!;
  t.equal(a.refuseIP(s0, 'ns/x'), 'provided IP is already allocated', 'reserved by another write');
  t.equal(a.refuseIP(s0, 'ns/s0'), undefined, 'a write asking again for its own reservation');
  // reservations expire; stored services hold their values until deleted
  now += 61_000;
  a.observe('ns/s0', svc(s0));
  t.equal(a.refuseIP(s0, 'ns/other'), 'provided IP is already allocated', 'held by a stored service');
  t.equal(a.refuseIP(s1, 'ns/other'), undefined, 'an expired reservation is free again');
  a.observe('ns/s0', undefined);
  t.equal(a.refuseIP(s0, 'ns/again'), undefined, 'freed when the service is deleted');
  a.observe('ns/ext', { spec: { type: 'ExternalName', externalName: 'x.example' } });
});

t.test('node ports: unique within the range, requested ones checked, own ports free on update', async (t) => {
  const a = new LiveServiceAllocator({ range: parseServiceRange('10.0.0.0/24'), ports: { min: 30000, max: 30002 } });
  a.observe('ns/held', svc('10.0.0.9', 30000));
  const p1 = a.allocateNodePort('ns/web/0/http');
  const p2 = a.allocateNodePort('ns/web/1/https');
  t.not(p1, p2, 'two ports of one service differ');
  t.same([p1, p2].sort(), [30001, 30002]);
  t.throws(() => a.allocateNodePort('ns/other/0/'), /range is full/);
  t.equal(a.refuseNodePort(30000, 'ns/x'), 'provided port is already allocated');
  t.equal(a.refuseNodePort(31000, 'ns/x'), 'provided port is not in the valid range. The range of valid ports is 30000-30002');
});

t.test('claims in storage: two allocators (two API servers) on one database never hand out one value twice', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-claims-'));
  const store = await openStore(`sqlite://${dir}/state.db`);
  t.teardown(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  let now = 1_000_000;
  const make = () => {
    const al = new LiveServiceAllocator({ range: parseServiceRange('10.0.0.0/29'), ports: { min: 30000, max: 30001 }, clock: () => now });
    al.useStore(store);
    t.teardown(() => al.stop());
    return al;
  };
  const a = make();
  const b = make();
  const service = (ns: string, name: string, uid: string, ip: string, nodePort?: number) => ({
    metadata: { namespace: ns, name, uid },
    spec: { clusterIP: ip, clusterIPs: [ip], ports: nodePort ? [{ port: 80, nodePort }] : [] },
  });
  const claims = async () => (await store.list('/registry/ranges/')).items.map((kv) => `${kv.key} ${JSON.parse(kv.value).owner}`);

  // A hands out an address and claims it; B, which has not seen A's service, picks until it finds the same one
  const ipA = a.allocateIP('ns/a');
  const svcA = service('ns', 'a', 'uid-a', ipA);
  await a.claim(svcA);
  a.settled('ns/a');
  let ipB = b.allocateIP('ns/b');
  while (ipB !== ipA) {
    b.release('ns/b');
    ipB = b.allocateIP('ns/b');
  }
  const svcB = service('ns', 'b', 'uid-b', ipB);
  await b.claim(svcB);
  t.not(svcB.spec.clusterIP, ipA, 'B replaced the address A had claimed');
  t.same(svcB.spec.clusterIPs, [svcB.spec.clusterIP]);
  t.same((await claims()).sort(), [`/registry/ranges/serviceips/${ipA} ns/a`, `/registry/ranges/serviceips/${svcB.spec.clusterIP} ns/b`].sort());
  b.settled('ns/b');

  // a requested address another server claimed: 422, as a taken address is
  t.equal(b.refuseIP(ipA, 'ns/c'), 'provided IP is already allocated', 'B learned that the address is taken');
  const c = make();
  t.equal(c.refuseIP(ipA, 'ns/c'), undefined, 'a third server that knows nothing yet accepts it in memory');
  await t.rejects(c.claim(service('ns', 'c', 'uid-c', ipA)), { code: 422, message: /spec.clusterIPs: Invalid value: \[\]string\{"10.0.0.\d"\}: failed to allocate IP 10.0.0.\d: provided IP is already allocated/ });
  c.release('ns/c');

  // node ports the same way; a failed write gives its claims back
  const withPort = service('ns', 'd', 'uid-d', '', 30000);
  withPort.spec.clusterIPs = [];
  await a.claim(withPort);
  t.ok((await claims()).includes('/registry/ranges/servicenodeports/30000 ns/d'));
  a.release('ns/d');
  await new Promise((r) => setTimeout(r, 50));
  t.notOk((await claims()).some((x) => x.includes('servicenodeports/30000')), 'a failed write gave its claim back');

  // the informer sees a service deleted: its claims go, but only while they still name it
  a.observe('ns/a', svcA as never);
  a.observe('ns/a', undefined);
  await new Promise((r) => setTimeout(r, 50));
  t.notOk((await claims()).some((x) => x.endsWith(' ns/a')), "a deleted service's claim is removed");

  // a claim left behind (a server died between claim and write) goes at repair once it is old enough
  await store.create('/registry/ranges/servicenodeports/30001', JSON.stringify({ owner: 'ns/dead', uid: 'x', at: now }));
  t.equal(await a.repairClaims(), 0, 'young claims stay: they may be writes in flight');
  now += 61_000;
  b.observe('ns/b', svcB as never);
  t.equal(await b.repairClaims(), 1, 'the left-behind claim, old now, is removed; the held one stays');
  t.same(await claims(), [`/registry/ranges/serviceips/${svcB.spec.clusterIP} ns/b`]);
});
