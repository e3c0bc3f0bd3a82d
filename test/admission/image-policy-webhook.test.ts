import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeObject } from '../../src/api/kind';
import { pod, write } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { buildAdmission, loadAdmissionConfig } from '../../src/admission/index';
import { Scheme } from '../../src/api/scheme';
import { builtinKinds } from '../../src/api/kinds';
import { admissionFixture } from './admission-fixture';
import { admissionConfigWithPath } from './config-helpers';
import { imagePolicyBackend } from './image-policy-backend';

const withImage = (name: string, image: string, annotations: Record<string, string> = {}): KubeObject => {
  const p = pod(name);
  p.metadata!.annotations = annotations;
  (p.spec as { containers: Array<{ image: string }> }).containers[0].image = image;
  return p;
};

t.test('ImagePolicyWebhook: an ImageReview to the HTTPS backend; denied with its reason; answers cached', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-imagepolicy-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const backend = await imagePolicyBackend(t, dir);
  const configurations = new Map<string, unknown>([['ImagePolicyWebhook', { imagePolicy: { kubeConfigFile: backend.kubeconfig, allowTTL: 50, denyTTL: 50, retryBackoff: 1 } }]]);
  const f = await admissionFixture(['ImagePolicyWebhook'], { configurations });
  t.teardown(() => f.close());
  await f.registry.create(f.target('pods', 'default'), withImage('a', 'good/app', { 'team.image-policy.k8s.io/ticket': '42', other: 'x' }), write);
  t.same(backend.reviews[0], {
    apiVersion: 'imagepolicy.k8s.io/v1alpha1',
    kind: 'ImageReview',
    spec: { containers: [{ image: 'good/app' }], annotations: { 'team.image-policy.k8s.io/ticket': '42' }, namespace: 'default' },
  });
  await rejects(t, f.registry.create(f.target('pods', 'default'), withImage('b', 'bad/app'), write), 403, 'Forbidden',
    'pods "b" is forbidden: image policy webhook backend denied one or more images: image bad/app is not allowed');
  await rejects(t, f.registry.create(f.target('pods', 'default'), withImage('c', 'bad/app'), write), 403, 'Forbidden');
  t.equal(backend.reviews.length, 2, 'the second denial came from the cache');
});

t.test('ImagePolicyWebhook: an unreachable backend refuses, or admits with defaultAllow (marked failed-open)', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-imagepolicy-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = path.join(dir, 'down.kubeconfig');
  fs.writeFileSync(kubeconfig, 'clusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:1/review" }\n');
  for (const defaultAllow of [false, true]) {
    const configurations = new Map<string, unknown>([['ImagePolicyWebhook', { imagePolicy: { kubeConfigFile: kubeconfig, retryBackoff: 1, defaultAllow } }]]);
    const f = await admissionFixture(['ImagePolicyWebhook'], { configurations });
    t.teardown(() => f.close());
    if (!defaultAllow) {
      await rejects(t, f.registry.create(f.target('pods', 'default'), withImage('a', 'x'), write), 403, 'Forbidden', /^pods "a" is forbidden: Post "https:\/\/127\.0\.0\.1:1\/review": .*ECONNREFUSED/);
    } else {
      const res = await f.registry.create(f.target('pods', 'default'), withImage('a', 'x'), write);
      t.equal(res.object.metadata?.annotations?.['alpha.image-policy.k8s.io/failed-open'], 'true');
    }
  }
});

t.test('ImagePolicyWebhook: configuration errors stop start-up naming the file', async (t) => {
  const scheme = new Scheme(builtinKinds());
  t.throws(() => buildAdmission({ scheme, enabled: ['ImagePolicyWebhook'] }), { message: /ImagePolicyWebhook: a configuration with imagePolicy is required/ });
  const { file, ownFile } = admissionConfigWithPath(t, 'ImagePolicyWebhook', 'imagePolicy:\n  kubeConfigFile: missing.kubeconfig\n  allowTTL: 5000\n');
  t.throws(() => buildAdmission({ scheme, enabled: ['ImagePolicyWebhook'], configurations: loadAdmissionConfig(file) }),
    { message: new RegExp(`^admission-control-config-file ${ownFile}: ImagePolicyWebhook: kubeConfigFile .*missing\\.kubeconfig`) });
});
