/**
 * makeMounts: volumeMounts to host paths (subPath, subPathExpr, readOnly, propagation), the
 * managed /etc/hosts, the hostname and domain; and the runtime helper putting it together.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { PodRuntimeHelper } from '../../src/nodeagent/env/runtime-helper';
import { makeMounts, podHostnameAndDomain } from '../../src/nodeagent/volumes/mounts';
import { VolumeManager, type MountedVolume } from '../../src/nodeagent/volumes/volume-manager';
import type { Pod } from '../../src/nodeagent/types';
import { FakeObjectSources, FakeRecorder } from '../helpers/fake-object-sources';

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mounts-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const pod = (spec: Record<string, unknown> = {}): Pod => ({ kind: 'Pod', metadata: { name: 'web-0', namespace: 'shop', uid: 'uid-1' }, spec: { containers: [], ...spec } });

t.test('volume mounts with subPath, subPathExpr, readOnly and propagation', async (t) => {
  const dir = tmp(t);
  const scratch = path.join(dir, 'scratch');
  fs.mkdirSync(scratch, { mode: 0o777 });
  fs.chmodSync(scratch, 0o777);
  const volumes = new Map<string, MountedVolume>([
    ['scratch', { name: 'scratch', type: 'emptyDir', hostPath: scratch, readOnly: false }],
    ['cfg', { name: 'cfg', type: 'configMap', hostPath: path.join(dir, 'cfg'), readOnly: true }],
  ]);
  const container = {
    name: 'app',
    volumeMounts: [
      { name: 'scratch', mountPath: '/data' },
      { name: 'scratch', mountPath: '/logs', subPathExpr: 'logs/$(POD_NAME)', mountPropagation: 'HostToContainer' },
      { name: 'scratch', mountPath: '/ro', subPath: 'static', readOnly: true },
      { name: 'cfg', mountPath: '/etc/app' },
    ],
  };
  const mounts = makeMounts({ pod: pod(), podDir: path.join(dir, 'pod'), container, hostname: 'web-0', hostDomain: '', podIPs: [], volumes, envs: [{ name: 'POD_NAME', value: 'web-0' }] });
  t.same(mounts, [
    { containerPath: '/data', hostPath: scratch, readOnly: false, propagation: 'None' },
    { containerPath: '/logs', hostPath: path.join(scratch, 'logs/web-0'), readOnly: false, propagation: 'HostToContainer' },
    { containerPath: '/ro', hostPath: path.join(scratch, 'static'), readOnly: true, propagation: 'None' },
    { containerPath: '/etc/app', hostPath: path.join(dir, 'cfg'), readOnly: true, propagation: 'None' },
  ], 'no /etc/hosts before the pod has an IP');
  t.ok(fs.statSync(path.join(scratch, 'logs/web-0')).isDirectory(), 'the subPath is made on the host');
  t.equal(fs.statSync(path.join(scratch, 'logs/web-0')).mode & 0o777, 0o777, 'with the volume mode');

  const mk = (m: Record<string, unknown>, envs: { name: string; value: string }[] = []) => () =>
    makeMounts({ pod: pod(), podDir: dir, container: { name: 'app', volumeMounts: [m] }, hostname: 'h', hostDomain: '', podIPs: [], volumes, envs });
  t.throws(mk({ name: 'scratch', mountPath: '/x', subPathExpr: '$(NOPE)/$(EMPTY)' }, [{ name: 'EMPTY', value: '' }]), { message: 'missing value for EMPTY, NOPE' });
  t.throws(mk({ name: 'scratch', mountPath: '/x', subPath: '/abs' }), { message: 'error SubPath `/abs` must not be an absolute path' });
  t.throws(mk({ name: 'scratch', mountPath: '/x', subPath: 'a/../..' }), { message: "unable to provision SubPath `a/../..`: must not contain '..'" });
  t.throws(mk({ name: 'absent', mountPath: '/x' }), { message: 'cannot find volume "absent" to mount into container "app"' });
});

t.test('the managed /etc/hosts for pod-network pods', async (t) => {
  const dir = tmp(t);
  const p = pod({ hostAliases: [{ ip: '10.0.0.9', hostnames: ['db', 'db.local'] }] });
  const mounts = makeMounts({ pod: p, podDir: dir, container: { name: 'app' }, hostname: 'web-0', hostDomain: 'web.shop.svc.cluster.local', podIPs: ['10.1.0.7'], volumes: new Map(), envs: [] });
  t.same(mounts, [{ containerPath: '/etc/hosts', hostPath: path.join(dir, 'etc-hosts'), readOnly: false }]);
  t.equal(fs.readFileSync(path.join(dir, 'etc-hosts'), 'utf8'), [
    '# Kubernetes-managed hosts file.',
    '127.0.0.1\tlocalhost',
    '::1\tlocalhost ip6-localhost ip6-loopback',
    'fe00::0\tip6-localnet',
    'fe00::0\tip6-mcastprefix',
    'fe00::1\tip6-allnodes',
    'fe00::2\tip6-allrouters',
    '10.1.0.7\tweb-0.web.shop.svc.cluster.local\tweb-0',
    '',
    '# Entries added by HostAliases.',
    '10.0.0.9\tdb\tdb.local',
    '',
  ].join('\n'));

  const own = makeMounts({ pod: p, podDir: dir, container: { name: 'app', volumeMounts: [{ name: 'h', mountPath: '/etc/hosts' }] }, hostname: 'web-0', hostDomain: '', podIPs: ['10.1.0.7'], volumes: new Map([['h', { name: 'h', type: 'hostPath', hostPath: '/etc/hosts', readOnly: false }]]), envs: [] });
  t.equal(own.length, 1, 'a container mounting /etc/hosts itself gets no managed one');

  const hostFile = path.join(dir, 'host-hosts');
  fs.writeFileSync(hostFile, '127.0.0.1 localhost node-a\n');
  makeMounts({ pod: pod({ hostNetwork: true, hostAliases: [{ ip: '1.2.3.4', hostnames: ['x'] }] }), podDir: dir, container: { name: 'app' }, hostname: 'node-a', hostDomain: '', podIPs: ['192.168.1.50'], volumes: new Map(), envs: [], hostHostsFile: hostFile });
  t.equal(fs.readFileSync(path.join(dir, 'etc-hosts'), 'utf8'), '127.0.0.1 localhost node-a\n\n# Entries added by HostAliases.\n1.2.3.4\tx\n', 'host network: the host file plus aliases');
});

t.test('hostname and domain', async (t) => {
  t.same(podHostnameAndDomain(pod(), 'cluster.local'), { hostname: 'web-0', hostDomain: '' });
  t.same(podHostnameAndDomain(pod({ hostname: 'h', subdomain: 'web' }), 'cluster.local'), { hostname: 'h', hostDomain: 'web.shop.svc.cluster.local' });
  t.same(podHostnameAndDomain(pod({ hostname: 'h', subdomain: 'web', setHostnameAsFQDN: true }), 'cluster.local'), { hostname: 'h.web.shop.svc.cluster.local', hostDomain: 'web.shop.svc.cluster.local' });
  const long = { ...pod(), metadata: { name: `${'a'.repeat(62)}-b`, namespace: 'shop', uid: 'u' } };
  t.equal(podHostnameAndDomain(long, 'cluster.local').hostname, 'a'.repeat(62), 'cut to 63, without a trailing dash');
});

t.test('the runtime helper: env, mounts, hostname, pod dir and cgroup parent together', async (t) => {
  const root = tmp(t);
  const sources = new FakeObjectSources();
  sources.configMap('shop', 'settings', { mode: 'fast' });
  const recorder = new FakeRecorder();
  const volumes = new VolumeManager({ rootDir: root, sources, recorder });
  const helper = new PodRuntimeHelper({ sources, recorder, volumes, nodeName: 'node-a', nodeIP: '10.0.0.5', clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', resolvConf: '', cgroupsPerQOS: true, cgroupRoot: '/' });
  const container = { name: 'app', env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }, { name: 'DIR', value: 'd-$(MODE)' }], volumeMounts: [{ name: 'work', mountPath: '/work', subPathExpr: '$(DIR)' }] };
  const p = pod({ enableServiceLinks: false, containers: [container], volumes: [{ name: 'work', emptyDir: {} }] });
  const opts = await helper.generateRunContainerOptions(p, container, ['10.1.0.7']);
  t.same(opts.envs, [{ name: 'MODE', value: 'fast' }, { name: 'DIR', value: 'd-fast' }]);
  t.equal(opts.hostname, 'web-0');
  t.same(opts.mounts.map((m) => [m.containerPath, m.hostPath]), [
    ['/work', path.join(root, 'pods/uid-1/volumes/kubernetes.io~empty-dir/work/d-fast')],
    ['/etc/hosts', path.join(root, 'pods/uid-1/etc-hosts')],
  ]);
  t.equal(helper.getPodDir('uid-1'), path.join(root, 'pods/uid-1'));
  t.equal(helper.getPodCgroupParent(p), '/kubepods/besteffort/poduid-1');
  t.same(helper.getPodDNS(p).searches, ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local']);
  await t.rejects(helper.generateRunContainerOptions(p, { name: 'x', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'gone', key: 'k' } } }] }, []), { message: 'configmap "gone" not found' });
});
