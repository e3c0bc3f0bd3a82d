import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { create, kind } from './helpers';

const meta = (name = 'x', namespace: string | undefined = 'default') => ({ name, ...(namespace ? { namespace } : {}) });

t.test('Namespace: finalizer, phase, name label, status field', async (t) => {
  const def = kind('', 'v1', 'Namespace');
  const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: meta('team-a', undefined) };
  t.same(create(def, ns), []);
  t.same(ns.spec, { finalizers: ['kubernetes'] });
  t.same(ns.status, { phase: 'Active' });
  t.same(ns.metadata!.labels, { 'kubernetes.io/metadata.name': 'team-a' });
  t.equal(def.nameValidation, 'dns1123Label');
  t.same(def.selectableFields!(ns), { 'status.phase': 'Active' });
  const update = JSON.parse(JSON.stringify(ns));
  update.spec.finalizers = [];
  def.strategy.prepareForUpdate!(update, ns);
  t.same(update.spec.finalizers, ['kubernetes'], 'finalizers change only through /finalize');
  t.same(def.table!.cells(ns, new Date()).slice(0, 2), ['team-a', 'Active']);
});

t.test('ConfigMap: keys, immutable, table', async (t) => {
  const def = kind('', 'v1', 'ConfigMap');
  const cm: KubeObject = { metadata: meta(), data: { 'a.txt': '1', 'bad key': '2' } };
  t.same(create(def, cm), [
    {
      reason: 'FieldValueInvalid',
      message:
        "Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      field: 'data[bad key]',
    },
  ]);
  const old: KubeObject = { metadata: meta(), data: { a: '1' }, immutable: true };
  t.same(def.strategy.validate({ ...old, data: { a: '2' } }, old), [
    { reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set', field: 'data' },
  ]);
  t.same(def.strategy.validate({ ...old }, old), []);
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Data', 'Age']);
  t.same(def.table!.cells({ metadata: meta(), data: { a: '1' }, binaryData: { b: 'AA==' } }, new Date()).slice(0, 2), ['x', 2]);
});

t.test('Secret: Opaque default, stringData folded, type rules, field label', async (t) => {
  const def = kind('', 'v1', 'Secret');
  const s: KubeObject = { metadata: meta(), stringData: { password: 'hunter2' } };
  t.same(create(def, s), []);
  t.equal(s.type, 'Opaque');
  t.same(s.data, { password: Buffer.from('hunter2').toString('base64') });
  t.equal(s.stringData, undefined);
  t.same(def.selectableFields!(s), { type: 'Opaque' });
  const tls: KubeObject = { metadata: meta(), type: 'kubernetes.io/tls', data: { 'tls.crt': 'AA==' } };
  t.same(create(def, tls), [{ reason: 'FieldValueRequired', message: 'Required value', field: 'data[tls.key]' }]);
  t.match(def.strategy.validate({ ...s, type: 'Other' }, s), [{ field: 'type', message: /field is immutable/ }]);
  t.same(def.table!.cells(s, new Date()).slice(0, 3), ['x', 'Opaque', 1]);
});

t.test('Service: defaults, allocation, validation, clusterIP immutability, table', async (t) => {
  const def = kind('', 'v1', 'Service');
  const svc: KubeObject = { metadata: meta('web'), spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
  t.same(create(def, svc), []);
  const spec = svc.spec as any;
  t.same([spec.type, spec.sessionAffinity, spec.ports[0].protocol, spec.ports[0].targetPort, spec.internalTrafficPolicy], ['ClusterIP', 'None', 'TCP', 80, 'Cluster']);
  t.match(spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
  t.same(spec.clusterIPs, [spec.clusterIP]);
  t.same([spec.ipFamilies, spec.ipFamilyPolicy], [['IPv4'], 'SingleStack']);
  t.equal(def.nameValidation, 'dns1035Label');
  // a replace without clusterIP keeps the allocated one
  const replace: KubeObject = { metadata: meta('web'), spec: { selector: { app: 'web' }, ports: [{ port: 8080 }] } };
  def.strategy.defaults(replace);
  def.strategy.prepareForUpdate!(replace, svc);
  t.equal((replace.spec as any).clusterIP, spec.clusterIP);
  t.same(def.strategy.validate(replace, svc), []);
  const moved = JSON.parse(JSON.stringify(svc));
  moved.spec.clusterIP = '10.96.0.99';
  moved.spec.clusterIPs = ['10.96.0.99'];
  t.match(def.strategy.validate(moved, svc), [{ field: 'spec.clusterIPs[0]', message: /may not change once set$/ }]);
  const np: KubeObject = { metadata: meta('np'), spec: { type: 'NodePort', ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] } };
  t.same(create(def, np), []);
  const nodePort = (np.spec as any).ports[0].nodePort;
  t.ok(nodePort >= 30000 && nodePort <= 32767);
  t.same(def.table!.cells(np, new Date()).slice(1, 5), ['NodePort', (np.spec as any).clusterIP, '<none>', `80:${nodePort}/TCP,443:${(np.spec as any).ports[1].nodePort}/TCP`]);
  const bad: KubeObject = { metadata: meta('b'), spec: { type: 'Weird', ports: [{ port: 80 }, { port: 0 }] } };
  const causes = create(def, bad);
  t.same(causes.map((c) => c.field), ['spec.type', 'spec.ports[0].name', 'spec.ports[1].name', 'spec.ports[1].port', 'spec.ports[1].targetPort']);
  t.same(def.selectableFields!(svc), { 'spec.clusterIP': spec.clusterIP, 'spec.type': 'ClusterIP' });
});

t.test('Node: cluster-scoped, status kept on create, table', async (t) => {
  const def = kind('', 'v1', 'Node');
  t.equal(def.namespaced, false);
  const node: KubeObject = {
    metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/control-plane': '' }, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { unschedulable: true },
    status: {
      capacity: { cpu: '2' },
      conditions: [{ type: 'Ready', status: 'True' }],
      addresses: [{ type: 'InternalIP', address: '192.168.1.2' }],
      nodeInfo: { kubeletVersion: 'v1.32.0' },
    },
  };
  t.same(create(def, node), []);
  t.same((node.status as any).allocatable, { cpu: '2' });
  t.same(def.selectableFields!(node), { 'spec.unschedulable': 'true' });
  t.same(def.table!.cells(node, new Date('2024-01-01T00:00:10Z')), ['n1', 'Ready,SchedulingDisabled', 'control-plane', '10s', 'v1.32.0', '192.168.1.2', '<none>', '<unknown>', '<unknown>', '<unknown>']);
});

t.test('Endpoints, Lease, ResourceQuota, LimitRange, ServiceAccount', async (t) => {
  const ep = kind('', 'v1', 'Endpoints');
  const e: KubeObject = { metadata: meta(), subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }] }] };
  t.same(create(ep, e), []);
  t.equal((e.subsets as any)[0].ports[0].protocol, 'TCP');
  t.equal(ep.table!.cells(e, new Date())[1], '10.0.0.1:80,10.0.0.2:80');
  t.match(create(ep, { metadata: meta(), subsets: [{ addresses: [{ ip: 'nope' }] }] }), [{ field: 'subsets[0].addresses[0].ip' }]);

  const lease = kind('coordination.k8s.io', 'v1', 'Lease');
  t.same(create(lease, { metadata: meta(), spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } }), []);
  t.match(create(lease, { metadata: meta(), spec: { leaseDurationSeconds: 0 } }), [{ field: 'spec.leaseDurationSeconds', message: 'Invalid value: 0: must be greater than 0' }]);
  t.same(lease.table!.cells({ metadata: meta(), spec: { holderIdentity: 'me' } }, new Date()).slice(0, 2), ['x', 'me']);

  const quota = kind('', 'v1', 'ResourceQuota');
  t.same(quota.shortNames, ['quota']);
  const q: KubeObject = { metadata: meta(), status: { hard: { 'requests.cpu': '2', 'limits.cpu': '4', pods: '10' }, used: { pods: '1' } } };
  t.same(quota.table!.cells(q, new Date()).slice(0, 3), ['x', 'pods: 1/10, requests.cpu: 0/2', 'limits.cpu: 0/4']);

  const lr = kind('', 'v1', 'LimitRange');
  const l: KubeObject = { metadata: meta(), spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }] } };
  t.same(create(lr, l), []);
  t.same((l.spec as any).limits[0].default, { cpu: '2' });
  t.same((l.spec as any).limits[0].defaultRequest, { cpu: '2', memory: '64Mi' });
  t.equal(lr.table, undefined, 'kube has no table for limit ranges');

  const sa = kind('', 'v1', 'ServiceAccount');
  t.same(sa.table!.cells({ metadata: meta(), secrets: [{ name: 'a' }] }, new Date()).slice(0, 2), ['x', 1]);
});
