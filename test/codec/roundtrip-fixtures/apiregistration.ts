/** apiregistration.k8s.io: one remote APIService per served version (service, caBundle, status) */
import type { Fixtures } from './index';

const apiService = (apiVersion: string) => ({
  apiVersion,
  kind: 'APIService',
  // the metadata is spelled out: index.ts imports this file before its own fixtureMeta exists
  metadata: {
    name: 'v1beta1.metrics.k8s.io',
    uid: '7c1f0a52-3a3e-4f6b-9d0e-1b2c3d4e5f60',
    resourceVersion: '42',
    creationTimestamp: '2024-05-01T10:00:00Z',
    labels: { 'kube-aggregator.kubernetes.io/automanaged': 'true' },
    annotations: { note: 'round trip' },
  },
  spec: {
    service: { namespace: 'kube-system', name: 'metrics-server', port: 443 },
    group: 'metrics.k8s.io',
    version: 'v1beta1',
    caBundle: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64'),
    groupPriorityMinimum: 100,
    versionPriority: 100,
  },
  status: {
    conditions: [
      {
        type: 'Available',
        status: 'False',
        lastTransitionTime: '2024-05-01T10:00:05Z',
        reason: 'FailedDiscoveryCheck',
        message: 'failing or missing response from https://10.96.0.12:443/apis/metrics.k8s.io/v1beta1: bad status from https://10.96.0.12:443/apis/metrics.k8s.io/v1beta1: 503',
      },
    ],
  },
});

export const apiregistrationFixtures: Fixtures = {
  'apiregistration.k8s.io/v1/APIService': apiService('apiregistration.k8s.io/v1'),
  'apiregistration.k8s.io/v1beta1/APIService': apiService('apiregistration.k8s.io/v1beta1'),
};
