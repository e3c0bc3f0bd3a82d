/** kubectl get -w while objects change, and paging with --chunk-size, for kubectl 1.32 and 1.20 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import type { KubectlVersion } from './harness';
import { configMap, namespace } from './manifests';

const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];

for (const version of VERSIONS) {
  t.test(`kubectl ${version}`, { skip: missingKubectl(version) ?? false }, async (t) => {
    const server = await startApiServer(t);
    const k = kubectlFor(t, version, server);
    const ns = `watch-${version.replace('.', '-')}`;
    await k.ok(['create', '-f', '-'], namespace(ns));

    t.test('get -w streams ADDED, MODIFIED and DELETED and stays open', async (t) => {
      await k.ok(['create', '-f', '-'], configMap('first', ns, { a: '1' }));
      const watch = k.stream(['get', 'configmaps', '-n', ns, '--watch', '--output-watch-events']);
      t.teardown(() => watch.kill());
      t.match(await watch.waitForLine(/^ADDED\s+first\s+1\s/), /first/, 'the initial list is printed as ADDED');

      await k.ok(['create', '-f', '-'], configMap('second', ns, { a: '1', b: '2' }));
      t.match(await watch.waitForLine(/^ADDED\s+second\s+2\s/), /second/);
      await k.ok(['label', 'configmap', 'first', '-n', ns, 'seen=yes']);
      t.match(await watch.waitForLine(/^MODIFIED\s+first\s/), /first/);
      await k.ok(['delete', 'configmap', 'second', '-n', ns]);
      t.match(await watch.waitForLine(/^DELETED\s+second\s/), /second/);

      // kube keeps a watch open for at least --min-request-timeout; kubectl exits if it closes
      await new Promise((r) => setTimeout(r, 1500));
      t.ok(watch.running, `the watch is still open (stderr: ${watch.stderr})`);
      await watch.kill();
    });

    t.test('get --chunk-size=2 pages through 5 configmaps and returns all of them', async (t) => {
      const pageNs = `${ns}-pages`;
      await k.ok(['create', '-f', '-'], namespace(pageNs));
      for (let i = 1; i <= 5; i++) await k.ok(['create', '-f', '-'], configMap(`page-${i}`, pageNs, { i: String(i) }));
      // -v=6 makes kubectl log each request URL on stderr, which shows the paging
      const r = await k.run(['get', 'configmaps', '-n', pageNs, '--chunk-size=2', '-o', 'name', '-v=6']);
      t.equal(r.code, 0, r.stderr);
      const names = r.stdout.split('\n').filter((l) => l.startsWith('configmap/page-'));
      t.same(names, [1, 2, 3, 4, 5].map((i) => `configmap/page-${i}`));
      const requests = r.stderr.split('\n').filter((l) => /GET https:\S+\/configmaps\?\S*limit=2/.test(l));
      t.equal(requests.length, 3, 'three pages of at most two');
      t.equal(requests.filter((l) => /continue=/.test(l)).length, 2, 'the later pages carry continue tokens');
      t.match(await k.ok(['get', 'configmaps', '-n', pageNs, '--chunk-size=2']), /page-5\s+1\s/, 'the table form pages too');
    });
  });
}
