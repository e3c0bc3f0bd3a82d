/** an HTTPS ImageReview backend for tests: denies images under `bad/`, records the reviews it gets */
import fs from 'node:fs';
import path from 'node:path';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import { makeCa, makeCert } from '../helpers/test-pki';

export interface ImagePolicyBackend {
  /** a kubeconfig file naming the backend */
  kubeconfig: string;
  reviews: Array<Record<string, unknown>>;
}

export async function imagePolicyBackend(t: Test, dir: string): Promise<ImagePolicyBackend> {
  const ca = makeCa(dir, 'imagepolicy');
  const cert = makeCert(dir, 'imagepolicy-server', ca, { commonName: 'imagepolicy', ips: ['127.0.0.1'], usage: 'server' });
  const reviews: Array<Record<string, unknown>> = [];
  const server = https.createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const review = JSON.parse(body) as { spec: { containers: Array<{ image: string }> } };
      reviews.push(review);
      const bad = review.spec.containers.find((c) => c.image.startsWith('bad/'));
      const status = bad ? { allowed: false, reason: `image ${bad.image} is not allowed` } : { allowed: true };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'imagepolicy.k8s.io/v1alpha1', kind: 'ImageReview', status }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  const kubeconfig = path.join(dir, 'imagepolicy.kubeconfig');
  fs.writeFileSync(kubeconfig, [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: imagepolicy',
    `  cluster: { server: "https://127.0.0.1:${port}/review", certificate-authority: ${ca.certFile} }`,
    'users:',
    '- name: apiserver',
    '  user: { token: secret }',
    'contexts:',
    '- name: default',
    '  context: { cluster: imagepolicy, user: apiserver }',
    'current-context: default',
    '',
  ].join('\n'));
  return { kubeconfig, reviews };
}
