/** apiregistration.k8s.io: one remote APIService per served version (service, caBundle, status) */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';

const apiService = (apiVersion: string) => ({
  apiVersion,
  kind: 'APIService',
  metadata: { ...fixtureMeta('v1beta1.metrics.k8s.io'), labels: { 'kube-aggregator.kubernetes.io/automanaged': 'true' } },
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
