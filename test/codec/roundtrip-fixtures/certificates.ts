/** round-trip fixtures of certificates.k8s.io v1 and v1beta1 */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';


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
