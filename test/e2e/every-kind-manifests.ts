/**
 * One small valid object of every kind a user can create, in its preferred version, for the
 * whole-surface e2e test (every-kind.test.ts); and the group/versions served by default.
 */
import forge from 'node-forge';

export const NAMESPACE = 'every-kind';

/** what `kubectl api-versions` prints for a server with the default --runtime-config */
export const EXPECTED_GROUP_VERSIONS = [
  'v1',
  'admissionregistration.k8s.io/v1',
  'admissionregistration.k8s.io/v1beta1',
  'apiextensions.k8s.io/v1',
  'apiextensions.k8s.io/v1beta1',
  'apiregistration.k8s.io/v1',
  'apiregistration.k8s.io/v1beta1',
  'apps/v1',
  'authentication.k8s.io/v1',
  'authentication.k8s.io/v1beta1',
  'authorization.k8s.io/v1',
  'authorization.k8s.io/v1beta1',
  'autoscaling/v1',
  'autoscaling/v2',
  'autoscaling/v2beta1',
  'autoscaling/v2beta2',
  'batch/v1',
  'batch/v1beta1',
  'certificates.k8s.io/v1',
  'certificates.k8s.io/v1beta1',
  'coordination.k8s.io/v1',
  'coordination.k8s.io/v1beta1',
  'discovery.k8s.io/v1',
  'discovery.k8s.io/v1beta1',
  'events.k8s.io/v1',
  'events.k8s.io/v1beta1',
  'extensions/v1beta1',
  'flowcontrol.apiserver.k8s.io/v1',
  'flowcontrol.apiserver.k8s.io/v1beta1',
  'flowcontrol.apiserver.k8s.io/v1beta2',
  'flowcontrol.apiserver.k8s.io/v1beta3',
  'networking.k8s.io/v1',
  'networking.k8s.io/v1beta1',
  'node.k8s.io/v1',
  'node.k8s.io/v1beta1',
  'policy/v1',
  'policy/v1beta1',
  'rbac.authorization.k8s.io/v1',
  'rbac.authorization.k8s.io/v1beta1',
  'scheduling.k8s.io/v1',
  'scheduling.k8s.io/v1beta1',
  'storage.k8s.io/v1',
  'storage.k8s.io/v1beta1',
];

export interface KindManifest {
  /** `resource.group` as kubectl names it (`deployments.apps`), or the core resource */
  resource: string;
  name: string;
  namespaced: boolean;
  yaml: string;
}

const podSpec = `
      containers:
      - name: app
        image: busybox:1.36`;

function csrPem(): string {
  const keys = forge.pki.rsa.generateKeyPair(1024);
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = keys.publicKey;
  csr.setSubject([{ name: 'commonName', value: 'every-kind' }]);
  csr.sign(keys.privateKey);
  return Buffer.from(forge.pki.certificationRequestToPem(csr)).toString('base64');
}

/** `[resource, apiVersion, kind, namespaced, body]`: body is the YAML after metadata, indented as top-level fields */
function manifest(resource: string, apiVersion: string, kind: string, namespaced: boolean, body: string, extra: Partial<KindManifest> = {}): KindManifest {
  // events.k8s.io's Event is stored with core/v1's: a name of its own
  const name = extra.name ?? `ek-${kind.toLowerCase()}${apiVersion.startsWith('events.k8s.io/') ? '-v1' : ''}`;
  const meta = namespaced ? `  name: ${name}\n  namespace: ${NAMESPACE}` : `  name: ${name}`;
  return { resource, name, namespaced, yaml: `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n${meta}\n${body.replace(/^\n/, '')}`, ...extra };
}

export function everyKindManifests(): KindManifest[] {
  return [
    // core/v1
    manifest('namespaces', 'v1', 'Namespace', false, ''),
    manifest('pods', 'v1', 'Pod', true, `spec:${podSpec.replace(/^ {4}/gm, '')}`),
    manifest('nodes', 'v1', 'Node', false, ''),
    manifest('configmaps', 'v1', 'ConfigMap', true, 'data:\n  a: "1"'),
    manifest('secrets', 'v1', 'Secret', true, 'stringData:\n  a: "1"'),
    manifest('services', 'v1', 'Service', true, 'spec:\n  ports:\n  - port: 80'),
    manifest('serviceaccounts', 'v1', 'ServiceAccount', true, ''),
    manifest('events', 'v1', 'Event', true, 'involvedObject:\n  kind: Pod\n  name: x\n  namespace: every-kind\nreason: Test\nmessage: hello\ntype: Normal'),
    manifest('endpoints', 'v1', 'Endpoints', true, 'subsets:\n- addresses:\n  - ip: 10.0.0.1\n  ports:\n  - port: 80'),
    manifest('limitranges', 'v1', 'LimitRange', true, 'spec:\n  limits:\n  - type: Container\n    max:\n      cpu: "2"'),
    manifest('resourcequotas', 'v1', 'ResourceQuota', true, 'spec:\n  hard:\n    pods: "10"'),
    manifest('persistentvolumes', 'v1', 'PersistentVolume', false, 'spec:\n  capacity:\n    storage: 1Gi\n  accessModes: [ReadWriteOnce]\n  hostPath:\n    path: /tmp/ek'),
    manifest('persistentvolumeclaims', 'v1', 'PersistentVolumeClaim', true, 'spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi'),
    manifest('replicationcontrollers', 'v1', 'ReplicationController', true, `spec:\n  selector:\n    app: rc\n  template:\n    metadata:\n      labels:\n        app: rc\n    spec:${podSpec}`),
    manifest('podtemplates', 'v1', 'PodTemplate', true, `template:\n  spec:${podSpec.replace(/^ {4}/gm, '  ')}`),
    // apps/v1
    manifest('deployments.apps', 'apps/v1', 'Deployment', true, `spec:\n  selector:\n    matchLabels:\n      app: d\n  template:\n    metadata:\n      labels:\n        app: d\n    spec:${podSpec}`),
    manifest('daemonsets.apps', 'apps/v1', 'DaemonSet', true, `spec:\n  selector:\n    matchLabels:\n      app: ds\n  template:\n    metadata:\n      labels:\n        app: ds\n    spec:${podSpec}`),
    manifest('replicasets.apps', 'apps/v1', 'ReplicaSet', true, `spec:\n  selector:\n    matchLabels:\n      app: rs\n  template:\n    metadata:\n      labels:\n        app: rs\n    spec:${podSpec}`),
    manifest('statefulsets.apps', 'apps/v1', 'StatefulSet', true, `spec:\n  serviceName: ss\n  selector:\n    matchLabels:\n      app: ss\n  template:\n    metadata:\n      labels:\n        app: ss\n    spec:${podSpec}`),
    manifest('controllerrevisions.apps', 'apps/v1', 'ControllerRevision', true, 'revision: 1\ndata:\n  a: 1'),
    // batch/v1
    manifest('jobs.batch', 'batch/v1', 'Job', true, `spec:\n  template:\n    spec:\n      restartPolicy: Never${podSpec}`),
    manifest('cronjobs.batch', 'batch/v1', 'CronJob', true, `spec:\n  schedule: "*/5 * * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers:\n          - name: app\n            image: busybox:1.36`),
    // autoscaling, coordination, events, policy
    manifest('horizontalpodautoscalers.autoscaling', 'autoscaling/v2', 'HorizontalPodAutoscaler', true, 'spec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: ek-deployment\n  maxReplicas: 3'),
    manifest('leases.coordination.k8s.io', 'coordination.k8s.io/v1', 'Lease', true, 'spec:\n  holderIdentity: me'),
    manifest('events.events.k8s.io', 'events.k8s.io/v1', 'Event', true, 'eventTime: "2024-05-01T10:00:00.000000Z"\nreportingController: example.com/c\nreportingInstance: i-1\naction: Test\nreason: Tested\ntype: Normal\nregarding:\n  kind: Pod\n  name: x\n  namespace: every-kind'),
    manifest('poddisruptionbudgets.policy', 'policy/v1', 'PodDisruptionBudget', true, 'spec:\n  minAvailable: 1\n  selector:\n    matchLabels:\n      app: d'),
    manifest('podsecuritypolicies.policy', 'policy/v1beta1', 'PodSecurityPolicy', false, 'spec:\n  seLinux:\n    rule: RunAsAny\n  runAsUser:\n    rule: RunAsAny\n  supplementalGroups:\n    rule: RunAsAny\n  fsGroup:\n    rule: RunAsAny'),
    // rbac
    manifest('roles.rbac.authorization.k8s.io', 'rbac.authorization.k8s.io/v1', 'Role', true, 'rules:\n- apiGroups: [""]\n  resources: [pods]\n  verbs: [get]'),
    manifest('clusterroles.rbac.authorization.k8s.io', 'rbac.authorization.k8s.io/v1', 'ClusterRole', false, 'rules:\n- nonResourceURLs: [/healthz]\n  verbs: [get]'),
    manifest('rolebindings.rbac.authorization.k8s.io', 'rbac.authorization.k8s.io/v1', 'RoleBinding', true, 'roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: ek-role\nsubjects:\n- kind: User\n  apiGroup: rbac.authorization.k8s.io\n  name: jane'),
    manifest('clusterrolebindings.rbac.authorization.k8s.io', 'rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', false, 'roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: view\nsubjects:\n- kind: Group\n  apiGroup: rbac.authorization.k8s.io\n  name: readers'),
    // admissionregistration
    manifest('validatingwebhookconfigurations.admissionregistration.k8s.io', 'admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', false, 'webhooks:\n- name: v.example.com\n  clientConfig:\n    url: https://example.com/validate\n  sideEffects: None\n  admissionReviewVersions: [v1]'),
    manifest('mutatingwebhookconfigurations.admissionregistration.k8s.io', 'admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', false, 'webhooks:\n- name: m.example.com\n  clientConfig:\n    url: https://example.com/mutate\n  sideEffects: None\n  admissionReviewVersions: [v1]'),
    // apiextensions, apiregistration
    {
      resource: 'customresourcedefinitions.apiextensions.k8s.io',
      name: 'widgets.every.example.com',
      namespaced: false,
      yaml: [
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata:',
        '  name: widgets.every.example.com',
        'spec:',
        '  group: every.example.com',
        '  scope: Namespaced',
        '  names: {plural: widgets, singular: widget, kind: Widget}',
        '  versions:',
        '  - name: v1',
        '    served: true',
        '    storage: true',
        '    schema:',
        '      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}',
      ].join('\n'),
    },
    manifest('apiservices.apiregistration.k8s.io', 'apiregistration.k8s.io/v1', 'APIService', false, '', {}),
    // certificates
    manifest('certificatesigningrequests.certificates.k8s.io', 'certificates.k8s.io/v1', 'CertificateSigningRequest', false, `spec:\n  request: ${csrPem()}\n  signerName: example.com/signer\n  usages: [client auth]`),
    // discovery, networking, node, scheduling
    manifest('endpointslices.discovery.k8s.io', 'discovery.k8s.io/v1', 'EndpointSlice', true, 'addressType: IPv4\nendpoints:\n- addresses: [10.0.0.1]\nports:\n- port: 80'),
    manifest('ingresses.networking.k8s.io', 'networking.k8s.io/v1', 'Ingress', true, 'spec:\n  defaultBackend:\n    service:\n      name: web\n      port:\n        number: 80'),
    manifest('ingressclasses.networking.k8s.io', 'networking.k8s.io/v1', 'IngressClass', false, 'spec:\n  controller: example.com/ingress'),
    manifest('networkpolicies.networking.k8s.io', 'networking.k8s.io/v1', 'NetworkPolicy', true, 'spec:\n  podSelector: {}'),
    manifest('runtimeclasses.node.k8s.io', 'node.k8s.io/v1', 'RuntimeClass', false, 'handler: runc'),
    manifest('priorityclasses.scheduling.k8s.io', 'scheduling.k8s.io/v1', 'PriorityClass', false, 'value: 1000'),
    // storage
    manifest('storageclasses.storage.k8s.io', 'storage.k8s.io/v1', 'StorageClass', false, 'provisioner: example.com/provisioner'),
    manifest('volumeattachments.storage.k8s.io', 'storage.k8s.io/v1', 'VolumeAttachment', false, 'spec:\n  attacher: csi.example.com\n  nodeName: node-1\n  source:\n    persistentVolumeName: pv-1'),
    manifest('csidrivers.storage.k8s.io', 'storage.k8s.io/v1', 'CSIDriver', false, 'spec: {}'),
    manifest('csinodes.storage.k8s.io', 'storage.k8s.io/v1', 'CSINode', false, 'spec:\n  drivers: []'),
    manifest('csistoragecapacities.storage.k8s.io', 'storage.k8s.io/v1', 'CSIStorageCapacity', true, 'storageClassName: standard\ncapacity: 10Gi'),
    // flowcontrol
    manifest('prioritylevelconfigurations.flowcontrol.apiserver.k8s.io', 'flowcontrol.apiserver.k8s.io/v1', 'PriorityLevelConfiguration', false, 'spec:\n  type: Limited\n  limited:\n    nominalConcurrencyShares: 5\n    limitResponse:\n      type: Reject'),
    manifest('flowschemas.flowcontrol.apiserver.k8s.io', 'flowcontrol.apiserver.k8s.io/v1', 'FlowSchema', false, 'spec:\n  priorityLevelConfiguration:\n    name: ek-prioritylevelconfiguration\n  matchingPrecedence: 5000\n  rules:\n  - subjects:\n    - kind: Group\n      group:\n        name: readers\n    nonResourceRules:\n    - verbs: [get]\n      nonResourceURLs: [/healthz]'),
  ].map((m) => (m.resource === 'apiservices.apiregistration.k8s.io' ? apiService() : m));
}

/** an APIService needs the name `<version>.<group>` */
function apiService(): KindManifest {
  return {
    resource: 'apiservices.apiregistration.k8s.io',
    name: 'v1.every.example.org',
    namespaced: false,
    yaml: [
      'apiVersion: apiregistration.k8s.io/v1',
      'kind: APIService',
      'metadata:',
      '  name: v1.every.example.org',
      'spec:',
      '  group: every.example.org',
      '  version: v1',
      '  groupPriorityMinimum: 1000',
      '  versionPriority: 15',
      '  insecureSkipTLSVerify: true',
      '  service:',
      '    namespace: every-kind',
      '    name: ek-service',
    ].join('\n'),
  };
}
