import t from 'tap';
import { definitionName, definitions, mergeDefinitions } from '../../src/schema/index';
import type { SchemaNode } from '../../src/schema/types';

function* nodes(node: SchemaNode, path: string): Generator<[string, SchemaNode]> {
  yield [path, node];
  for (const [key, child] of Object.entries(node.properties ?? {})) yield* nodes(child, `${path}.${key}`);
  if (node.items) yield* nodes(node.items, `${path}[]`);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    yield* nodes(node.additionalProperties, `${path}{}`);
  }
}

t.test('every $ref resolves to a definition', async (t) => {
  const broken: string[] = [];
  let refs = 0;
  for (const [name, def] of Object.entries(definitions)) {
    for (const [path, node] of nodes(def, name)) {
      if (!node.$ref) continue;
      refs++;
      const target = node.$ref.replace('#/definitions/', '');
      if (!node.$ref.startsWith('#/definitions/') || !definitions[target]) broken.push(`${path} -> ${node.$ref}`);
    }
  }
  t.same(broken, []);
  t.ok(refs > 400, `many references checked (${refs})`);
});

t.test('the required kinds and their lists exist with their GroupVersionKind', async (t) => {
  const kinds: Array<[string, string, string]> = [
    ['', 'v1', 'Pod'], ['', 'v1', 'Namespace'], ['', 'v1', 'Node'], ['', 'v1', 'ConfigMap'], ['', 'v1', 'Secret'],
    ['', 'v1', 'Service'], ['', 'v1', 'ServiceAccount'], ['', 'v1', 'Event'], ['', 'v1', 'Endpoints'],
    ['', 'v1', 'LimitRange'], ['', 'v1', 'ResourceQuota'], ['', 'v1', 'PersistentVolumeClaim'], ['', 'v1', 'PodTemplate'],
    ['apps', 'v1', 'Deployment'], ['apps', 'v1', 'DaemonSet'], ['apps', 'v1', 'ReplicaSet'], ['apps', 'v1', 'StatefulSet'],
    ['apps', 'v1', 'ControllerRevision'], ['batch', 'v1', 'Job'], ['batch', 'v1', 'CronJob'], ['batch', 'v1beta1', 'CronJob'],
    ['coordination.k8s.io', 'v1', 'Lease'], ['events.k8s.io', 'v1', 'Event'],
  ];
  for (const [group, version, kind] of kinds) {
    const def = definitions[definitionName(group, version, kind)];
    const list = definitions[definitionName(group, version, `${kind}List`)];
    t.ok(def, `${group}/${version} ${kind}`);
    t.same(def?.['x-kubernetes-group-version-kind'], [{ group, version, kind }]);
    t.same(list?.['x-kubernetes-group-version-kind'], [{ group, version, kind: `${kind}List` }]);
    t.same(list?.required, ['items']);
    t.equal(list?.properties?.items?.items?.$ref, `#/definitions/${definitionName(group, version, kind)}`);
    t.equal(def?.properties?.metadata?.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  }
  for (const kind of ['SelfSubjectAccessReview', 'SubjectAccessReview', 'LocalSubjectAccessReview']) {
    const def = definitions[definitionName('authorization.k8s.io', 'v1', kind)];
    t.same(def?.required, ['spec'], kind);
  }
  t.same(definitions['io.k8s.api.autoscaling.v1.Scale']?.['x-kubernetes-group-version-kind'], [
    { group: 'autoscaling', version: 'v1', kind: 'Scale' },
  ]);
});

t.test('definitionName follows kube naming', async (t) => {
  t.equal(definitionName('', 'v1', 'Pod'), 'io.k8s.api.core.v1.Pod');
  t.equal(definitionName('apps', 'v1', 'Deployment'), 'io.k8s.api.apps.v1.Deployment');
  t.equal(definitionName('coordination.k8s.io', 'v1', 'Lease'), 'io.k8s.api.coordination.v1.Lease');
  t.equal(definitionName('rbac.authorization.k8s.io', 'v1', 'Role'), 'io.k8s.api.rbac.v1.Role');
  t.equal(definitionName('meta.k8s.io', 'v1', 'Status'), 'io.k8s.apimachinery.pkg.apis.meta.v1.Status');
  t.equal(
    definitionName('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition'),
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  );
  t.equal(definitionName('stable.example.com', 'v1', 'CronTab'), 'com.example.stable.v1.CronTab');
});

t.test('definitions are frozen and names unique', async (t) => {
  t.ok(Object.isFrozen(definitions));
  t.ok(Object.isFrozen(definitions['io.k8s.api.core.v1.Container']?.properties?.ports));
  t.throws(() => mergeDefinitions([{ a: { type: 'string' } }, { a: { type: 'string' } }]), /defined twice/);
});

t.test('every definition and named property is described', async (t) => {
  const missing: string[] = [];
  for (const [name, def] of Object.entries(definitions)) {
    if (!def.description) missing.push(name);
    for (const [key, prop] of Object.entries(def.properties ?? {})) if (!prop.description) missing.push(`${name}.${key}`);
  }
  t.same(missing, []);
});

t.test('formats and scalar markers are kube\'s', async (t) => {
  const props = (name: string) => definitions[name]?.properties ?? {};
  t.same(props('io.k8s.api.apps.v1.DeploymentSpec').replicas, { description: props('io.k8s.api.apps.v1.DeploymentSpec').replicas?.description, type: 'integer', format: 'int32' });
  t.equal(props('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta').generation?.format, 'int64');
  t.equal(definitions['io.k8s.apimachinery.pkg.apis.meta.v1.Time']?.format, 'date-time');
  t.equal(definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']?.format, 'int-or-string');
  t.equal(definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']?.['x-kubernetes-int-or-string'], true);
  t.same(props('io.k8s.api.core.v1.Secret').data?.additionalProperties, { type: 'string', format: 'byte' });
  t.same(props('io.k8s.api.core.v1.PodSpec').nodeSelector?.['x-kubernetes-map-type'], 'atomic');
  t.equal(definitions['io.k8s.api.core.v1.ObjectReference']?.['x-kubernetes-map-type'], 'atomic');
  t.equal(definitions['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']?.['x-kubernetes-map-type'], 'atomic');
  t.equal(props('io.k8s.api.core.v1.ContainerPort').protocol?.default, 'TCP');
  t.same(definitions['io.k8s.api.core.v1.ContainerStatus']?.required, ['name', 'ready', 'restartCount', 'image', 'imageID']);
  t.same(definitions['io.k8s.api.apps.v1.StatefulSetSpec']?.required, ['selector', 'template', 'serviceName']);
  t.same(props('io.k8s.api.core.v1.Container').imagePullPolicy?.enum, ['Always', 'IfNotPresent', 'Never']);
});
