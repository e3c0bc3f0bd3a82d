/** round-trip fixtures of certificates.k8s.io v1 and v1beta1 */
import type { Fixtures } from './index';

// index.ts imports this file, so its fixtureMeta is not yet defined when this module loads
const fixtureMeta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: '7c1f0a52-3a3e-4f6b-9d0e-1b2c3d4e5f60',
  resourceVersion: '42',
  creationTimestamp: '2024-05-01T10:00:00Z',
  labels: { app: 'web' },
  annotations: { note: 'round trip' },
});

const pem = (type: string) => Buffer.from(`-----BEGIN ${type}-----\nMIIB\n-----END ${type}-----\n`).toString('base64');

function csr(version: 'v1' | 'v1beta1') {
  const apiVersion = `certificates.k8s.io/${version}`;
  return {
    apiVersion,
    kind: 'CertificateSigningRequest',
    metadata: fixtureMeta('node-csr-abc'),
    spec: {
      request: pem('CERTIFICATE REQUEST'),
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
      expirationSeconds: 86400,
      usages: ['digital signature', 'key encipherment', 'client auth'],
      username: 'system:bootstrap:abcdef',
      uid: 'u-1',
      groups: ['system:bootstrappers', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/pod-name': ['p'], empty: [] },
    },
    status: {
      conditions: [
        { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'approved by the csr approver', lastUpdateTime: '2024-05-01T10:00:01Z', lastTransitionTime: '2024-05-01T10:00:01Z' },
      ],
      certificate: pem('CERTIFICATE'),
    },
  };
}

export const certificatesFixtures: Fixtures = {
  'certificates.k8s.io/v1/CertificateSigningRequest': csr('v1'),
  'certificates.k8s.io/v1beta1/CertificateSigningRequest': csr('v1beta1'),
};
