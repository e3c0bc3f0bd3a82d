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
      ['apiregistration.k8s.io', ['v1', 'v1beta1']],
      ['extensions', ['v1beta1']],
      ['apps', ['v1']],
      ['autoscaling', ['v2', 'v1', 'v2beta2', 'v2beta1']],
      ['batch', ['v1', 'v1beta1', 'v2alpha1']],
      ['policy', ['v1', 'v1beta1']],
      ['networking.k8s.io', ['v1', 'v1beta1']],
      ['storage.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
      ['scheduling.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
      ['coordination.k8s.io', ['v1', 'v1beta1']],
      ['node.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
      ['discovery.k8s.io', ['v1', 'v1beta1']],
      ['events.k8s.io', ['v1', 'v1beta1']],
      ['rbac.authorization.k8s.io', ['v1', 'v1beta1', 'v1alpha1']],
      ['admissionregistration.k8s.io', ['v1', 'v1beta1']],
      ['certificates.k8s.io', ['v1', 'v1beta1']],
      ['apiextensions.k8s.io', ['v1', 'v1beta1']],
      ['flowcontrol.apiserver.k8s.io', ['v1', 'v1beta3', 'v1beta2', 'v1beta1', 'v1alpha1']],
      ['internal.apiserver.k8s.io', ['v1alpha1']],
    ],
  );
  t.equal(scheme.sharingStorage(scheme.byResource('batch', 'v1beta1', 'cronjobs')!).length, 3);
  t.equal(scheme.sharingStorage(scheme.byResource('events.k8s.io', 'v1', 'events')!).length, 3);
  t.equal(scheme.sharingStorage(scheme.byResource('policy', 'v1beta1', 'poddisruptionbudgets')!).length, 2);
  // Ingress: networking.k8s.io v1 and v1beta1 and extensions/v1beta1 share kube's one storage
  t.equal(scheme.sharingStorage(scheme.byResource('extensions', 'v1beta1', 'ingresses')!).length, 3);
  t.equal(scheme.sharingStorage(scheme.byResource('storage.k8s.io', 'v1alpha1', 'volumeattachments')!).length, 3);
  t.equal(scheme.sharingStorage(scheme.byResource('node.k8s.io', 'v1alpha1', 'runtimeclasses')!).length, 3);
  t.equal(scheme.sharingStorage(scheme.byResource('autoscaling', 'v1', 'horizontalpodautoscalers')!).length, 4);
  t.equal(scheme.sharingStorage(scheme.byResource('coordination.k8s.io', 'v1beta1', 'leases')!).length, 2);
  t.equal(scheme.sharingStorage(scheme.byResource('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas')!).length, 5);
  t.equal(scheme.sharingStorage(scheme.byResource('flowcontrol.apiserver.k8s.io', 'v1', 'prioritylevelconfigurations')!).length, 5);
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
    '/v1/persistentvolumes': ['PersistentVolume', 'PersistentVolumeList', 'persistentvolume', false, ['pv'], []],
    '/v1/persistentvolumeclaims': ['PersistentVolumeClaim', 'PersistentVolumeClaimList', 'persistentvolumeclaim', true, ['pvc'], []],
    '/v1/replicationcontrollers': ['ReplicationController', 'ReplicationControllerList', 'replicationcontroller', true, ['rc'], ['all']],
    '/v1/podtemplates': ['PodTemplate', 'PodTemplateList', 'podtemplate', true, [], []],
    '/v1/componentstatuses': ['ComponentStatus', 'ComponentStatusList', 'componentstatus', false, ['cs'], []],
    '/v1/bindings': ['Binding', 'BindingList', 'binding', true, [], []],
    'apps/v1/deployments': ['Deployment', 'DeploymentList', 'deployment', true, ['deploy'], ['all']],
    'apps/v1/daemonsets': ['DaemonSet', 'DaemonSetList', 'daemonset', true, ['ds'], ['all']],
    'apps/v1/replicasets': ['ReplicaSet', 'ReplicaSetList', 'replicaset', true, ['rs'], ['all']],
    'apps/v1/statefulsets': ['StatefulSet', 'StatefulSetList', 'statefulset', true, ['sts'], ['all']],
    'apps/v1/controllerrevisions': ['ControllerRevision', 'ControllerRevisionList', 'controllerrevision', true, [], []],
    'batch/v1/jobs': ['Job', 'JobList', 'job', true, [], ['all']],
    'batch/v1/cronjobs': ['CronJob', 'CronJobList', 'cronjob', true, ['cj'], ['all']],
    'batch/v1beta1/cronjobs': ['CronJob', 'CronJobList', 'cronjob', true, ['cj'], ['all']],
    'policy/v1/poddisruptionbudgets': ['PodDisruptionBudget', 'PodDisruptionBudgetList', 'poddisruptionbudget', true, ['pdb'], []],
    'policy/v1beta1/poddisruptionbudgets': ['PodDisruptionBudget', 'PodDisruptionBudgetList', 'poddisruptionbudget', true, ['pdb'], []],
    'policy/v1beta1/podsecuritypolicies': ['PodSecurityPolicy', 'PodSecurityPolicyList', 'podsecuritypolicy', false, ['psp'], []],
    'extensions/v1beta1/ingresses': ['Ingress', 'IngressList', 'ingress', true, ['ing'], []],
    'networking.k8s.io/v1/ingressclasses': ['IngressClass', 'IngressClassList', 'ingressclass', false, [], []],
    'networking.k8s.io/v1/ingresses': ['Ingress', 'IngressList', 'ingress', true, ['ing'], []],
    'networking.k8s.io/v1/networkpolicies': ['NetworkPolicy', 'NetworkPolicyList', 'networkpolicy', true, ['netpol'], []],
    'networking.k8s.io/v1beta1/ingressclasses': ['IngressClass', 'IngressClassList', 'ingressclass', false, [], []],
    'networking.k8s.io/v1beta1/ingresses': ['Ingress', 'IngressList', 'ingress', true, ['ing'], []],
    'storage.k8s.io/v1/csidrivers': ['CSIDriver', 'CSIDriverList', 'csidriver', false, [], []],
    'storage.k8s.io/v1/csinodes': ['CSINode', 'CSINodeList', 'csinode', false, [], []],
    'storage.k8s.io/v1/csistoragecapacities': ['CSIStorageCapacity', 'CSIStorageCapacityList', 'csistoragecapacity', true, [], []],
    'storage.k8s.io/v1/storageclasses': ['StorageClass', 'StorageClassList', 'storageclass', false, ['sc'], []],
    'storage.k8s.io/v1/volumeattachments': ['VolumeAttachment', 'VolumeAttachmentList', 'volumeattachment', false, [], []],
    'storage.k8s.io/v1beta1/csidrivers': ['CSIDriver', 'CSIDriverList', 'csidriver', false, [], []],
    'storage.k8s.io/v1beta1/csinodes': ['CSINode', 'CSINodeList', 'csinode', false, [], []],
    'storage.k8s.io/v1beta1/csistoragecapacities': ['CSIStorageCapacity', 'CSIStorageCapacityList', 'csistoragecapacity', true, [], []],
    'storage.k8s.io/v1beta1/storageclasses': ['StorageClass', 'StorageClassList', 'storageclass', false, ['sc'], []],
    'storage.k8s.io/v1beta1/volumeattachments': ['VolumeAttachment', 'VolumeAttachmentList', 'volumeattachment', false, [], []],
    'storage.k8s.io/v1alpha1/csistoragecapacities': ['CSIStorageCapacity', 'CSIStorageCapacityList', 'csistoragecapacity', true, [], []],
    'storage.k8s.io/v1alpha1/volumeattachments': ['VolumeAttachment', 'VolumeAttachmentList', 'volumeattachment', false, [], []],
    'scheduling.k8s.io/v1/priorityclasses': ['PriorityClass', 'PriorityClassList', 'priorityclass', false, ['pc'], []],
    'scheduling.k8s.io/v1beta1/priorityclasses': ['PriorityClass', 'PriorityClassList', 'priorityclass', false, ['pc'], []],
    'scheduling.k8s.io/v1alpha1/priorityclasses': ['PriorityClass', 'PriorityClassList', 'priorityclass', false, ['pc'], []],
    'apiextensions.k8s.io/v1/customresourcedefinitions': ['CustomResourceDefinition', 'CustomResourceDefinitionList', 'customresourcedefinition', false, ['crd', 'crds'], ['api-extensions']],
    'apiextensions.k8s.io/v1beta1/customresourcedefinitions': ['CustomResourceDefinition', 'CustomResourceDefinitionList', 'customresourcedefinition', false, ['crd', 'crds'], ['api-extensions']],
    'coordination.k8s.io/v1/leases': ['Lease', 'LeaseList', 'lease', true, [], []],
    'node.k8s.io/v1/runtimeclasses': ['RuntimeClass', 'RuntimeClassList', 'runtimeclass', false, [], []],
    'node.k8s.io/v1beta1/runtimeclasses': ['RuntimeClass', 'RuntimeClassList', 'runtimeclass', false, [], []],
    'node.k8s.io/v1alpha1/runtimeclasses': ['RuntimeClass', 'RuntimeClassList', 'runtimeclass', false, [], []],
    'discovery.k8s.io/v1/endpointslices': ['EndpointSlice', 'EndpointSliceList', 'endpointslice', true, [], []],
    'discovery.k8s.io/v1beta1/endpointslices': ['EndpointSlice', 'EndpointSliceList', 'endpointslice', true, [], []],
    'events.k8s.io/v1/events': ['Event', 'EventList', 'event', true, ['ev'], []],
    'rbac.authorization.k8s.io/v1/clusterrolebindings': ['ClusterRoleBinding', 'ClusterRoleBindingList', 'clusterrolebinding', false, [], []],
    'rbac.authorization.k8s.io/v1/clusterroles': ['ClusterRole', 'ClusterRoleList', 'clusterrole', false, [], []],
    'rbac.authorization.k8s.io/v1/rolebindings': ['RoleBinding', 'RoleBindingList', 'rolebinding', true, [], []],
    'rbac.authorization.k8s.io/v1/roles': ['Role', 'RoleList', 'role', true, [], []],
    'rbac.authorization.k8s.io/v1beta1/clusterrolebindings': ['ClusterRoleBinding', 'ClusterRoleBindingList', 'clusterrolebinding', false, [], []],
    'rbac.authorization.k8s.io/v1beta1/clusterroles': ['ClusterRole', 'ClusterRoleList', 'clusterrole', false, [], []],
    'rbac.authorization.k8s.io/v1beta1/rolebindings': ['RoleBinding', 'RoleBindingList', 'rolebinding', true, [], []],
    'rbac.authorization.k8s.io/v1beta1/roles': ['Role', 'RoleList', 'role', true, [], []],
    'rbac.authorization.k8s.io/v1alpha1/clusterrolebindings': ['ClusterRoleBinding', 'ClusterRoleBindingList', 'clusterrolebinding', false, [], []],
    'rbac.authorization.k8s.io/v1alpha1/clusterroles': ['ClusterRole', 'ClusterRoleList', 'clusterrole', false, [], []],
    'rbac.authorization.k8s.io/v1alpha1/rolebindings': ['RoleBinding', 'RoleBindingList', 'rolebinding', true, [], []],
    'rbac.authorization.k8s.io/v1alpha1/roles': ['Role', 'RoleList', 'role', true, [], []],
    'admissionregistration.k8s.io/v1/mutatingwebhookconfigurations': ['MutatingWebhookConfiguration', 'MutatingWebhookConfigurationList', 'mutatingwebhookconfiguration', false, [], ['api-extensions']],
    'admissionregistration.k8s.io/v1/validatingwebhookconfigurations': ['ValidatingWebhookConfiguration', 'ValidatingWebhookConfigurationList', 'validatingwebhookconfiguration', false, [], ['api-extensions']],
    'admissionregistration.k8s.io/v1beta1/mutatingwebhookconfigurations': ['MutatingWebhookConfiguration', 'MutatingWebhookConfigurationList', 'mutatingwebhookconfiguration', false, [], ['api-extensions']],
    'admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations': ['ValidatingWebhookConfiguration', 'ValidatingWebhookConfigurationList', 'validatingwebhookconfiguration', false, [], ['api-extensions']],
    'certificates.k8s.io/v1/certificatesigningrequests': ['CertificateSigningRequest', 'CertificateSigningRequestList', 'certificatesigningrequest', false, ['csr'], []],
    'certificates.k8s.io/v1beta1/certificatesigningrequests': ['CertificateSigningRequest', 'CertificateSigningRequestList', 'certificatesigningrequest', false, ['csr'], []],
    'batch/v2alpha1/cronjobs': ['CronJob', 'CronJobList', 'cronjob', true, ['cj'], ['all']],
    'coordination.k8s.io/v1/leases': ['Lease', 'LeaseList', 'lease', true, [], []],
    'coordination.k8s.io/v1beta1/leases': ['Lease', 'LeaseList', 'lease', true, [], []],
    'events.k8s.io/v1/events': ['Event', 'EventList', 'event', true, ['ev'], []],
    'events.k8s.io/v1beta1/events': ['Event', 'EventList', 'event', true, ['ev'], []],
    'autoscaling/v2/horizontalpodautoscalers': ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList', 'horizontalpodautoscaler', true, ['hpa'], ['all']],
    'autoscaling/v1/horizontalpodautoscalers': ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList', 'horizontalpodautoscaler', true, ['hpa'], ['all']],
    'autoscaling/v2beta2/horizontalpodautoscalers': ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList', 'horizontalpodautoscaler', true, ['hpa'], ['all']],
    'autoscaling/v2beta1/horizontalpodautoscalers': ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList', 'horizontalpodautoscaler', true, ['hpa'], ['all']],
    'flowcontrol.apiserver.k8s.io/v1/flowschemas': ['FlowSchema', 'FlowSchemaList', 'flowschema', false, [], []],
    'flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations': ['PriorityLevelConfiguration', 'PriorityLevelConfigurationList', 'prioritylevelconfiguration', false, [], []],
    'flowcontrol.apiserver.k8s.io/v1beta3/flowschemas': ['FlowSchema', 'FlowSchemaList', 'flowschema', false, [], []],
    'flowcontrol.apiserver.k8s.io/v1beta3/prioritylevelconfigurations': ['PriorityLevelConfiguration', 'PriorityLevelConfigurationList', 'prioritylevelconfiguration', false, [], []],
    'flowcontrol.apiserver.k8s.io/v1beta2/flowschemas': ['FlowSchema', 'FlowSchemaList', 'flowschema', false, [], []],
    'flowcontrol.apiserver.k8s.io/v1beta2/prioritylevelconfigurations': ['PriorityLevelConfiguration', 'PriorityLevelConfigurationList', 'prioritylevelconfiguration', false, [], []],
    'flowcontrol.apiserver.k8s.io/v1beta1/flowschemas': ['FlowSchema', 'FlowSchemaList', 'flowschema', false, [], []],
    'flowcontrol.apiserver.k8s.io/v1beta1/prioritylevelconfigurations': ['PriorityLevelConfiguration', 'PriorityLevelConfigurationList', 'prioritylevelconfiguration', false, [], []],
    'flowcontrol.apiserver.k8s.io/v1alpha1/flowschemas': ['FlowSchema', 'FlowSchemaList', 'flowschema', false, [], []],
    'flowcontrol.apiserver.k8s.io/v1alpha1/prioritylevelconfigurations': ['PriorityLevelConfiguration', 'PriorityLevelConfigurationList', 'prioritylevelconfiguration', false, [], []],
    'internal.apiserver.k8s.io/v1alpha1/storageversions': ['StorageVersion', 'StorageVersionList', 'storageversion', false, [], []],
    'apiregistration.k8s.io/v1/apiservices': ['APIService', 'APIServiceList', 'apiservice', false, [], ['api-extensions']],
    'apiregistration.k8s.io/v1beta1/apiservices': ['APIService', 'APIServiceList', 'apiservice', false, [], ['api-extensions']],
  });
});

t.test('generation, status and scale follow kube', async (t) => {
  const kinds = builtinKinds();
  t.same(kinds.filter((k) => k.tracksGeneration).map((k) => `${k.resource}.${k.version}`), [
    'replicationcontrollers.v1', 'podtemplates.v1', 'ingresses.v1beta1',
    'deployments.v1', 'daemonsets.v1', 'replicasets.v1', 'statefulsets.v1', 'jobs.v1', 'cronjobs.v1', 'cronjobs.v1beta1', 'cronjobs.v2alpha1',
    'poddisruptionbudgets.v1', 'poddisruptionbudgets.v1beta1',
    'ingressclasses.v1', 'ingresses.v1', 'networkpolicies.v1', 'ingressclasses.v1beta1', 'ingresses.v1beta1',
    'endpointslices.v1', 'endpointslices.v1beta1',
    // kube's webhook configuration strategies bump generation when the webhooks change
    'mutatingwebhookconfigurations.v1', 'validatingwebhookconfigurations.v1', 'mutatingwebhookconfigurations.v1beta1', 'validatingwebhookconfigurations.v1beta1',
    'customresourcedefinitions.v1', 'customresourcedefinitions.v1beta1',
    ...['v1', 'v1beta3', 'v1beta2', 'v1beta1', 'v1alpha1'].flatMap((v) => [`flowschemas.${v}`, `prioritylevelconfigurations.${v}`]),
  ]);
  t.same(kinds.filter((k) => k.statusSubresource).map((k) => k.resource), [
    'namespaces', 'pods', 'nodes', 'services', 'resourcequotas',
    'persistentvolumes', 'persistentvolumeclaims', 'replicationcontrollers', 'apiservices', 'apiservices', 'ingresses',
    'deployments', 'daemonsets', 'replicasets', 'statefulsets',
    ...Array(4).fill('horizontalpodautoscalers'),
    'jobs', 'cronjobs', 'cronjobs', 'cronjobs',
    'poddisruptionbudgets', 'poddisruptionbudgets',
    // kube 1.20 serves volumeattachments/status only in v1
    'ingresses', 'ingresses', 'volumeattachments',
    'certificatesigningrequests', 'certificatesigningrequests',
    'customresourcedefinitions', 'customresourcedefinitions',
    ...Array(5).fill(['flowschemas', 'prioritylevelconfigurations']).flat(),
    'storageversions',
  ]);
  t.same(kinds.filter((k) => k.scale).map((k) => k.resource), ['replicationcontrollers', 'deployments', 'replicasets', 'statefulsets']);
  for (const k of kinds) {
    // kube names definitions after the Go package, which for these groups is not the group's first word
    const packages: Record<string, string> = {
      'rbac.authorization.k8s.io': 'rbac', 'flowcontrol.apiserver.k8s.io': 'flowcontrol', 'internal.apiserver.k8s.io': 'apiserverinternal',
    };
    const group = k.group === '' ? 'core' : packages[k.group] ?? k.group.replace(/\.k8s\.io$/, '');
    // kube names apiextensions' and apiregistration's definitions after their own Go modules, not k8s.io/api
    const prefix = k.group === 'apiextensions.k8s.io' ? 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions'
      : k.group === 'apiregistration.k8s.io' ? 'io.k8s.kube-aggregator.pkg.apis.apiregistration' : `io.k8s.api.${group}`;
    t.equal(k.schemaName, `${prefix}.${k.version}.${k.kind}`, k.resource);
    // kube marks VolumeAttachment's Attacher column as a name too (kubectl decorates only the first one)
    if (k.table && k.resource !== 'volumeattachments') t.equal(k.table.columns.filter((c) => c.format === 'name').length, 1, `${k.resource} has one name column`);
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
