/**
 * The volume manager: each volume type under <root>/pods/<uid>/volumes/kubernetes.io~<plugin>/<name>,
 * kube's errors for missing sources, resync rewriting contents, unmount and orphan cleanup.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { SystemMounter, type Mounter } from '../../src/nodeagent/volumes/mounter';
import { checkHostPathType } from '../../src/nodeagent/volumes/host-path';
import { VolumeManager } from '../../src/nodeagent/volumes/volume-manager';
import type { Pod } from '../../src/nodeagent/types';
import { FakeObjectSources, FakeRecorder } from '../helpers/fake-object-sources';

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'volumes-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** a mounter that records what it would mount, for tests that do not need the kernel */
class FakeMounter implements Mounter {
  mounted = new Set<string>();
  constructor(readonly allowed = true) {}
  canMount() { return this.allowed; }
  async mountTmpfs(dir: string) { this.mounted.add(dir); }
  async unmount(dir: string) { this.mounted.delete(dir); }
  mountPointsUnder(dir: string) { return [...this.mounted].filter((p) => p === dir || p.startsWith(dir + '/')); }
}

function setup(t: Test, mounter: Mounter = new FakeMounter()) {
  const root = tmp(t);
  const sources = new FakeObjectSources();
  const recorder = new FakeRecorder();
  const vm = new VolumeManager({ rootDir: root, sources, recorder, mounter, allocatable: () => ({ cpu: '2', memory: '4Gi' }) });
  return { root, sources, recorder, vm };
}

const pod = (volumes: unknown[], extra: Record<string, unknown> = {}): Pod => ({
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'shop', uid: 'uid-1', labels: { app: 'web' } },
  spec: { serviceAccountName: 'robot', containers: [{ name: 'app', resources: { limits: { memory: '128Mi' } } }], volumes, ...extra },
});

const read = (p: string) => fs.readFileSync(p, 'utf8');
const mode = (p: string) => fs.statSync(p).mode & 0o7777;

t.test('configMap: all keys, binary data, items with paths and modes, defaultMode', async (t) => {
  const { root, sources, vm } = setup(t);
  sources.configMap('shop', 'settings', { 'app.conf': 'x=1', other: 'o' }, { 'logo.bin': Buffer.from([0, 1, 255]).toString('base64') });
  const vols = await vm.mountPod(pod([
    { name: 'all', configMap: { name: 'settings', defaultMode: 0o600 } },
    { name: 'some', configMap: { name: 'settings', items: [{ key: 'app.conf', path: 'conf/app.conf', mode: 0o640 }, { key: 'other', path: 'o.txt' }] } },
  ]));
  const all = path.join(root, 'pods/uid-1/volumes/kubernetes.io~configmap/all');
  t.equal(vols.get('all')?.hostPath, all);
  t.equal(vols.get('all')?.readOnly, true);
  t.equal(read(path.join(all, 'app.conf')), 'x=1');
  t.same([...fs.readFileSync(path.join(all, 'logo.bin'))], [0, 1, 255]);
  t.equal(mode(path.join(all, 'app.conf')), 0o600);
  const some = vols.get('some')?.hostPath as string;
  t.equal(read(path.join(some, 'conf/app.conf')), 'x=1');
  t.equal(mode(path.join(some, 'conf/app.conf')), 0o640);
  t.equal(mode(path.join(some, 'o.txt')), 0o644, 'the default defaultMode');
  t.notOk(fs.existsSync(path.join(some, 'other')));
});

t.test('configMap and secret: missing sources, optional ones, missing keys', async (t) => {
  const { sources, vm, recorder } = setup(t);
  await t.rejects(vm.mountPod(pod([{ name: 'cfg', configMap: { name: 'absent' } }])), { message: 'MountVolume.SetUp failed for volume "cfg" : configmap "absent" not found' });
  t.same(recorder.events.map((e) => [e.reason, e.message]), [['FailedMount', 'MountVolume.SetUp failed for volume "cfg" : configmap "absent" not found']]);
  await t.rejects(vm.mountPod(pod([{ name: 's', secret: { secretName: 'absent' } }])), { message: 'MountVolume.SetUp failed for volume "s" : secret "absent" not found' });
  sources.configMap('shop', 'settings', { a: '1' });
  await t.rejects(vm.mountPod(pod([{ name: 'cfg', configMap: { name: 'settings', items: [{ key: 'b', path: 'b' }] } }])), { message: /configmap references non-existent config key: b/ });
  const vols = await vm.mountPod(pod([
    { name: 'opt', configMap: { name: 'absent', optional: true } },
    { name: 'optkey', configMap: { name: 'settings', optional: true, items: [{ key: 'b', path: 'b' }, { key: 'a', path: 'a' }] } },
  ]));
  t.same(fs.readdirSync(vols.get('opt')?.hostPath as string), ['..data', fs.readlinkSync(path.join(vols.get('opt')?.hostPath as string, '..data'))].sort(), 'an optional missing configMap is an empty volume');
  t.same(fs.readdirSync(vols.get('optkey')?.hostPath as string).filter((n) => !n.startsWith('..')), ['a']);
});

t.test('secret: decoded data with items and modes', async (t) => {
  const { root, sources, vm } = setup(t);
  sources.secret('shop', 'creds', { user: 'admin', pass: 'p@ss' });
  await vm.mountPod(pod([{ name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400, items: [{ key: 'pass', path: 'password' }] } }]));
  const dir = path.join(root, 'pods/uid-1/volumes/kubernetes.io~secret/creds');
  t.equal(read(path.join(dir, 'password')), 'p@ss');
  t.equal(mode(path.join(dir, 'password')), 0o400);
  t.notOk(fs.existsSync(path.join(dir, 'user')));
});

t.test('downwardAPI: fieldRef and resourceFieldRef items', async (t) => {
  const { root, vm } = setup(t);
  await vm.mountPod(pod([{ name: 'info', downwardAPI: { items: [
    { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
    { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
    { path: 'mem', resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' } },
    { path: 'cpu', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu' }, mode: 0o600 },
  ] } }]));
  const dir = path.join(root, 'pods/uid-1/volumes/kubernetes.io~downward-api/info');
  t.equal(read(path.join(dir, 'labels')), 'app="web"');
  t.equal(read(path.join(dir, 'name')), 'web');
  t.equal(read(path.join(dir, 'mem')), '128');
  t.equal(read(path.join(dir, 'cpu')), '2', 'an unset limit is the node allocatable');
  t.equal(mode(path.join(dir, 'cpu')), 0o600);
  await t.rejects(vm.mountPod(pod([{ name: 'info', downwardAPI: { items: [{ path: 'x', resourceFieldRef: { containerName: 'nope', resource: 'limits.cpu' } }] } }])), { message: /cannot find container with name nope/ });
});

t.test('projected: the kube-api-access volume (token, kube-root-ca.crt, namespace)', async (t) => {
  const { root, sources, vm } = setup(t);
  sources.configMap('shop', 'kube-root-ca.crt', { 'ca.crt': 'PEM' });
  await vm.mountPod(pod([{ name: 'kube-api-access-x1', projected: { defaultMode: 0o644, sources: [
    { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
    { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
  ] } }]));
  const dir = path.join(root, 'pods/uid-1/volumes/kubernetes.io~projected/kube-api-access-x1');
  t.same(fs.readdirSync(dir).filter((n) => !n.startsWith('..')).sort(), ['ca.crt', 'namespace', 'token']);
  t.equal(read(path.join(dir, 'token')), 'token-1');
  t.equal(read(path.join(dir, 'ca.crt')), 'PEM');
  t.equal(read(path.join(dir, 'namespace')), 'shop');
  t.same(sources.tokenRequests.map((r) => [r.namespace, r.serviceAccount, r.spec]), [[
    'shop', 'robot', { audiences: [], expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'uid-1' } },
  ]]);
  await t.rejects(vm.mountPod(pod([{ name: 'p', projected: { sources: [{ secret: { name: 'absent' } }] } }])), { message: /secret "absent" not found/ });
});

t.test('resync rewrites contents when sources change; a failing source keeps the old files', async (t) => {
  const { sources, vm } = setup(t);
  sources.configMap('shop', 'settings', { a: '1', b: '2' });
  const p = pod([{ name: 'cfg', configMap: { name: 'settings' } }, { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: "metadata.labels['app']" } }] } }]);
  const vols = await vm.mountPod(p);
  const cfg = vols.get('cfg')?.hostPath as string;
  sources.configMap('shop', 'settings', { a: '10' });
  await vm.resync();
  t.equal(read(path.join(cfg, 'a')), '10');
  t.notOk(fs.existsSync(path.join(cfg, 'b')), 'a removed key disappears');
  await vm.mountPod({ ...p, metadata: { ...p.metadata, labels: { app: 'shop' } } });
  t.equal(read(path.join(vols.get('info')?.hostPath as string, 'labels')), 'shop', 'the newest pod object is used');
  sources.configMaps.clear();
  await vm.resync();
  t.equal(read(path.join(cfg, 'a')), '10');
});

t.test('emptyDir: a 0777 directory; medium Memory as tmpfs when mounting works', async (t) => {
  const mounter = new FakeMounter();
  const { root, vm } = setup(t, mounter);
  const vols = await vm.mountPod(pod([{ name: 'scratch', emptyDir: {} }, { name: 'mem', emptyDir: { medium: 'Memory' } }]));
  t.equal(vols.get('scratch')?.hostPath, path.join(root, 'pods/uid-1/volumes/kubernetes.io~empty-dir/scratch'));
  t.equal(mode(vols.get('scratch')?.hostPath as string), 0o777);
  t.same([...mounter.mounted], [vols.get('mem')?.hostPath]);
  await vm.mountPod(pod([{ name: 'mem', emptyDir: { medium: 'Memory' } }]));
  t.equal(mounter.mounted.size, 1, 'mounted once');
  await vm.unmountPod('uid-1');
  t.equal(mounter.mounted.size, 0, 'unmounted before the directory is removed');
  t.notOk(fs.existsSync(path.join(root, 'pods/uid-1')));

  const { vm: plain } = setup(t, new FakeMounter(false));
  const v = await plain.mountPod(pod([{ name: 'mem', emptyDir: { medium: 'Memory' } }]));
  t.ok(fs.statSync(v.get('mem')?.hostPath as string).isDirectory(), 'without mount rights: a directory');
});

t.test('emptyDir medium Memory on a real tmpfs', { skip: process.getuid?.() !== 0 ? 'needs root to mount tmpfs' : false }, async (t) => {
  const { vm } = setup(t, new SystemMounter());
  const vols = await vm.mountPod(pod([{ name: 'mem', emptyDir: { medium: 'Memory' } }]));
  const dir = vols.get('mem')?.hostPath as string;
  const line = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').find((l) => l.split(' ')[4] === dir);
  t.match(line ?? '', / - tmpfs /);
  await vm.unmountPod('uid-1');
  t.notOk(fs.readFileSync('/proc/self/mountinfo', 'utf8').includes(dir), 'unmounted');
});

t.test('hostPath type checks with kube messages', async (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'f');
  fs.writeFileSync(file, '');
  const sock = path.join(dir, 's.sock');
  const server = net.createServer().listen(sock);
  t.teardown(() => server.close());
  await new Promise((r) => server.once('listening', r));

  checkHostPathType(path.join(dir, 'made/deep'), 'DirectoryOrCreate');
  t.ok(fs.statSync(path.join(dir, 'made/deep')).isDirectory(), 'DirectoryOrCreate makes it');
  t.equal(mode(path.join(dir, 'made/deep')), 0o755);
  checkHostPathType(path.join(dir, 'new-file'), 'FileOrCreate');
  t.ok(fs.statSync(path.join(dir, 'new-file')).isFile(), 'FileOrCreate makes it');
  checkHostPathType(dir, 'Directory');
  checkHostPathType(file, 'File');
  checkHostPathType(sock, 'Socket');
  checkHostPathType('/dev/null', 'CharDevice');
  checkHostPathType(path.join(dir, 'anything'), '');
  t.throws(() => checkHostPathType(file, 'DirectoryOrCreate'), { message: `hostPath type check failed: ${file} is not a directory` });
  t.throws(() => checkHostPathType(path.join(dir, 'absent'), 'Directory'), { message: `hostPath type check failed: ${dir}/absent is not a directory` });
  t.throws(() => checkHostPathType(dir, 'FileOrCreate'), { message: `hostPath type check failed: ${dir} is not a file` });
  t.throws(() => checkHostPathType(dir, 'File'), { message: `hostPath type check failed: ${dir} is not a file` });
  t.throws(() => checkHostPathType(file, 'Socket'), { message: `hostPath type check failed: ${file} is not a socket file` });
  t.throws(() => checkHostPathType(file, 'CharDevice'), { message: `hostPath type check failed: ${file} is not a character device` });
  t.throws(() => checkHostPathType('/dev/null', 'BlockDevice'), { message: 'hostPath type check failed: /dev/null is not a block device' });
  t.throws(() => checkHostPathType(file, 'Weird'), { message: 'Weird is an invalid volume type' });

  const { vm } = setup(t);
  const vols = await vm.mountPod(pod([{ name: 'h', hostPath: { path: dir, type: 'Directory' } }]));
  t.same(vols.get('h'), { name: 'h', type: 'hostPath', hostPath: dir, readOnly: false });
  await t.rejects(vm.mountPod(pod([{ name: 'h', hostPath: { path: file, type: 'Directory' } }])), { message: `MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${file} is not a directory` });
});

t.test('persistentVolumeClaim bound to a hostPath or local PV; unbound claims fail', async (t) => {
  const { sources, vm } = setup(t);
  const dir = tmp(t);
  sources.claims.set('shop/data', { metadata: { name: 'data', namespace: 'shop', uid: 'c-1' }, spec: { volumeName: 'pv-1' }, status: { phase: 'Bound' } });
  sources.volumes.set('pv-1', { metadata: { name: 'pv-1' }, spec: { hostPath: { path: dir }, claimRef: { uid: 'c-1' } } });
  sources.claims.set('shop/local', { metadata: { name: 'local', namespace: 'shop', uid: 'c-2' }, spec: { volumeName: 'pv-2' }, status: { phase: 'Bound' } });
  sources.volumes.set('pv-2', { metadata: { name: 'pv-2' }, spec: { local: { path: dir } } });
  sources.claims.set('shop/pending', { metadata: { name: 'pending', namespace: 'shop' }, spec: {}, status: { phase: 'Pending' } });
  const vols = await vm.mountPod(pod([{ name: 'd', persistentVolumeClaim: { claimName: 'data', readOnly: true } }, { name: 'l', persistentVolumeClaim: { claimName: 'local' } }]));
  t.same(vols.get('d'), { name: 'd', type: 'persistentVolumeClaim', hostPath: dir, readOnly: true });
  t.same(vols.get('l')?.hostPath, dir);
  t.equal(vols.get('l')?.readOnly, false);
  await t.rejects(vm.mountPod(pod([{ name: 'p', persistentVolumeClaim: { claimName: 'pending' } }])), { message: 'MountVolume.SetUp failed for volume "p" : PVC shop/pending has non-bound phase ("Pending") or empty pvc.Spec.VolumeName ("")' });
  await t.rejects(vm.mountPod(pod([{ name: 'p', persistentVolumeClaim: { claimName: 'absent' } }])), { message: /persistentvolumeclaim "absent" not found/ });
});

t.test('orphaned pod directories are removed, active ones kept', async (t) => {
  const { root, vm } = setup(t);
  await vm.mountPod(pod([{ name: 'scratch', emptyDir: {} }]));
  fs.mkdirSync(path.join(root, 'pods/gone-uid/volumes'), { recursive: true });
  t.same(await vm.cleanupOrphanedPods(new Set(['uid-1'])), ['gone-uid']);
  t.ok(fs.existsSync(path.join(root, 'pods/uid-1')));
  t.notOk(fs.existsSync(path.join(root, 'pods/gone-uid')));
});
