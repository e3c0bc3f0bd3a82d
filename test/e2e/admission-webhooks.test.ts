/**
 * Admission webhooks through the real server and kubectl: a mutating webhook served by the test
 * labels new ConfigMaps with a JSON patch, a validating one refuses some names with its own message
 * and code, and a dry run that would reach a webhook with side effects fails as kube's does.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import { makeCa, makeCert } from '../helpers/test-pki';

type Obj = Record<string, any>;

t.test('mutating and validating webhooks are called for kubectl writes', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-e2e-webhooks-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ca = makeCa(dir, 'hooks');
  const cert = makeCert(dir, 'hook', ca, { commonName: 'hook', dnsNames: ['localhost'], ips: ['127.0.0.1'], usage: 'server' });
  const seen: Obj[] = [];
  const hook = https.createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body) as Obj;
      seen.push({ path: req.url, review });
      const { uid, object } = review.request;
      let response: Obj = { uid, allowed: true };
      if (req.url?.startsWith('/mutate')) {
        const add = object.metadata.labels ? [{ op: 'add', path: '/metadata/labels/mutated-by', value: 'hook' }] : [{ op: 'add', path: '/metadata/labels', value: { 'mutated-by': 'hook' } }];
        response = { ...response, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(add)).toString('base64'), warnings: ['labelled by the test hook'] };
      } else if (String(object.metadata.name).startsWith('forbidden-')) {
        response = { uid, allowed: false, status: { code: 422, message: 'names starting with forbidden- are not welcome' } };
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    hook.closeAllConnections();
    hook.close();
  });
  const port = (hook.address() as AddressInfo).port;
  const caBundle = Buffer.from(ca.cert).toString('base64');
  const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
  const webhook = (name: string, p: string, sideEffects = 'None') => ({
    name,
    clientConfig: { url: `https://127.0.0.1:${port}${p}`, caBundle },
    rules,
    sideEffects,
    admissionReviewVersions: ['v1'],
    objectSelector: { matchExpressions: [{ key: 'skip-hooks', operator: 'DoesNotExist' }] },
  });

  const server = await startApiServer(t);
  const k = kubectlFor(t, '1.32', server);
  const apply = (doc: Obj) => k.ok(['apply', '-f', '-'], JSON.stringify(doc));
  await apply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'label' }, webhooks: [webhook('label.test.ballast.io', '/mutate')] });
  await apply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'names' }, webhooks: [webhook('names.test.ballast.io', '/validate')] });

  // the plugins follow the configurations through a watch: wait until the first call arrives
  for (let i = 0; i < 50 && !seen.some((s) => String(s.path).startsWith('/mutate')); i++) {
    await k.run(['create', 'configmap', `probe-${i}`]);
    if (!seen.some((s) => String(s.path).startsWith('/mutate'))) await new Promise((r) => setTimeout(r, 200));
  }
  const welcome = await k.run(['create', 'configmap', 'welcome', '--from-literal=a=b']);
  t.equal(welcome.code, 0);
  t.match(welcome.stderr, 'Warning: labelled by the test hook', 'the webhook\'s warning reaches kubectl');
  t.equal((await k.ok(['get', 'configmap', 'welcome', '-o', 'jsonpath={.metadata.labels.mutated-by}'])).trim(), 'hook', 'the mutating webhook\'s patch is stored');
  const review = seen.find((s) => String(s.path).startsWith('/mutate') && s.review.request.name === 'welcome')!.review;
  t.match(review.request, { operation: 'CREATE', namespace: 'default', resource: { group: '', version: 'v1', resource: 'configmaps' }, userInfo: { username: 'ballast-admin' }, dryRun: false });

  const refused = await k.run(['create', 'configmap', 'forbidden-one']);
  t.not(refused.code, 0);
  t.match(refused.stderr, 'admission webhook "names.test.ballast.io" denied the request: names starting with forbidden- are not welcome');
  t.equal((await k.run(['get', 'configmap', 'forbidden-one'])).code, 1, 'nothing stored');

  t.match(await k.ok(['create', 'configmap', 'dry', '--dry-run=server', '-o', 'jsonpath={.metadata.labels.mutated-by}']), 'hook', 'dry runs call side-effect-free webhooks');
  // admissionregistration v1 allows only side-effect-free webhooks; v1beta1 still takes Some
  await apply({ apiVersion: 'admissionregistration.k8s.io/v1beta1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'names' }, webhooks: [webhook('names.test.ballast.io', '/validate', 'Some')] });
  let dry = await k.run(['create', 'configmap', 'dry2', '--dry-run=server']);
  for (let i = 0; i < 30 && !/does not support dry run/.test(dry.stderr); i++) {
    await new Promise((r) => setTimeout(r, 200));
    dry = await k.run(['create', 'configmap', 'dry2', '--dry-run=server']);
  }
  t.match(dry.stderr, 'admission webhook "names.test.ballast.io" does not support dry run');
  await k.ok(['create', 'configmap', 'untouched', '--dry-run=client', '-o', 'yaml']);
  t.pass('client-side dry runs never reach the server');
});
