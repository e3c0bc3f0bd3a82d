/**
 * JSON -> protobuf -> JSON for a realistic object of every served kind (and the meta types), with the
 * values kube keeps: explicit zeros of pointer fields, int-or-string both ways, quantities, times,
 * micro times, embedded JSON, maps of strings, bytes and messages, lists.
 */
import t from 'tap';
import { builtinKinds } from '../../src/api/kinds';
import { apiVersionOf } from '../../src/api/scheme';
import * as fx from '../schema/fixtures';
import { assertRoundTrip, codec } from './helpers';
import { groupFixtures } from './roundtrip-fixtures';

const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: '7c1f0a52-3a3e-4f6b-9d0e-1b2c3d4e5f60',
  resourceVersion: '42',
  creationTimestamp: '2024-05-01T10:00:00Z',
  labels: { app: 'web', 'app.kubernetes.io/part-of': 'shop' },
  annotations: { note: 'with "quotes" and\nnewlines' },
});

/** quantities written as JSON numbers come back as kube writes them: strings */
function quantitiesAsStrings<T>(obj: T): T {
  const out = structuredClone(obj) as Record<string, unknown>;
  const walk = (v: unknown, key = ''): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) o[k] = walk(o[k], k);
      return o;
    }
    return typeof v === 'number' && ['cpu', 'memory', 'divisor', 'storage'].includes(key) ? String(v) : v;
  };
  return walk(out) as T;
}

const sar = (kind: string, apiVersion = 'authorization.k8s.io/v1') => ({
  apiVersion,
  kind,
  metadata: { creationTimestamp: null, ...(kind === 'LocalSubjectAccessReview' ? { namespace: 'default' } : {}) },
  spec: {
    resourceAttributes: { namespace: 'default', verb: 'create', group: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' },
    ...(kind === 'SelfSubjectAccessReview' ? {} : { user: 'jane', groups: ['dev', 'system:authenticated'], uid: 'u-1', extra: { scopes: ['a', 'b'], empty: [] } }),
  },
  status: { allowed: false, denied: true, reason: 'no RBAC rule' },
});

/** one realistic object per served kind, keyed by apiVersion/kind */
const objects: Record<string, Record<string, unknown>> = {
  'v1/Namespace': { apiVersion: 'v1', kind: 'Namespace', metadata: meta('shop'), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
  'v1/Pod': quantitiesAsStrings(fx.pod()),
  'v1/Node': {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: meta('node-1'),
    spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'], taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }], unschedulable: true },
    status: {
      capacity: { cpu: '4', memory: '16Gi', pods: '110' },
      allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2024-05-01T10:00:00Z', lastTransitionTime: '2024-05-01T09:00:00Z', reason: 'KubeletReady', message: 'ok' }],
      addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'node-1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1', osImage: 'Debian', containerRuntimeVersion: 'containerd://1.7', kubeletVersion: 'v1.32.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
      images: [{ names: ['nginx:1.27'], sizeBytes: 67108864 }],
    },
  },
  'v1/ConfigMap': { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('settings', 'default'), data: { 'app.yaml': 'a: 1\n', empty: '' }, binaryData: { blob: Buffer.from([0, 1, 2, 255]).toString('base64') }, immutable: false },
  'v1/Secret': { apiVersion: 'v1', kind: 'Secret', metadata: meta('tls', 'default'), type: 'kubernetes.io/tls', data: { 'tls.crt': Buffer.from('cert').toString('base64'), 'tls.key': '' }, immutable: true },
  'v1/Service': fx.service(),
  'v1/ServiceAccount': { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('web', 'default'), secrets: [{ name: 'web-token' }], imagePullSecrets: [{ name: 'registry' }], automountServiceAccountToken: false },
  'v1/Event': {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta('web.17a', 'default'),
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'p1', apiVersion: 'v1', resourceVersion: '3', fieldPath: 'spec.containers{web}' },
    reason: 'Pulled',
    message: 'pulled',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2024-05-01T10:00:00Z',
    lastTimestamp: '2024-05-01T10:00:09Z',
    count: 3,
    type: 'Normal',
    eventTime: '2024-05-01T10:00:00.123456Z',
    series: { count: 2, lastObservedTime: '2024-05-01T10:00:08.000001Z' },
    action: 'Pull',
    reportingComponent: 'kubelet',
    reportingInstance: 'node-1',
  },
  'v1/Endpoints': {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: meta('web', 'default'),
    subsets: [{ addresses: [{ ip: '10.244.1.7', nodeName: 'node-1', targetRef: { kind: 'Pod', name: 'web', namespace: 'default' } }], notReadyAddresses: [{ ip: '10.244.1.8' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
  },
  'v1/LimitRange': {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: meta('limits', 'default'),
    spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { cpu: '10m' }, default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' }, maxLimitRequestRatio: { cpu: '10' } }] },
  },
  'v1/ResourceQuota': {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: meta('quota', 'default'),
    spec: { hard: { pods: '10', 'requests.cpu': '4' }, scopes: ['NotTerminating'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } },
    status: { hard: { pods: '10' }, used: { pods: '0' } },
  },
  'apps/v1/Deployment': quantitiesAsStrings(fx.deployment()),
  'apps/v1/DaemonSet': fx.daemonSet(),
  'apps/v1/ReplicaSet': {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { ...meta('web-7d4b9c', 'default'), ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd1', controller: true, blockOwnerDeletion: true }] },
    spec: { replicas: 0, minReadySeconds: 5, selector: { matchLabels: { app: 'web' } }, template: { metadata: { creationTimestamp: null, labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    status: { replicas: 0, observedGeneration: 2 },
  },
  'apps/v1/StatefulSet': fx.statefulSet(),
  'apps/v1/ControllerRevision': { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: meta('db-5d8', 'default'), data: { spec: { template: { metadata: { labels: { app: 'db' } } } }, list: [1, 'two', null, true] }, revision: 3 },
  'batch/v1/Job': fx.job(),
  'batch/v1/CronJob': fx.cronJob('batch/v1'),
  'batch/v1beta1/CronJob': fx.cronJob('batch/v1beta1'),
  'coordination.k8s.io/v1/Lease': {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: meta('node-1', 'kube-node-lease'),
    spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, acquireTime: '2024-05-01T10:00:00.000000Z', renewTime: '2024-05-01T10:00:30.250000Z', leaseTransitions: 0 },
  },
  'events.k8s.io/v1/Event': {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: meta('web.17b', 'default'),
    eventTime: '2024-05-01T10:00:00.000001Z',
    series: { count: 4, lastObservedTime: '2024-05-01T10:01:00.500000Z' },
    reportingController: 'kubelet',
    reportingInstance: 'node-1',
    action: 'Pull',
    reason: 'Pulled',
    regarding: { kind: 'Pod', name: 'web', namespace: 'default' },
    note: 'pulled',
    type: 'Normal',
    deprecatedSource: { component: 'kubelet' },
    deprecatedFirstTimestamp: '2024-05-01T10:00:00Z',
    deprecatedCount: 4,
  },
  'autoscaling/v1/Scale': { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: meta('web', 'default'), spec: { replicas: 2 }, status: { replicas: 3, selector: 'app=web' } },
  'authorization.k8s.io/v1/SelfSubjectAccessReview': sar('SelfSubjectAccessReview'),
  'authorization.k8s.io/v1/SubjectAccessReview': sar('SubjectAccessReview'),
  'authorization.k8s.io/v1/LocalSubjectAccessReview': sar('LocalSubjectAccessReview'),
  ...groupFixtures,
};

t.test('every served kind has a protobuf message and its list', async (t) => {
  for (const k of builtinKinds()) {
    const apiVersion = apiVersionOf(k);
    t.ok(codec.messageFor(apiVersion, k.kind), `${apiVersion} ${k.kind}`);
    // kube has no list type for create-only kinds (there is no BindingList)
    if ((k.verbs ?? ['list']).includes('list')) t.ok(codec.messageFor(apiVersion, k.listKind), `${apiVersion} ${k.listKind}`);
    t.ok(objects[`${apiVersion}/${k.kind}`], `a round-trip fixture for ${apiVersion} ${k.kind}`);
  }
});

t.test('round trip of a realistic object of every kind', async (t) => {
  for (const [key, obj] of Object.entries(objects)) {
    t.test(key, async (t) => {
      assertRoundTrip(t, obj);
    });
  }
});

t.test('lists, Status and DeleteOptions', async (t) => {
  const items = [objects['v1/ConfigMap'], { ...objects['v1/ConfigMap'], metadata: { name: 'b', namespace: 'default' } }];
  // list items carry no TypeMeta on the wire (kube's list items have none either)
  const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '99', continue: 'tok', remainingItemCount: 0 }, items };
  const back = assertRoundTrip(t, list, { ...list, items: items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest) });
  t.equal((back.metadata as { remainingItemCount?: number }).remainingItemCount, 0, 'a pointer zero is kept');
  const empty = assertRoundTrip(t, { apiVersion: 'apps/v1', kind: 'DeploymentList', metadata: { resourceVersion: '5' }, items: [] });
  t.same(empty.items, [], 'an empty list has items: [] as kube writes it');

  const status = { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'deployments.apps "x" not found', reason: 'NotFound', details: { name: 'x', group: 'apps', kind: 'deployments', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'spec.replicas' }], retryAfterSeconds: 0 }, code: 404 };
  assertRoundTrip(t, status, { ...status, details: { name: 'x', group: 'apps', kind: 'deployments', causes: status.details.causes } });
  const del = { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, propagationPolicy: 'Foreground', preconditions: { uid: 'u', resourceVersion: '7' }, dryRun: ['All'], orphanDependents: false };
  assertRoundTrip(t, del);
  for (const apiVersion of ['v1', 'apps/v1', 'batch/v1']) {
    t.ok(codec.messageFor(apiVersion, 'DeleteOptions'), `DeleteOptions is known in ${apiVersion} (kube registers it in every group version)`);
  }
});

t.test('values kube keeps and drops', async (t) => {
  const d = codec.decodeObject(
    codec.encodeObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'x', generateName: '', generation: 0, deletionGracePeriodSeconds: 0 },
      spec: { replicas: 0, paused: false, minReadySeconds: 0, strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } }, template: { spec: { containers: [{ name: '', image: 'x', stdin: false }] } } },
    }),
  ) as any;
  t.equal(d.spec.replicas, 0, 'replicas: 0 (a pointer) is kept');
  t.equal(d.metadata.deletionGracePeriodSeconds, 0, 'pointer int64 zero is kept');
  t.notOk('generateName' in d.metadata, 'an empty omitempty string is dropped, as kube JSON drops it');
  t.notOk('generation' in d.metadata, 'a zero omitempty int64 is dropped');
  t.notOk('paused' in d.spec, 'a false omitempty bool is dropped');
  t.equal(d.spec.template.spec.containers[0].name, '', 'a non-omitempty string keeps its empty value');
  t.equal(d.spec.strategy.rollingUpdate.maxSurge, 0, 'int-or-string integer zero (a pointer)');
  t.equal(d.spec.strategy.rollingUpdate.maxUnavailable, '0%', 'int-or-string string');
  t.equal(d.metadata.creationTimestamp, null, 'an unset Time is null, as kube writes it');

  const svc = codec.decodeObject(codec.encodeObject({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }, { port: 81, targetPort: 8081 }, { port: 82, targetPort: 'web' }] } })) as any;
  t.notOk('targetPort' in svc.spec.ports[0], 'an unset int-or-string value field stays unset (defaulting fills it)');
  t.equal(svc.spec.ports[1].targetPort, 8081);
  t.equal(svc.spec.ports[2].targetPort, 'web');

  const scale = codec.decodeObject(codec.encodeObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 's' }, spec: { replicas: 0 }, status: { replicas: 0 } })) as any;
  t.same(scale.spec, {}, "Scale's spec.replicas is a value with omitempty: kube's JSON drops 0");
  t.same(scale.status, { replicas: 0 }, "Scale's status.replicas has no omitempty: kept");

  const sts = codec.decodeObject(codec.encodeObject({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' }, spec: { volumeClaimTemplates: [{ metadata: { name: 'data' } }] } })) as any;
  t.match(sts.spec.volumeClaimTemplates[0], { apiVersion: 'v1', kind: 'PersistentVolumeClaim' }, 'claim templates get the TypeMeta kube converts in');
});

t.test('times: Time to the second, MicroTime to the microsecond, offsets normalised to UTC', async (t) => {
  const lease = (spec: object) => codec.decodeObject(codec.encodeObject({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', creationTimestamp: '2024-05-01T12:00:00+02:00' }, spec })) as any;
  const l = lease({ renewTime: '2024-05-01T10:00:30.1234567Z', acquireTime: '1970-01-01T00:00:00Z' });
  t.equal(l.metadata.creationTimestamp, '2024-05-01T10:00:00Z');
  t.equal(l.spec.renewTime, '2024-05-01T10:00:30.123456Z');
  t.equal(l.spec.acquireTime, '1970-01-01T00:00:00.000000Z', 'the epoch is a time, not an unset one');
  t.throws(() => codec.encodeObject({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { creationTimestamp: 'yesterday' } }), /parsing time "yesterday" as RFC3339/);
});
