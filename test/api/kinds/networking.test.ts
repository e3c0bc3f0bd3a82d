import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { ingressBetaToV1, ingressV1ToBeta } from '../../../src/api/kinds/networking/ingress-conversion';
import { cidrContains, parseCIDR, parseIP } from '../../../src/api/kinds/networking/ip';
import { create, fields, kind } from './helpers';

const v1Ingress = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) },
  spec,
});

const betaIngress = (apiVersion: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion,
  kind: 'Ingress',
  metadata: { name: 'web', namespace: 'default' },
  spec,
});

const svc = (name: string, port: Record<string, unknown>) => ({ service: { name, port } });

t.test('Ingress beta <-> v1 conversion: backends, default backend, resource backends', async (t) => {
  const beta = betaIngress('networking.k8s.io/v1beta1', {
    ingressClassName: 'nginx',
    backend: { serviceName: 'default-http', servicePort: 80 },
    tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
    rules: [
      {
        host: 'a.example.com',
        http: {
          paths: [
            { path: '/api', pathType: 'Prefix', backend: { serviceName: 'api', servicePort: 'http' } },
            { path: '/static', pathType: 'ImplementationSpecific', backend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'assets' } } },
          ],
        },
      },
    ],
  });
  const v1 = ingressBetaToV1(beta);
  t.same(v1.spec, {
    ingressClassName: 'nginx',
    defaultBackend: svc('default-http', { number: 80 }),
    tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
    rules: [
      {
        host: 'a.example.com',
        http: {
          paths: [
            { path: '/api', pathType: 'Prefix', backend: svc('api', { name: 'http' }) },
            { path: '/static', pathType: 'ImplementationSpecific', backend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'assets' } } },
          ],
        },
      },
    ],
  });
  t.equal(v1.apiVersion, 'networking.k8s.io/v1');
  const back = ingressV1ToBeta(v1, 'networking.k8s.io/v1beta1');
  // kube's beta JSON keeps the zero servicePort of a resource backend (Go's IntOrString is a struct)
  const expected = structuredClone(beta);
  ((expected.spec as any).rules[0].http.paths[1].backend as any).servicePort = 0;
  t.same(back, expected);
  t.same(ingressBetaToV1(back), v1, 'v1 -> beta -> v1 loses nothing');
  // a string port is a port name even when it looks like a number, as in kube
  t.same(ingressBetaToV1(betaIngress('extensions/v1beta1', { backend: { serviceName: 's', servicePort: '8080' } })).spec, { defaultBackend: svc('s', { name: '8080' }) });
});

t.test('Ingress v1: defaults none, pathType required, validation of hosts, paths and backends', async (t) => {
  const def = kind('networking.k8s.io', 'v1', 'Ingress');
  const ok = v1Ingress({ rules: [{ host: '*.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: svc('web', { number: 80 }) }] } }] });
  t.same(create(def, ok), []);
  t.same(ok.status, { loadBalancer: {} }, 'PrepareForCreate resets status');
  const noType = v1Ingress({ rules: [{ http: { paths: [{ path: '/', backend: svc('web', { number: 80 }) }] } }] });
  t.same(create(def, noType), [
    { reason: 'FieldValueRequired', message: 'Required value: pathType must be specified', field: 'spec.rules[0].http.paths[0].pathType' },
  ]);
  t.same(create(def, v1Ingress({})), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified', field: 'spec' },
  ]);
  const bad = v1Ingress({
    defaultBackend: { service: { name: 'Web', port: { name: 'http', number: 80 } } },
    rules: [
      { host: '10.0.0.1', http: { paths: [{ path: 'relative', pathType: 'Exact', backend: svc('web', {}) }] } },
      { host: 'a.*.com', http: { paths: [{ path: '/a//b/..', pathType: 'Prefix', backend: { ...svc('web', { number: 70000 }), resource: { kind: 'X', name: 'y' } } }] } },
      { host: 'ok.example.com', http: { paths: [{ path: 'x', pathType: 'Regex', backend: {} }] } },
      { host: 'empty.example.com', http: { paths: [] } },
    ],
    tls: [{ hosts: ['*.example.com', 'Bad_Host'], secretName: 'Not_A_Name' }],
    ingressClassName: 'Bad_Class',
  });
  t.same(fields(create(def, bad)), [
    'spec.defaultBackend.service.name',
    'spec.defaultBackend',
    'spec.rules[0].host',
    'spec.rules[0].http.paths[0].path',
    'spec.rules[0].http.paths[0].backend',
    'spec.rules[1].host',
    'spec.rules[1].http.paths[0].path',
    'spec.rules[1].http.paths[0].path',
    'spec.rules[1].http.paths[0].backend',
    'spec.rules[2].http.paths[0].pathType',
    'spec.rules[2].http.paths[0].backend',
    'spec.rules[3].http.paths',
    'spec.tls[0].hosts[1]',
    'spec.tls[0].secretName',
    'spec.ingressClassName',
  ]);
  const messages = create(def, bad).map((c) => c.message);
  t.ok(messages.includes('Invalid value: "": cannot set both port name & port number'));
  t.ok(messages.includes('Invalid value: "10.0.0.1": must be a DNS name, not an IP address'));
  t.ok(messages.includes('Invalid value: "/a//b/..": must not contain \'//\''));
  t.ok(messages.includes('Invalid value: "/a//b/..": cannot end with \'/..\''));
  t.ok(messages.includes('Invalid value: "": cannot set both resource and service backends'));
  t.ok(messages.includes('Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"'));
  t.ok(messages.includes('Invalid value: "": resource or service backend is required'));
  t.ok(messages.includes('Required value: port name or number is required'));
});

t.test('Ingress: the 1.20 class annotation rule and the tolerances of old objects and beta versions', async (t) => {
  const def = kind('networking.k8s.io', 'v1', 'Ingress');
  const both = v1Ingress({ ingressClassName: 'nginx', defaultBackend: svc('web', { number: 80 }) }, { 'kubernetes.io/ingress.class': 'nginx' });
  t.same(create(def, structuredClone(both)), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "nginx": can not be set when the class field is also set', field: 'annotations.kubernetes.io/ingress.class' },
  ]);
  t.same(def.strategy.validate(structuredClone(both), structuredClone(both)), [], 'only a create is refused');
  t.same(create(def, v1Ingress({ defaultBackend: svc('web', { number: 80 }) }, { 'kubernetes.io/ingress.class': 'nginx' })), [], 'the annotation alone is fine');

  // an invalid secret name: refused in v1, tolerated when the stored object already had one, and in the betas
  const badSecret = v1Ingress({ defaultBackend: svc('web', { number: 80 }), tls: [{ secretName: 'Bad_Name' }] });
  t.same(fields(create(def, structuredClone(badSecret))), ['spec.tls[0].secretName']);
  t.same(def.strategy.validate(structuredClone(badSecret), structuredClone(badSecret)), []);
  const beta = kind('networking.k8s.io', 'v1beta1', 'Ingress');
  t.same(create(beta, betaIngress('networking.k8s.io/v1beta1', { backend: { serviceName: 'web', servicePort: 80 }, tls: [{ secretName: 'Bad_Name' }] })), []);
  // invalid rules under a wildcard host: tolerated in the betas only
  const wildcard = { host: '*.example.com', http: { paths: [{ path: 'rel', pathType: 'Exact', backend: { serviceName: 'web', servicePort: 80 } }] } };
  t.same(create(beta, betaIngress('networking.k8s.io/v1beta1', { rules: [wildcard] })), []);
});

t.test('Ingress beta versions: pathType defaults to ImplementationSpecific, field names of the version', async (t) => {
  for (const [group, apiVersion] of [['networking.k8s.io', 'networking.k8s.io/v1beta1'], ['extensions', 'extensions/v1beta1']]) {
    const def = kind(group, 'v1beta1', 'Ingress');
    const obj = betaIngress(apiVersion, { rules: [{ http: { paths: [{ path: '/', backend: { serviceName: 'web', servicePort: 80 } }] } }] });
    t.same(create(def, obj), [], apiVersion);
    t.equal((obj.spec as any).rules[0].http.paths[0].pathType, 'ImplementationSpecific');
    t.same(create(def, betaIngress(apiVersion, {})), [
      { reason: 'FieldValueInvalid', message: 'Invalid value: []networking.IngressRule(nil): either `backend` or `rules` must be specified', field: 'spec' },
    ]);
    t.same(fields(create(def, betaIngress(apiVersion, { backend: { serviceName: 'Web', servicePort: 'Bad_Port' } }))), ['spec.backend.serviceName', 'spec.backend.servicePort']);
    t.same(fields(create(def, betaIngress(apiVersion, { backend: { serviceName: 'web', servicePort: 0 } }))), ['spec.backend']);
    t.same(fields(create(def, betaIngress(apiVersion, { backend: { servicePort: 99999 } }))), ['spec.backend.serviceName', 'spec.backend.servicePort']);
    // stored as v1, read back as the beta form
    const stored = def.toStorage!(obj);
    t.equal(stored.apiVersion, 'networking.k8s.io/v1');
    t.same(def.fromStorage!(stored), obj);
  }
});

t.test('Ingress status validation and table', async (t) => {
  const def = kind('networking.k8s.io', 'v1', 'Ingress');
  const obj = v1Ingress({
    ingressClassName: 'nginx',
    rules: ['a.example.com', '', 'b.example.com', 'c.example.com', 'd.example.com'].map((host) => ({ ...(host ? { host } : {}) })),
    tls: [{ hosts: ['a.example.com'] }],
  });
  obj.metadata!.creationTimestamp = '2024-05-01T10:00:00Z';
  obj.status = { loadBalancer: { ingress: [{ ip: '10.0.0.9' }, { hostname: 'lb.example.com' }, { ip: '10.0.0.9' }] } };
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
  t.same(def.table!.cells(obj, new Date('2024-05-01T10:05:00Z')), ['web', 'nginx', 'a.example.com,b.example.com,c.example.com + 2 more...', '10.0.0.9,lb.example.com', '80, 443', '5m']);
  t.same(def.table!.cells(v1Ingress({ rules: [{}] }), new Date()).slice(1, 5), ['<none>', '*', '', '80']);
  const beta = kind('extensions', 'v1beta1', 'Ingress');
  t.same(beta.table!.cells(betaIngress('extensions/v1beta1', { ingressClassName: 'x', rules: [{ host: 'h.example.com' }] }), new Date()).slice(0, 3), ['web', 'x', 'h.example.com']);
  t.same(
    def.strategy.validateStatus!({ ...obj, status: { loadBalancer: { ingress: [{ ip: 'nope' }, { hostname: '10.1.1.1' }] } } }, obj),
    [
      { reason: 'FieldValueInvalid', message: 'Invalid value: "nope": must be a valid IP address', field: 'status.loadBalancer.ingress[0].ip' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "10.1.1.1": must be a DNS name, not an IP address', field: 'status.loadBalancer.ingress[1].hostname' },
    ],
  );
});

t.test('IngressClass: scope default, controller rules, parameters, table, same fields in both versions', async (t) => {
  const def = kind('networking.k8s.io', 'v1', 'IngressClass');
  const ic = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx' }, spec });
  const obj = ic({ controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' } });
  t.same(create(def, obj), []);
  t.equal((obj.spec as any).parameters.scope, 'Cluster');
  t.same(def.table!.cells(obj, new Date()).slice(0, 3), ['nginx', 'k8s.io/ingress-nginx', 'IngressParameters.k8s.example.com/external-lb']);
  t.same(def.table!.cells(ic({ controller: 'a.io/b' }), new Date()).slice(2, 3), ['<none>']);
  t.same(create(def, ic({ controller: 'nginx' })), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")', field: 'spec.controller' },
  ]);
  t.same(create(def, ic({})), [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.controller' }]);
  t.same(fields(create(def, ic({ controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Namespace' } }))), ['spec.parameters.namespace']);
  t.same(fields(create(def, ic({ controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Cluster', namespace: 'x' } }))), ['spec.parameters.namespace']);
  t.same(fields(create(def, ic({ controller: 'a.io/b', parameters: { kind: '', name: 'a/b', scope: 'Everywhere' } }))), ['spec.parameters.kind', 'spec.parameters.name', 'spec.parameters.scope']);
  t.same(def.strategy.validate(ic({ controller: 'b.io/c' }), ic({ controller: 'a.io/b' })), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "b.io/c": field is immutable', field: 'spec.controller' },
  ]);
  const beta = kind('networking.k8s.io', 'v1beta1', 'IngressClass');
  t.same(beta.fromStorage!(def.toStorage!(obj)), { ...obj, apiVersion: 'networking.k8s.io/v1beta1' });
});

t.test('NetworkPolicy: defaults, ports and ranges, peers, ipBlock, policy types, table', async (t) => {
  const def = kind('networking.k8s.io', 'v1', 'NetworkPolicy');
  const np = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'db', namespace: 'default' }, spec });
  const obj = np({
    podSelector: { matchLabels: { app: 'db' } },
    ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } }, namespaceSelector: {} }], ports: [{ port: 5432 }, { port: 30000, endPort: 32767 }] }],
    egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }],
  });
  t.same(create(def, obj), []);
  t.same((obj.spec as any).policyTypes, ['Ingress', 'Egress']);
  t.same((obj.spec as any).ingress[0].ports, [{ port: 5432, protocol: 'TCP' }, { port: 30000, endPort: 32767, protocol: 'TCP' }]);
  const onlyIngress = np({ podSelector: {} });
  create(def, onlyIngress);
  t.same((onlyIngress.spec as any).policyTypes, ['Ingress']);
  const bad = np({
    podSelector: {},
    ingress: [
      {
        ports: [{ port: 80, endPort: 70 }, { port: 'http', endPort: 90 }, { endPort: 1 }, { protocol: 'ICMP', port: 0 }],
        from: [{}, { ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }, { ipBlock: { cidr: '10.0.0.0/33' } }, { ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.0.0/8', 'x', '10.0.1.0/24'] } }],
      },
    ],
    policyTypes: ['Ingress', 'Sideways'],
  });
  t.same(create(def, bad).map((c) => [c.field, c.message]), [
    ['spec.ingress[0].ports[0].endPort', 'Invalid value: 70: must be greater than or equal to `port`'],
    ['spec.ingress[0].ports[1].endPort', 'Invalid value: 90: may not be specified when `port` is non-numeric'],
    ['spec.ingress[0].ports[2].endPort', 'Invalid value: 1: may not be specified when `port` is not specified'],
    ['spec.ingress[0].ports[3].protocol', 'Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"'],
    ['spec.ingress[0].ports[3].port', 'Invalid value: 0: must be between 1 and 65535, inclusive'],
    ['spec.ingress[0].from[0]', 'Required value: must specify a peer'],
    ['spec.ingress[0].from[1]', 'Forbidden: may not specify both ipBlock and another peer'],
    ['spec.ingress[0].from[2].ipBlock.cidr', 'Invalid value: "10.0.0.0/33": not a valid CIDR'],
    ['spec.ingress[0].from[3].ipBlock.except[0]', 'Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`'],
    ['spec.ingress[0].from[3].ipBlock.except[1]', 'Invalid value: "x": not a valid CIDR'],
    ['spec.policyTypes[1]', 'Unsupported value: "Sideways": supported values: "Ingress", "Egress"'],
  ]);
  t.same(fields(create(def, np({ podSelector: {}, policyTypes: ['Ingress', 'Egress', 'Ingress'] }))), ['spec.policyTypes']);
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Pod-Selector', 'Age']);
  t.same(def.table!.cells(obj, new Date()).slice(0, 2), ['db', 'app=db']);
  t.same(def.table!.cells(onlyIngress, new Date()).slice(0, 2), ['db', '<none>']);
});

t.test('IP and CIDR parsing as Go reads them', async (t) => {
  t.same(parseIP('10.0.0.1'), { family: 4, value: 167772161n });
  t.equal(parseIP('::ffff:10.0.0.1')?.family, 4, 'IPv4-mapped counts as IPv4');
  t.equal(parseIP('2001:db8::1')?.family, 6);
  t.equal(parseIP('fe80::1%eth0'), undefined);
  t.equal(parseIP('10.0.0'), undefined);
  const outer = parseCIDR('2001:db8::/32')!;
  t.ok(cidrContains(outer, parseCIDR('2001:db8:1::/48')!));
  t.notOk(cidrContains(outer, parseCIDR('2001:db9::/48')!));
  t.notOk(cidrContains(parseCIDR('10.0.0.0/8')!, parseCIDR('2001:db8::/48')!));
  t.equal(parseCIDR('10.1.2.3/8')?.network, 167772160n, 'host bits are cleared');
  t.equal(parseCIDR('10.0.0.0/+8'), undefined);
});
