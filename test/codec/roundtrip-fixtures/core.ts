/** round-trip fixtures of the core/v1 kinds beyond the first ones: storage, controllers, virtual kinds */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';


const template = {
  metadata: { labels: { app: 'web' }, creationTimestamp: null },
  spec: {
    containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    schedulerName: 'default-scheduler',
  },
};

export const coreFixtures: Fixtures = {
  'v1/PersistentVolume': {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: fixtureMeta('pv-1'),
    spec: {
      capacity: { storage: '10Gi' },
      csi: {
        driver: 'ebs.csi.aws.com',
        volumeHandle: 'vol-0abc',
        fsType: 'ext4',
        volumeAttributes: { type: 'gp3' },
        nodePublishSecretRef: { name: 'creds', namespace: 'kube-system' },
      },
      accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: 'c1', apiVersion: 'v1', resourceVersion: '7' },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'gp3',
      mountOptions: ['noatime'],
      volumeMode: 'Filesystem',
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1a'] }] }] },
      },
      volumeAttributesClassName: 'fast',
    },
    status: { phase: 'Bound', message: 'bound', reason: 'Provisioned', lastPhaseTransitionTime: '2024-05-01T10:00:05Z' },
  },
  'v1/PersistentVolumeClaim': {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: fixtureMeta('data', 'default'),
    spec: {
      accessModes: ['ReadWriteOnce'],
      selector: { matchLabels: { tier: 'db' } },
      resources: { requests: { storage: '10Gi' }, limits: { storage: '20Gi' } },
      volumeName: 'pv-1',
      storageClassName: '',
      volumeMode: 'Filesystem',
      dataSource: { kind: 'PersistentVolumeClaim', name: 'seed' },
      dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'seed' },
    },
    status: {
      phase: 'Bound',
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: '10Gi' },
      conditions: [{ type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'Grow', message: 'growing' }],
      allocatedResources: { storage: '10Gi' },
    },
  },
  'v1/ReplicationController': {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { ...fixtureMeta('web', 'default'), generation: 3 },
    spec: { replicas: 0, minReadySeconds: 5, selector: { app: 'web' }, template },
    status: {
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
      observedGeneration: 3,
      conditions: [{ type: 'ReplicaFailure', status: 'False', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'ok', message: 'fine' }],
    },
  },
  'v1/PodTemplate': { apiVersion: 'v1', kind: 'PodTemplate', metadata: { ...fixtureMeta('tpl', 'default'), generation: 1 }, template },
  'v1/ComponentStatus': {
    apiVersion: 'v1',
    kind: 'ComponentStatus',
    metadata: { name: 'scheduler', creationTimestamp: null },
    conditions: [{ type: 'Healthy', status: 'False', message: 'Get "https://127.0.0.1:10259/healthz": connection refused', error: 'probe failed' }],
  },
  'v1/Binding': {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: 'web-0', namespace: 'default', creationTimestamp: null, annotations: { note: 'bound' } },
    target: { kind: 'Node', name: 'node-1', apiVersion: 'v1' },
  },
};
