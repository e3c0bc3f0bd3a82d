/**
 * One server start with klog file logging (--logtostderr=false --log-dir) and several feature
 * gates off: the files klog would write, and the gated behaviours as clients see them.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { MAIN_JS, startApiServer, tempDir, waitFor } from './harness';

const built = fs.existsSync(MAIN_JS);

t.test('--log-dir files and feature gates turned off', { skip: !built && 'run make build first' }, async (t) => {
  const logDir = tempDir(t, 'logs');
  const server = await startApiServer(t, {
    args: [
      '--logtostderr=false',
      `--log-dir=${logDir}`,
      '--log-flush-frequency=200ms',
      '-v=4',
      // accepted but not acted on: the start-up warning about it is a WARNING entry
      '--contention-profiling',
      '--feature-gates=APIListChunking=false,RemainingItemCount=false,ServerSideApply=false,EphemeralContainers=false,APIResponseCompression=false,APIPriorityAndFairness=false',
    ],
  });

  // APIListChunking off: limit is ignored, the whole list comes back without continue
  const list = await server.request('GET', '/api/v1/namespaces?limit=1');
  t.equal(list.status, 200);
  const body = JSON.parse(list.body) as { items: unknown[]; metadata: Record<string, unknown> };
  t.ok(body.items.length > 1, `${body.items.length} namespaces`);
  t.equal(body.metadata.continue, undefined);
  t.equal(body.metadata.remainingItemCount, undefined);
  // APIPriorityAndFairness off: the plain in-flight limits, no APF headers
  t.equal(list.headers['x-kubernetes-pf-flowschema-uid'], undefined);

  // ServerSideApply off: 415
  const apply = await server.request('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=me', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n', {
    'Content-Type': 'application/apply-patch+yaml',
  });
  t.equal(apply.status, 415, apply.body);
  t.match(apply.body, /"reason":"UnsupportedMediaType"/);

  // EphemeralContainers off: the subresource of an existing pod is 404
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
  t.equal((await server.request('POST', '/api/v1/namespaces/default/pods', JSON.stringify(pod), { 'Content-Type': 'application/json' })).status, 201);
  t.equal((await server.request('GET', '/api/v1/namespaces/default/pods/p')).status, 200);
  t.equal((await server.request('GET', '/api/v1/namespaces/default/pods/p/ephemeralcontainers')).status, 404);

  // APIResponseCompression off: the OpenAPI document (far over 128 KiB) is not gzipped
  const openapi = await server.request('GET', '/openapi/v2', undefined, { 'Accept-Encoding': 'gzip', Accept: 'application/json' });
  t.equal(openapi.status, 200);
  t.equal(openapi.headers['content-encoding'], undefined);

  // klog's files: per severity, with <program>.<SEVERITY> symlinks to them
  const info = path.join(logDir, 'ballast-apiserver.INFO');
  const warning = path.join(logDir, 'ballast-apiserver.WARNING');
  await waitFor('the INFO log to hold the request lines', () => fs.existsSync(info) && fs.readFileSync(info, 'utf8').includes('/api/v1/namespaces'), 10_000);
  t.match(fs.readlinkSync(info), new RegExp(`^ballast-apiserver\\.[^.]+\\.[^.]+\\.log\\.INFO\\.\\d{8}-\\d{6}\\.${server.pid}$`));
  t.match(fs.readFileSync(info, 'utf8'), /^Log file created at: /);
  t.match(fs.readFileSync(warning, 'utf8'), /accepted but have no effect yet/);
  t.notMatch(fs.readFileSync(warning, 'utf8'), /\/api\/v1\/namespaces/, 'the WARNING file has no info entries');
  t.notMatch(server.output, /accepted but have no effect yet/, 'below --stderrthreshold (ERROR): not on standard error');

  // what is logged while shutting down reaches the file at exit
  await server.stop('SIGTERM');
  t.match(fs.readFileSync(info, 'utf8'), /Shutdown requested/);
});
