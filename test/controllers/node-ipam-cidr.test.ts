import t from 'tap';
import { CidrSet, formatIp, parseCidr, parseIp } from '../../src/controllers/nodeipam/cidr-set';
import { nodeMaskSizes, parseClusterCidrs } from '../../src/controllers/nodeipam/mask-sizes';
import { buildCidrSets } from '../../src/controllers/nodeipam/range-allocator';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../src/controllers/settings';

t.test('addresses and prefixes', async (t) => {
  t.equal(formatIp(4, parseIp('10.244.3.7')!.value), '10.244.3.7');
  t.equal(formatIp(6, parseIp('fd00:10::1')!.value), 'fd00:10::1');
  t.equal(formatIp(6, parseIp('::')!.value), '::');
  t.equal(formatIp(6, parseIp('2001:db8:0:0:1:0:0:1')!.value), '2001:db8::1:0:0:1');
  t.same(parseCidr('10.244.3.7/16'), { family: 4, base: parseIp('10.244.0.0')!.value, prefix: 16 }, 'host bits cleared');
  t.throws(() => parseCidr('10.244.0.0/33'));
  t.throws(() => parseCidr('300.1.1.1/8'));
});

t.test('a cluster CIDR hands out distinct node subnets, round from the last', async (t) => {
  const set = new CidrSet('10.244.0.0/16', 24);
  t.equal(set.maxCidrs, 256);
  t.equal(set.allocateNext(), '10.244.0.0/24');
  t.equal(set.allocateNext(), '10.244.1.0/24');
  set.release('10.244.0.0/24');
  t.equal(set.allocateNext(), '10.244.2.0/24', 'goes on from the last one, not back to a released one');
  set.occupy('10.244.3.0/24');
  t.equal(set.allocateNext(), '10.244.4.0/24', 'occupied subnets are skipped');
  t.throws(() => set.occupy('10.245.0.0/24'), /out the range/);
});

t.test('exhaustion and release', async (t) => {
  const set = new CidrSet('10.0.0.0/23', 24);
  set.allocateNext();
  set.allocateNext();
  t.throws(() => set.allocateNext(), { message: 'CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range' });
  set.release('10.0.1.0/24');
  t.equal(set.allocateNext(), '10.0.1.0/24');
  t.throws(() => new CidrSet('10.0.0.0/8', 25), /too big/, 'more than 2^16 subnets');
});

t.test('IPv6 node subnets', async (t) => {
  const set = new CidrSet('fd00:10::/48', 64);
  t.equal(set.allocateNext(), 'fd00:10::/64');
  t.equal(set.allocateNext(), 'fd00:10:0:1::/64');
});

t.test('the service range is never handed out', async (t) => {
  const sets = buildCidrSets({ ...DEFAULT_CONTROLLER_SETTINGS.nodeIpam, allocateNodeCidrs: true, clusterCidrs: ['10.96.0.0/22'], serviceClusterIpRange: '10.96.0.0/24' });
  t.equal(sets[0]!.allocateNext(), '10.96.1.0/24');
  // a service range larger than the cluster CIDR takes all of it
  const all = buildCidrSets({ ...DEFAULT_CONTROLLER_SETTINGS.nodeIpam, allocateNodeCidrs: true, clusterCidrs: ['10.96.0.0/23'], serviceClusterIpRange: '10.96.0.0/12' });
  t.throws(() => all[0]!.allocateNext());
});

t.test('mask sizes: kube defaults and flag rules', async (t) => {
  const none = { nodeCidrMaskSize: 0, nodeCidrMaskSizeIpv4: 0, nodeCidrMaskSizeIpv6: 0 };
  t.same(nodeMaskSizes(parseClusterCidrs(['10.244.0.0/16']), none), [24]);
  t.same(nodeMaskSizes(parseClusterCidrs(['fd00::/48']), none), [64]);
  t.same(nodeMaskSizes(parseClusterCidrs(['10.244.0.0/16,fd00::/48']), none), [24, 64], 'dual stack: one per family');
  t.same(nodeMaskSizes(parseClusterCidrs(['10.244.0.0/16']), { ...none, nodeCidrMaskSize: 26 }), [26]);
  t.same(nodeMaskSizes(parseClusterCidrs(['10.244.0.0/16', 'fd00::/48']), { ...none, nodeCidrMaskSizeIpv4: 25, nodeCidrMaskSizeIpv6: 60 }), [25, 60]);
  t.throws(() => nodeMaskSizes(parseClusterCidrs(['10.244.0.0/16', 'fd00::/48']), { ...none, nodeCidrMaskSize: 24 }), /not allowed with dual-stack/);
  t.throws(() => nodeMaskSizes(parseClusterCidrs(['10.244.0.0/16']), { ...none, nodeCidrMaskSizeIpv6: 64 }), /single-stack IPv4/);
  t.throws(() => parseClusterCidrs([]), /Must specify --cluster-cidr/);
  t.throws(() => parseClusterCidrs(['10.0.0.0/16', '10.1.0.0/16']), /one IPv4 and one IPv6/);
});
