/** A validating webhook with a CONNECT rule on pods/exec is called with the PodExecOptions and may refuse */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { makeFixture, write } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { makeCa, makeCert } from '../helpers/test-pki';
import { webhookAdmissionPlugins } from '../../src/admission/webhook';
import { connectOptions } from '../../src/http/handlers/connect-admission';

type Obj = Record<string, unknown>;

t.test('CONNECT pods/exec reaches a validating webhook', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-exec-hook-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ca = makeCa(dir, 'hook');
  const serving = makeCert(dir, 'serving', ca, { commonName: 'hook', ips: ['127.0.0.1'], usage: 'server' });
  const reviews: Obj[] = [];
  const server = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj;
      reviews.push(review);
      const request = review.request as { uid: string; object: { command?: string[] } };
      const allowed = request.object.command?.[0] !== 'rm';
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: request.uid, allowed, status: allowed ? undefined : { message: 'no rm' } } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const k = f.scheme.byResource('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations')!;
  await f.registry.create({ kind: k }, {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'exec' },
    webhooks: [{
      name: 'exec.example.com',
      clientConfig: { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/exec`, caBundle: Buffer.from(ca.cert).toString('base64') },
      rules: [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec'] }],
      sideEffects: 'None', admissionReviewVersions: ['v1'],
    }],
  }, write);
  const plugin = webhookAdmissionPlugins.ValidatingAdmissionWebhook({ registry: f.registry, scheme: f.scheme });
  t.teardown(() => plugin.close());
  await plugin.ready();
  const connect = (subresource: string, query: string) => plugin.validate({
    operation: 'CONNECT', kind: f.kind('pods'), subresource, namespace: 'default', name: 'web',
    object: connectOptions(subresource === 'exec' ? 'PodExecOptions' : 'PodAttachOptions', new URLSearchParams(query)), dryRun: false,
    user: { name: 'alice', groups: ['system:authenticated'] },
  });
  await connect('exec', 'command=ls&stdout=true');
  t.match(reviews[0], {
    request: {
      kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'exec', name: 'web', namespace: 'default', operation: 'CONNECT',
      object: { kind: 'PodExecOptions', apiVersion: 'v1', command: ['ls'], stdout: true },
      oldObject: null,
    },
  });
  await rejects(t, connect('exec', 'command=rm&command=-rf'), 403, 'Forbidden', /admission webhook "exec.example.com" denied the request: no rm/);
  await connect('attach', 'stdin=true');
  t.equal(reviews.length, 2, 'attach does not match the rule');
});
