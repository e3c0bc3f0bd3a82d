import t from 'tap';
import { builtinKinds } from '../../../src/api/kinds';
import { Scheme } from '../../../src/api/scheme';
import type { KubeObject } from '../../../src/api/kind';

t.test('every served kind is declared once and the Scheme accepts them', async (t) => {
  const kinds = builtinKinds();
  const scheme = new Scheme(kinds);
  t.same(
    scheme.groups().map((g) => [g.name, g.versions]),
    [
      ['', ['v1']],
      ['apps', ['v1']],
      ['batch', ['v1', 'v1beta1']],
      ['coordination.k8s.io', ['v1']],
      ['events.k8s.io', ['v1']],
      ['apiregistration.k8s.io', ['v1', 'v1beta1']],
    ],
  );
  t.equal(scheme.sharingStorage(scheme.byResource('batch', 'v1beta1', 'cronjobs')!).length, 2);
  t.equal(scheme.sharingStorage(scheme.byResource('events.k8s.io', 'v1', 'events')!).length, 2);
  t.equal(scheme.sharingStorage(scheme.byResource('apiregistration.k8s.io', 'v1beta1', 'apiservices')!).length, 2);
});

t.test("names, short names and categories are kube's", async (t) => {
  const table = Object.fromEntries(builtinKinds().map((k) => [`${k.group}/${k.version}/${k.resource}`, [k.kind, k.listKind, k.singular, k.namespaced, k.shortNames, k.categories]]));
  t.same(table, {
    '/v1/namespaces': ['Namespace', 'NamespaceList', 'namespace', false, ['ns'], []],
    '/v1/pods': ['Pod', 'PodList', 'pod', true, ['po'], ['all']],
    '/v1/nodes': ['Node', 'NodeList', 'node', false, ['no'], []],
    '/v1/configmaps': ['ConfigMap', 'ConfigMapList', 'configmap', true, ['cm'], []],
    '/v1/secrets': ['Secret', 'SecretList', 'secret', true, [], []],
    '/v1/services': ['Service', 'ServiceList', 'service', true, ['svc'], ['all']],
    '/v1/serviceaccounts': ['ServiceAccount', 'ServiceAccountList', 'serviceaccount', true, ['sa'], []],
    '/v1/events': ['Event', 'EventList', 'event', true, ['ev'], []],
    '/v1/endpoints': ['Endpoints', 'EndpointsList', 'endpoints', true, ['ep'], []],
    '/v1/limitranges': ['LimitRange', 'LimitRangeList', 'limitrange', true, ['limits'], []],
    '/v1/resourcequotas': ['ResourceQuota', 'ResourceQuotaList', 'resourcequota', true, ['quota'], []],
    'apps/v1/deployments': ['Deployment', 'DeploymentList', 'deployment', true, ['deploy'], ['all']],
    'apps/v1/daemonsets': ['DaemonSet', 'DaemonSetList', 'daemonset', true, ['ds'], ['all']],
    'apps/v1/replicasets': ['ReplicaSet', 'ReplicaSetList', 'replicaset', true, ['rs'], ['all']],
    'apps/v1/statefulsets': ['StatefulSet', 'StatefulSetList', 'statefulset', true, ['sts'], ['all']],
    'apps/v1/controllerrevisions': ['ControllerRevision', 'ControllerRevisionList', 'controllerrevision', true, [], []],
    'batch/v1/jobs': ['Job', 'JobList', 'job', true, [], ['all']],
    'batch/v1/cronjobs': ['CronJob', 'CronJobList', 'cronjob', true, ['cj'], ['all']],
    'batch/v1beta1/cronjobs': ['CronJob', 'CronJobList', 'cronjob', true, ['cj'], ['all']],
    'coordination.k8s.io/v1/leases': ['Lease', 'LeaseList', 'lease', true, [], []],
    'events.k8s.io/v1/events': ['Event', 'EventList', 'event', true, ['ev'], []],
    'apiregistration.k8s.io/v1/apiservices': ['APIService', 'APIServiceList', 'apiservice', false, [], ['api-extensions']],
    'apiregistration.k8s.io/v1beta1/apiservices': ['APIService', 'APIServiceList', 'apiservice', false, [], ['api-extensions']],
  });
});

t.test('generation, status and scale follow kube', async (t) => {
  const kinds = builtinKinds();
  t.same(kinds.filter((k) => k.tracksGeneration).map((k) => `${k.resource}.${k.version}`), [
    'deployments.v1', 'daemonsets.v1', 'replicasets.v1', 'statefulsets.v1', 'jobs.v1', 'cronjobs.v1', 'cronjobs.v1beta1',
  ]);
  t.same(kinds.filter((k) => k.statusSubresource).map((k) => k.resource), [
    'namespaces', 'pods', 'nodes', 'services', 'resourcequotas', 'deployments', 'daemonsets', 'replicasets', 'statefulsets', 'jobs', 'cronjobs', 'cronjobs',
    'apiservices', 'apiservices',
  ]);
  t.same(kinds.filter((k) => k.scale).map((k) => k.resource), ['deployments', 'replicasets', 'statefulsets']);
  for (const k of kinds) {
    const group = k.group === '' ? 'core' : k.group.replace(/\.k8s\.io$/, '');
    // kube-aggregator's types are named after its own Go package
    const prefix = k.group === 'apiregistration.k8s.io' ? 'io.k8s.kube-aggregator.pkg.apis.' : 'io.k8s.api.';
    t.equal(k.schemaName, `${prefix}${group}.${k.version}.${k.kind}`, k.resource);
    if (k.table) t.equal(k.table.columns.filter((c) => c.format === 'name').length, 1, `${k.resource} has one name column`);
  }
});

t.test('strategies never throw on malformed input', async (t) => {
  const odd: unknown[] = [
    {},
    { spec: 'x', status: 5, metadata: { name: 3 } },
    { spec: { containers: 'x', template: [], selector: 'a', ports: [null, 1], jobTemplate: 7, schedule: 5, replicas: '3' }, data: 'x', subsets: [1] },
    { spec: { template: { spec: { containers: [null, { name: 5, ports: 'x', env: [null], image: 7 }], volumes: [1] } } } },
    { regarding: 'x', involvedObject: 4, series: 'y', eventTime: 3 },
  ];
  const now = new Date();
  for (const k of builtinKinds()) {
    for (const o of odd) {
      const obj = JSON.parse(JSON.stringify(o)) as KubeObject;
      t.doesNotThrow(() => {
        k.strategy.defaults(obj);
        k.strategy.prepareForCreate?.(obj);
        k.strategy.validate(obj);
        k.strategy.validate(obj, JSON.parse(JSON.stringify(o)));
        k.strategy.prepareForUpdate?.(obj, JSON.parse(JSON.stringify(o)));
        k.strategy.validateStatus?.(obj, JSON.parse(JSON.stringify(o)));
        k.selectableFields?.(obj);
        k.table?.cells(obj, now);
        k.scale?.getSelector(obj);
        k.deleteGracePeriod?.(obj);
        k.fromStorage?.(obj);
        k.toStorage?.(obj);
      }, `${k.group}/${k.version}/${k.kind}`);
    }
  }
});
