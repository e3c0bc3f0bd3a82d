import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { endpointSliceToV1, endpointSliceToV1beta1 } from '../../../src/api/kinds/discovery/endpointslice-conversion';
import { create, fields, kind } from './helpers';

const slice = (apiVersion: string, endpoints: unknown[], extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion,
  kind: 'EndpointSlice',
  metadata: { name: 'web-abc', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  endpoints,
  ports: [{ name: 'http', port: 80 }],
  ...extra,
});

t.test('v1beta1 topology <-> v1 deprecatedTopology, zone and nodeName, as kube converts', async (t) => {
  const beta = slice('discovery.k8s.io/v1beta1', [
    // zone moves to its field; the hostname label equal to nodeName goes
    { addresses: ['10.0.0.1'], nodeName: 'n1', topology: { 'topology.kubernetes.io/zone': 'z1', 'kubernetes.io/hostname': 'n1', rack: 'r1' } },
    // a hostname label that differs from nodeName stays
    { addresses: ['10.0.0.2'], nodeName: 'n2', topology: { 'kubernetes.io/hostname': 'other' } },
    // only the zone: nothing left in deprecatedTopology
    { addresses: ['10.0.0.3'], topology: { 'topology.kubernetes.io/zone': 'z2' } },
    { addresses: ['10.0.0.4'] },
  ]);
  const v1 = endpointSliceToV1(beta);
  t.same(v1.endpoints, [
    { addresses: ['10.0.0.1'], nodeName: 'n1', zone: 'z1', deprecatedTopology: { rack: 'r1' } },
    { addresses: ['10.0.0.2'], nodeName: 'n2', deprecatedTopology: { 'kubernetes.io/hostname': 'other' } },
    { addresses: ['10.0.0.3'], zone: 'z2' },
    { addresses: ['10.0.0.4'] },
  ]);
  t.same(endpointSliceToV1beta1(v1), beta, 'back to v1beta1 unchanged');
  // v1 -> v1beta1 -> v1: the nodeName becomes a hostname label in v1beta1, then goes again
  const fromV1 = slice('discovery.k8s.io/v1', [{ addresses: ['10.0.0.5'], nodeName: 'n5', zone: 'z5', conditions: { ready: true, serving: true, terminating: false }, hints: { forZones: [{ name: 'z5' }] } }]);
  const asBeta = endpointSliceToV1beta1(fromV1);
  t.same((asBeta.endpoints as any)[0].topology, { 'topology.kubernetes.io/zone': 'z5', 'kubernetes.io/hostname': 'n5' });
  t.same(endpointSliceToV1(asBeta), fromV1);
});

t.test('EndpointSlice defaults, validation and immutability', async (t) => {
  const def = kind('discovery.k8s.io', 'v1', 'EndpointSlice');
  const ok = slice('discovery.k8s.io/v1', [{ addresses: ['10.0.0.1'], hostname: 'pod-1', nodeName: 'node-1' }], { ports: [{ port: 80 }] });
  t.same(create(def, ok), []);
  t.same(ok.ports, [{ port: 80, name: '', protocol: 'TCP' }]);
  t.equal(def.tracksGeneration, true);

  const bad = slice('discovery.k8s.io/v1', [
    { addresses: [] },
    { addresses: ['2001:db8::1', '::ffff:10.0.0.1'], hostname: 'Bad_Host', nodeName: 'Bad/Node' },
  ], { ports: [{ name: 'Http', port: 80 }, { name: 'a', protocol: 'ICMP' }, { name: 'a', appProtocol: 'bad proto' }] });
  t.same(create(def, bad).map((c) => [c.field, c.message.split(':')[0]]), [
    ['endpoints[0].addresses', 'Required value'],
    ['endpoints[1].addresses[0]', 'Invalid value'],
    ['endpoints[1].nodeName', 'Invalid value'],
    ['endpoints[1].hostname', 'Invalid value'],
    ['ports[0].name', 'Invalid value'],
    ['ports[1].protocol', 'Unsupported value'],
    ['ports[2].name', 'Duplicate value'],
    ['ports[2].appProtocol', 'Invalid value'],
  ]);
  t.equal(create(def, bad)[1].message, 'Invalid value: "2001:db8::1": must be a valid IPv4 address');

  const v6 = kind('discovery.k8s.io', 'v1', 'EndpointSlice');
  t.same(fields(create(v6, slice('discovery.k8s.io/v1', [{ addresses: ['10.0.0.1', '2001:db8::1'] }], { addressType: 'IPv6' }))), ['endpoints[0].addresses[0]']);
  t.same(create(def, slice('discovery.k8s.io/v1', [{ addresses: ['web.example.com', 'web.example.com.'] }], { addressType: 'FQDN' })), []);
  t.same(create(def, slice('discovery.k8s.io/v1', [{ addresses: ['localhost'] }], { addressType: 'FQDN' })), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "localhost": should be a domain with at least two segments separated by dots', field: 'endpoints[0].addresses[0]' },
  ]);
  t.same(create(def, slice('discovery.k8s.io/v1', [], { addressType: 'IP' })), [
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"', field: 'addressType' },
  ]);
  const old = slice('discovery.k8s.io/v1', [], { addressType: 'IP', ports: [] });
  t.same(def.strategy.validate(slice('discovery.k8s.io/v1', [], { addressType: 'IP', ports: [] }), old), [], 'the deprecated IP type stays valid on update');
  t.same(fields(def.strategy.validate(slice('discovery.k8s.io/v1', [], { ports: [] }), old)), ['addressType']);

  const many = slice('discovery.k8s.io/v1', Array.from({ length: 1001 }, () => ({ addresses: ['10.0.0.1'] })));
  t.same(create(def, many), [{ reason: 'FieldValueTooMany', message: 'Too many: 1001: must have at most 1000 items', field: 'endpoints' }]);
  const manyAddresses = slice('discovery.k8s.io/v1', [{ addresses: Array.from({ length: 101 }, (_, i) => `10.0.${i >> 8}.${i & 255}`) }]);
  t.same(fields(create(def, manyAddresses)), ['endpoints[0].addresses']);
  t.same(fields(create(def, slice('discovery.k8s.io/v1', [], { ports: Array.from({ length: 101 }, (_, i) => ({ name: `p${i}`, port: 80 })) }))), ['ports']);
  // v1beta1 names the topology map as its own field
  const beta = kind('discovery.k8s.io', 'v1beta1', 'EndpointSlice');
  t.same(fields(create(beta, slice('discovery.k8s.io/v1beta1', [{ addresses: ['10.0.0.1'], topology: { 'bad key!': 'v' } }]))), ['endpoints[0].topology']);
});

t.test('v1 writes drop deprecatedTopology, keeping a node name only the old object knew', async (t) => {
  const def = kind('discovery.k8s.io', 'v1', 'EndpointSlice');
  const created = slice('discovery.k8s.io/v1', [{ addresses: ['10.0.0.1'], deprecatedTopology: { rack: 'r1' } }]);
  def.strategy.prepareForCreate!(created);
  t.same(created.endpoints, [{ addresses: ['10.0.0.1'] }]);
  const old = slice('discovery.k8s.io/v1', [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'kubernetes.io/hostname': 'n1' } }]);
  const unchanged = structuredClone(old);
  def.strategy.prepareForUpdate!(unchanged, old);
  t.same(unchanged.endpoints, old.endpoints, 'unchanged endpoints keep it');
  const changed = slice('discovery.k8s.io/v1', [{ addresses: ['10.0.0.2'], deprecatedTopology: { 'kubernetes.io/hostname': 'n1' } }]);
  def.strategy.prepareForUpdate!(changed, old);
  t.same(changed.endpoints, [{ addresses: ['10.0.0.2'], nodeName: 'n1' }]);
  const beta = kind('discovery.k8s.io', 'v1beta1', 'EndpointSlice');
  t.equal(beta.strategy.prepareForCreate, undefined, 'v1beta1 writes keep their topology');
});

t.test('EndpointSlice table', async (t) => {
  const def = kind('discovery.k8s.io', 'v1', 'EndpointSlice');
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
  const obj = slice('discovery.k8s.io/v1', [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4', '10.0.0.5'] }], {
    ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }, { name: 'named' }, { port: 9090 }],
  });
  t.same(def.table!.cells(obj, new Date()).slice(0, 4), ['web-abc', 'IPv4', '80,443,named + 1 more...', '10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...']);
  t.same(def.table!.cells(slice('discovery.k8s.io/v1', [], { ports: [] }), new Date()).slice(2, 4), ['<unset>', '<unset>']);
});
