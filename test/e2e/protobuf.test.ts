/**
 * Protobuf end to end against the real server (dist/): kubectl 1.32's protobuf `create` generators
 * and `auth can-i`, then raw application/vnd.kubernetes.protobuf requests as client-go makes them:
 * bodies, lists, Status errors, watch frames, and what stays JSON (Table, /version, patches).
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { load } from 'js-yaml';
import t from 'tap';
import { loadProtoSchema, ProtobufCodec, splitFrames } from '../../src/codec/protobuf';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import type { ApiServerProcess } from './harness';

const PB = 'application/vnd.kubernetes.protobuf';
const codec = new ProtobufCodec({ schema: loadProtoSchema() });
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '..', 'codec', 'fixtures', `kubectl-1.32-${name}.pb`));

interface Reply {
  status: number;
  type: string;
  body: Buffer;
}

/** an HTTPS request with the admin client certificate, the body kept as bytes */
function request(server: ApiServerProcess, method: string, urlPath: string, headers: Record<string, string>, body?: Buffer | string): Promise<Reply> {
  const kc = load(fs.readFileSync(server.kubeconfig, 'utf8')) as any;
  const user = kc.users[0].user;
  const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64');
  return new Promise((resolve, reject) => {
    const req = https.request(`${server.url}${urlPath}`, { method, headers, ca, cert: Buffer.from(user['client-certificate-data'], 'base64'), key: Buffer.from(user['client-key-data'], 'base64') }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

t.test('kubectl 1.32 create generators and auth can-i over protobuf', { skip: missingKubectl('1.32') ?? false }, async (t) => {
  const server = await startApiServer(t);
  const k = kubectlFor(t, '1.32', server);
  t.match(await k.ok(['create', 'deployment', 'x', '--image=nginx']), 'deployment.apps/x created');
  t.match(await k.ok(['create', 'job', 'j1', '--image=busybox', '--', 'echo', 'hi']), 'job.batch/j1 created');
  t.match(await k.ok(['create', 'namespace', 'ns1']), 'namespace/ns1 created');
  t.match(await k.ok(['create', 'configmap', 'cm1', '--from-literal=a=1', '--from-literal=b=two']), 'configmap/cm1 created');
  t.match(await k.ok(['create', 'cronjob', 'cj1', '--image=busybox', '--schedule=*/5 * * * *', '--', 'echo', 'hi']), 'cronjob.batch/cj1 created');
  t.equal((await k.ok(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes');

  const d = load(await k.ok(['get', 'deploy', 'x', '-o', 'yaml'])) as any;
  t.match(d, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'x', namespace: 'default', labels: { app: 'x' }, generation: 1 },
    spec: { replicas: 1, selector: { matchLabels: { app: 'x' } }, strategy: { type: 'RollingUpdate' }, template: { spec: { containers: [{ name: 'nginx', image: 'nginx', imagePullPolicy: 'Always' }] } } },
  });
  t.match(d.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'the server set a creation time over the null kubectl sent');
  const cm = load(await k.ok(['get', 'configmap', 'cm1', '-o', 'yaml'])) as any;
  t.same(cm.data, { a: '1', b: 'two' });
  const cj = load(await k.ok(['get', 'cronjob', 'cj1', '-o', 'yaml'])) as any;
  t.equal(cj.spec.schedule, '*/5 * * * *');
  t.same(cj.spec.jobTemplate.spec.template.spec.containers[0].command, ['echo', 'hi']);
});

t.test('raw protobuf requests', { skip: missingKubectl('1.32') ?? false }, async (t) => {
  const server = await startApiServer(t);
  const CMS = '/api/v1/namespaces/default/configmaps';

  let r = await request(server, 'POST', CMS, { 'Content-Type': PB, Accept: PB }, fixture('create-configmap'));
  t.equal(r.status, 201);
  t.equal(r.type, PB);
  const created = codec.decodeObject(r.body) as any;
  t.match(created, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm1', namespace: 'default' }, data: { a: '1', b: 'two' } });
  t.ok(created.metadata.uid && created.metadata.resourceVersion);

  r = await request(server, 'GET', CMS, { Accept: PB });
  t.equal(r.type, PB);
  const list = codec.decodeObject(r.body) as any;
  t.equal(list.kind, 'ConfigMapList');
  t.ok(list.items.some((i: any) => i.metadata.name === 'cm1'));

  r = await request(server, 'GET', `${CMS}/nope`, { Accept: `${PB}, application/json` });
  t.equal(r.status, 404);
  t.equal(r.type, PB, 'a Status error is protobuf when protobuf was asked for');
  t.match(codec.decodeObject(r.body), { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: 'configmaps "nope" not found' });

  r = await request(server, 'POST', CMS, { 'Content-Type': PB, Accept: 'application/json' }, '{"metadata":{"name":"j"}}');
  t.equal(r.status, 400);
  t.match(JSON.parse(r.body.toString()), {
    reason: 'BadRequest',
    message: 'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"metadata":{"name":"j"}})',
  });

  r = await request(server, 'PATCH', `${CMS}/cm1`, { 'Content-Type': PB, Accept: 'application/json' }, fixture('create-configmap'));
  t.equal(r.status, 415, 'patches are never protobuf');

  r = await request(server, 'GET', CMS, { Accept: `${PB};as=Table;v=v1;g=meta.k8s.io` });
  t.equal(r.status, 406, 'kube has no protobuf Table');
  r = await request(server, 'GET', CMS, { Accept: `${PB};as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io` });
  t.equal(r.type, 'application/json;as=Table;v=v1;g=meta.k8s.io');

  r = await request(server, 'GET', '/version', { Accept: PB });
  t.equal(r.status, 200);
  t.equal(r.type, 'application/json', '/version is JSON whatever is asked');

  // a protobuf watch: ;stream=watch, length-prefixed WatchEvents with enveloped objects
  const frames = await new Promise<{ type: string; buf: Buffer }>((resolve, reject) => {
    const kc = load(fs.readFileSync(server.kubeconfig, 'utf8')) as any;
    const user = kc.users[0].user;
    const req = https.request(`${server.url}${CMS}?watch=true&resourceVersion=0`, {
      headers: { Accept: PB },
      ca: Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64'),
      cert: Buffer.from(user['client-certificate-data'], 'base64'),
      key: Buffer.from(user['client-key-data'], 'base64'),
    }, (res) => {
      let buf = Buffer.alloc(0);
      res.on('data', (c: Buffer) => {
        buf = Buffer.concat([buf, c]);
        if (splitFrames(buf).frames.length >= 1) {
          resolve({ type: String(res.headers['content-type']), buf });
          req.destroy();
        }
      });
    });
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
  t.equal(frames.type, `${PB};stream=watch`);
  const ev = codec.decodeWatchEvent(splitFrames(frames.buf).frames[0]);
  t.equal(ev.type, 'ADDED');
  t.match(ev.object, { kind: 'ConfigMap', metadata: { name: 'cm1' } });
});
