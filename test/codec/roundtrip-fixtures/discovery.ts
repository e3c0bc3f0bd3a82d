/** round-trip fixtures of discovery.k8s.io v1 and v1beta1 */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';

const common = (apiVersion: string) => ({
  apiVersion,
  kind: 'EndpointSlice',
  metadata: { ...fixtureMeta('web-x7k2p', 'default'), generation: 2, labels: { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } },
  addressType: 'IPv4',
  ports: [{ name: 'http', protocol: 'TCP', port: 80, appProtocol: 'kubernetes.io/h2c' }, { name: '', protocol: 'UDP' }],
});

const target = { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'a1b2' };
const hints = { forZones: [{ name: 'zone-a' }], forNodes: [{ name: 'node-1' }] };

export const discoveryFixtures: Fixtures = {
  'discovery.k8s.io/v1/EndpointSlice': {
    ...common('discovery.k8s.io/v1'),
    endpoints: [
      {
        addresses: ['10.244.1.5'],
        conditions: { ready: true, serving: true, terminating: false },
        hostname: 'web-1',
        targetRef: target,
        nodeName: 'node-1',
        zone: 'zone-a',
        deprecatedTopology: { rack: 'r1' },
        hints,
      },
      { addresses: ['10.244.2.9'], conditions: { ready: false } },
    ],
  },
  'discovery.k8s.io/v1beta1/EndpointSlice': {
    ...common('discovery.k8s.io/v1beta1'),
    endpoints: [
      {
        addresses: ['10.244.1.5'],
        conditions: { ready: true, serving: true, terminating: false },
        hostname: 'web-1',
        targetRef: target,
        nodeName: 'node-1',
        topology: { 'kubernetes.io/hostname': 'node-1', 'topology.kubernetes.io/zone': 'zone-a', rack: 'r1' },
        hints,
      },
      { addresses: ['10.244.2.9'], conditions: { ready: false } },
    ],
  },
};
