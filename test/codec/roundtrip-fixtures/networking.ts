/** round-trip fixtures of networking.k8s.io (v1, v1beta1) and extensions/v1beta1 */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';

const tls = [{ hosts: ['shop.example.com', '*.shop.example.com'], secretName: 'shop-tls' }];
const status = {
  loadBalancer: { ingress: [{ ip: '203.0.113.10', ports: [{ port: 443, protocol: 'TCP' }, { port: 80, protocol: 'TCP', error: 'Pending' }] }, { hostname: 'lb.example.com' }] },
};

function betaIngress(apiVersion: string) {
  return {
    apiVersion,
    kind: 'Ingress',
    metadata: { ...fixtureMeta('shop', 'default'), generation: 3 },
    spec: {
      ingressClassName: 'nginx',
      backend: { serviceName: 'default-http', servicePort: 8080 },
      tls,
      rules: [
        {
          host: 'shop.example.com',
          http: {
            paths: [
              { path: '/api', pathType: 'Prefix', backend: { serviceName: 'api', servicePort: 'http' } },
              { path: '/assets', pathType: 'ImplementationSpecific', backend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'assets' } } },
            ],
          },
        },
        { host: '*.shop.example.com' },
      ],
    },
    status,
  };
}

function ingressClass(version: string) {
  return {
    apiVersion: `networking.k8s.io/${version}`,
    kind: 'IngressClass',
    metadata: fixtureMeta('nginx'),
    spec: { controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external', scope: 'Namespace', namespace: 'ingress' } },
  };
}

export const networkingFixtures: Fixtures = {
  'networking.k8s.io/v1/Ingress': {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { ...fixtureMeta('shop', 'default'), generation: 3 },
    spec: {
      ingressClassName: 'nginx',
      defaultBackend: { service: { name: 'default-http', port: { number: 8080 } } },
      tls,
      rules: [
        {
          host: 'shop.example.com',
          http: {
            paths: [
              { path: '/api', pathType: 'Prefix', backend: { service: { name: 'api', port: { name: 'http' } } } },
              { path: '/assets', pathType: 'ImplementationSpecific', backend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'assets' } } },
            ],
          },
        },
        { host: '*.shop.example.com' },
      ],
    },
    status,
  },
  'networking.k8s.io/v1beta1/Ingress': betaIngress('networking.k8s.io/v1beta1'),
  'extensions/v1beta1/Ingress': betaIngress('extensions/v1beta1'),
  'networking.k8s.io/v1/IngressClass': ingressClass('v1'),
  'networking.k8s.io/v1beta1/IngressClass': ingressClass('v1beta1'),
  'networking.k8s.io/v1/NetworkPolicy': {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { ...fixtureMeta('db', 'default'), generation: 1 },
    spec: {
      podSelector: { matchLabels: { app: 'db' } },
      ingress: [
        {
          from: [
            { podSelector: { matchLabels: { app: 'web' } }, namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['shop'] }] } },
            { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } },
          ],
          ports: [{ protocol: 'TCP', port: 5432 }, { protocol: 'UDP', port: 30000, endPort: 32767 }, { protocol: 'TCP', port: 'metrics' }],
        },
        {},
      ],
      egress: [{ to: [{ ipBlock: { cidr: '2001:db8::/32' } }] }],
      policyTypes: ['Ingress', 'Egress'],
    },
  },
};
