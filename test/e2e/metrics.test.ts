/**
 * Observability end to end: kubectl reads /metrics (request counts with kube's labels, stored object
 * counts, the database size), a CPU profile from /debug/pprof/profile is V8 .cpuprofile JSON, and
 * --profiling=false takes /debug/pprof away.
 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer } from './harness';

/** the value of one series of the text format, or undefined */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.lastIndexOf('}'));
    if (Object.entries(labels).every(([k, v]) => inner.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

t.test('kubectl get --raw /metrics shows requests and stored objects', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const server = await startApiServer(t, { args: ['--etcd-count-metric-poll-period=200ms', '--etcd-db-metric-poll-interval=200ms'] });
  const k = kubectlFor(t, '1.32', server);
  for (const name of ['one', 'two', 'three']) await k.ok(['create', 'configmap', name, '--from-literal=k=v']);
  await k.ok(['get', 'configmaps']);

  const created = { verb: 'POST', group: '', version: 'v1', resource: 'configmaps', scope: 'resource', component: 'apiserver', code: '201', dry_run: '' };
  const listed = { verb: 'LIST', resource: 'configmaps', scope: 'namespace', component: 'apiserver', code: '200' };
  const first = await k.ok(['get', '--raw', '/metrics']);
  t.match(first, /# TYPE apiserver_request_total counter/);
  t.equal(sample(first, 'apiserver_request_total', created), 3, 'three creates');
  const lists = sample(first, 'apiserver_request_total', listed) ?? 0;
  t.ok(lists >= 1, 'the list is counted');
  t.ok(sample(first, 'apiserver_request_duration_seconds_count', { verb: 'POST', resource: 'configmaps' }), 'creates are timed');
  t.match(first, /apiserver_current_inflight_requests\{request_kind="readOnly"\} \d+/);
  t.match(first, /process_resident_memory_bytes \d+/, "the process's own metrics");
  t.match(first, /etcd_request_duration_seconds_count\{operation="create",type="configmaps"\} \d+/);

  await k.ok(['get', 'configmaps']);
  await k.ok(['create', 'configmap', 'four', '--from-literal=k=v']);
  // the pollers run every 200ms
  await new Promise((r) => setTimeout(r, 600));
  const second = await k.ok(['get', '--raw', '/metrics']);
  t.equal(sample(second, 'apiserver_request_total', created), 4, 'the count grew with one more create');
  t.ok((sample(second, 'apiserver_request_total', listed) ?? 0) > lists, 'and with one more list');
  // kube-root-ca.crt is not published by Ballast's apiserver alone; count what the API lists
  const stored = JSON.parse(await k.ok(['get', 'configmaps', '-A', '-o', 'json'])).items.length;
  t.equal(sample(second, 'apiserver_storage_objects', { resource: 'configmaps' }), stored, 'stored configmaps match the API');
  t.ok((sample(second, 'apiserver_storage_db_total_size_in_bytes', {}) ?? 0) > 0, 'the database size');
  t.ok((sample(second, 'etcd_db_total_size_in_bytes', {}) ?? 0) > 0, "and under kube 1.20's name");

  if (!missingKubectl('1.20')) {
    const old = await kubectlFor(t, '1.20', server).ok(['get', '--raw', '/metrics']);
    t.ok((sample(old, 'apiserver_request_total', created) ?? 0) >= 4, 'kubectl 1.20 reads the same metrics');
  }
});

t.test('a one second CPU profile is V8 .cpuprofile JSON', async (t) => {
  const server = await startApiServer(t);
  const index = await server.request('GET', '/debug/pprof/');
  t.equal(index.status, 200);
  t.match(index.body, /profile/);
  const res = await server.request('GET', '/debug/pprof/profile?seconds=1');
  t.equal(res.status, 200);
  const profile = JSON.parse(res.body);
  t.ok(Array.isArray(profile.nodes) && profile.nodes.length > 0, 'a call tree');
  t.ok(profile.endTime - profile.startTime >= 900_000, 'about one second long (microseconds)');
  const bad = await server.request('GET', '/debug/pprof/profile?seconds=abc');
  t.equal(bad.status, 400);
  t.equal(JSON.parse(bad.body).kind, 'Status');
});

t.test('--profiling=false: /debug/pprof/ is a 404', async (t) => {
  const server = await startApiServer(t, { args: ['--profiling=false'] });
  t.equal((await server.request('GET', '/debug/pprof/')).status, 404);
  t.equal((await server.request('GET', '/debug/pprof/profile?seconds=1')).status, 404);
  t.equal((await server.request('GET', '/metrics')).status, 200, '/metrics stays');
});
