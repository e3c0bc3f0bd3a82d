import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { CNI_CONFIG_FILE, cniConfigList, cniNames, ensureCniConfig } from '../../src/nodeagent/network/cni-config';

t.test('the bridge and the address store are named after the pod CIDR, so agents sharing a host keep apart', async (t) => {
  const a = cniNames('10.42.0.0/24');
  const b = cniNames('10.42.1.0/24');
  t.not(a.bridge, b.bridge);
  t.not(a.network, b.network);
  t.same(cniNames('10.42.0.0/24'), a, 'stable for one range');
  t.ok(a.bridge.length <= 15, 'a Linux interface name');
  const list = cniConfigList('10.42.0.0/24', 1400) as { name: string; plugins: { bridge?: string; mtu?: number; ipam?: { ranges: unknown } }[] };
  t.equal(list.name, a.network);
  t.equal(list.plugins[0].bridge, a.bridge);
  t.equal(list.plugins[0].mtu, 1400);
  t.same(list.plugins[0].ipam?.ranges, [[{ subnet: '10.42.0.0/24' }]]);
});

t.test('ensureCniConfig writes its file, rewrites it for a new range, and leaves a foreign configuration alone', async (t) => {
  const dir = t.testdir({});
  t.equal(ensureCniConfig(dir, '10.42.0.0/24'), 'written');
  t.equal(ensureCniConfig(dir, '10.42.0.0/24'), 'unchanged');
  t.equal(ensureCniConfig(dir, '10.42.3.0/24'), 'written');
  t.match(fs.readFileSync(path.join(dir, CNI_CONFIG_FILE), 'utf8'), cniNames('10.42.3.0/24').bridge);
  const other = t.testdir({ '05-addon.conflist': '{}' });
  t.equal(ensureCniConfig(other, '10.42.0.0/24'), 'foreign');
  t.notOk(fs.existsSync(path.join(other, CNI_CONFIG_FILE)));
});
