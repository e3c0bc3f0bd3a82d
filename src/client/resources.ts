/**
 * The resources controllers, the scheduler and the node agent use, named once. Versions are the
 * ones kube 1.20's components ask for (and Ballast serves).
 */
import type { ResourceRef } from './types';

const ref = (group: string, version: string, resource: string, kind: string, namespaced = true): ResourceRef =>
  Object.freeze({ group, version, resource, kind, namespaced });

export const RESOURCES = Object.freeze({
  namespaces: ref('', 'v1', 'namespaces', 'Namespace', false),
  nodes: ref('', 'v1', 'nodes', 'Node', false),
  pods: ref('', 'v1', 'pods', 'Pod'),
  podTemplates: ref('', 'v1', 'podtemplates', 'PodTemplate'),
  services: ref('', 'v1', 'services', 'Service'),
  endpoints: ref('', 'v1', 'endpoints', 'Endpoints'),
  events: ref('', 'v1', 'events', 'Event'),
  configMaps: ref('', 'v1', 'configmaps', 'ConfigMap'),
  secrets: ref('', 'v1', 'secrets', 'Secret'),
  serviceAccounts: ref('', 'v1', 'serviceaccounts', 'ServiceAccount'),
  replicationControllers: ref('', 'v1', 'replicationcontrollers', 'ReplicationController'),
  resourceQuotas: ref('', 'v1', 'resourcequotas', 'ResourceQuota'),
  limitRanges: ref('', 'v1', 'limitranges', 'LimitRange'),
  persistentVolumes: ref('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
  persistentVolumeClaims: ref('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim'),
  deployments: ref('apps', 'v1', 'deployments', 'Deployment'),
  replicaSets: ref('apps', 'v1', 'replicasets', 'ReplicaSet'),
  statefulSets: ref('apps', 'v1', 'statefulsets', 'StatefulSet'),
  daemonSets: ref('apps', 'v1', 'daemonsets', 'DaemonSet'),
  controllerRevisions: ref('apps', 'v1', 'controllerrevisions', 'ControllerRevision'),
  jobs: ref('batch', 'v1', 'jobs', 'Job'),
  cronJobs: ref('batch', 'v1beta1', 'cronjobs', 'CronJob'),
  leases: ref('coordination.k8s.io', 'v1', 'leases', 'Lease'),
  endpointSlices: ref('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice'),
  podDisruptionBudgets: ref('policy', 'v1beta1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
  horizontalPodAutoscalers: ref('autoscaling', 'v1', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler'),
  clusterRoles: ref('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  certificateSigningRequests: ref('certificates.k8s.io', 'v1', 'certificatesigningrequests', 'CertificateSigningRequest', false),
  csiNodes: ref('storage.k8s.io', 'v1', 'csinodes', 'CSINode', false),
  priorityClasses: ref('scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false),
  storageClasses: ref('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false),
  volumeAttachments: ref('storage.k8s.io', 'v1', 'volumeattachments', 'VolumeAttachment', false),
  customResourceDefinitions: ref('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false),
});
