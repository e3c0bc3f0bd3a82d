/** Realistic objects as kubectl and controllers send them (including the null/empty fields they carry). */

export const podSpec = () => ({
  containers: [
    {
      name: 'web',
      image: 'nginx:1.27',
      imagePullPolicy: 'IfNotPresent',
      args: ['--port', '8080'],
      ports: [
        { name: 'http', containerPort: 8080, protocol: 'TCP' },
        { containerPort: 9090 },
      ],
      env: [
        { name: 'MODE', value: 'prod' },
        { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
        { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password', optional: false } } },
        { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
      ],
      envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'APP_' }],
      resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: 0.25, memory: 134217728 } },
      volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'config', mountPath: '/etc/app', readOnly: true }],
      livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, initialDelaySeconds: 5, periodSeconds: 10 },
      readinessProbe: { tcpSocket: { port: 8080 }, timeoutSeconds: 1 },
      startupProbe: { exec: { command: ['cat', '/tmp/ready'] }, failureThreshold: 30 },
      lifecycle: { preStop: { sleep: { seconds: 5 } } },
      securityContext: {
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    },
  ],
  initContainers: [{ name: 'init', image: 'busybox', command: ['sh', '-c', 'true'], resources: {} }],
  volumes: [
    { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
    { name: 'config', configMap: { name: 'settings', defaultMode: 420, items: [{ key: 'app.yaml', path: 'app.yaml' }] } },
    { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
    { name: 'host', hostPath: { path: '/var/log', type: 'Directory' } },
    {
      name: 'token',
      projected: {
        sources: [
          { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    },
    { name: 'secret', secret: { secretName: 'tls', optional: true } },
  ],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  serviceAccountName: 'web',
  securityContext: { fsGroup: 2000, runAsUser: 1000, supplementalGroups: [3000] },
  imagePullSecrets: [{ name: 'registry' }],
  schedulerName: 'default-scheduler',
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }],
      },
    },
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } } },
      ],
    },
  },
  tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  topologySpreadConstraints: [
    { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } },
  ],
  hostAliases: [{ ip: '10.0.0.1', hostnames: ['db.local'] }],
  dnsConfig: { options: [{ name: 'ndots', value: '2' }] },
  readinessGates: [{ conditionType: 'example.com/ready' }],
});

const templateMeta = () => ({ creationTimestamp: null, labels: { app: 'web' } });

export const deployment = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    labels: { app: 'web' },
    annotations: { 'deployment.kubernetes.io/revision': '1' },
    creationTimestamp: '2024-05-01T10:00:00Z',
    generation: 1,
    resourceVersion: '12',
    uid: '0b6a2c39-6a4e-4b0e-8a4f-2b4f3c0b8a11',
    managedFields: [
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: '2024-05-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ],
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] },
    template: { metadata: templateMeta(), spec: podSpec() },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
  status: {
    observedGeneration: 1,
    replicas: 3,
    readyReplicas: 3,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        lastUpdateTime: '2024-05-01T10:00:05Z',
        lastTransitionTime: '2024-05-01T10:00:05Z',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      },
    ],
  },
});

export const pod = () => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-7d4b9c-x2x9z',
    namespace: 'default',
    generateName: 'web-7d4b9c-',
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d4b9c', uid: 'f1', controller: true, blockOwnerDeletion: true },
    ],
    finalizers: ['example.com/cleanup'],
  },
  spec: { ...podSpec(), nodeName: 'node-1' },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-01T10:00:03Z' }],
    hostIP: '10.0.0.5',
    hostIPs: [{ ip: '10.0.0.5' }],
    podIP: '10.244.1.7',
    podIPs: [{ ip: '10.244.1.7' }],
    startTime: '2024-05-01T10:00:00Z',
    qosClass: 'Burstable',
    containerStatuses: [
      {
        name: 'web',
        ready: true,
        restartCount: 0,
        image: 'nginx:1.27',
        imageID: 'docker.io/library/nginx@sha256:abc',
        containerID: 'containerd://123',
        started: true,
        state: { running: { startedAt: '2024-05-01T10:00:02Z' } },
        lastState: {},
      },
    ],
    initContainerStatuses: [
      {
        name: 'init',
        ready: true,
        restartCount: 0,
        image: 'busybox',
        imageID: 'docker.io/library/busybox@sha256:def',
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: '2024-05-01T10:00:00Z', finishedAt: '2024-05-01T10:00:01Z' } },
      },
    ],
  },
});

const jobSpec = () => ({
  backoffLimit: 4,
  completions: 1,
  parallelism: 1,
  ttlSecondsAfterFinished: 100,
  podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] },
  template: {
    metadata: { creationTimestamp: null },
    spec: {
      restartPolicy: 'Never',
      containers: [{ name: 'pi', image: 'perl:5.34', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'], resources: {} }],
    },
  },
});

export const job = () => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'pi', namespace: 'default' },
  spec: jobSpec(),
  status: {
    active: 1,
    startTime: '2024-05-01T10:00:00Z',
    ready: 0,
    uncountedTerminatedPods: {},
    conditions: [{ type: 'Complete', status: 'False', lastProbeTime: '2024-05-01T10:00:00Z', lastTransitionTime: '2024-05-01T10:00:00Z' }],
  },
});

export const cronJob = (apiVersion = 'batch/v1') => ({
  apiVersion,
  kind: 'CronJob',
  metadata: { name: 'hello', namespace: 'default', creationTimestamp: null },
  spec: {
    schedule: '*/1 * * * *',
    timeZone: 'Etc/UTC',
    concurrencyPolicy: 'Forbid',
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
    jobTemplate: { metadata: { creationTimestamp: null, name: 'hello' }, spec: jobSpec() },
  },
  status: { lastScheduleTime: '2024-05-01T10:00:00Z', active: [{ kind: 'Job', name: 'hello-1', namespace: 'default', uid: 'u1', apiVersion: 'batch/v1', resourceVersion: '5' }] },
});

export const service = () => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    type: 'LoadBalancer',
    selector: { app: 'web' },
    ports: [
      { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP', nodePort: 30080 },
      { name: 'metrics', port: 9090, targetPort: 9090, appProtocol: 'http' },
    ],
    clusterIP: '10.96.0.10',
    clusterIPs: ['10.96.0.10'],
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    sessionAffinity: 'ClientIP',
    sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    externalTrafficPolicy: 'Local',
    internalTrafficPolicy: 'Cluster',
  },
  status: { loadBalancer: { ingress: [{ ip: '192.0.2.1', ipMode: 'VIP' }] } },
});

export const daemonSet = () => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: 'kube-system' },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 } },
    template: {
      metadata: { creationTimestamp: null, labels: { app: 'agent' } },
      spec: {
        hostNetwork: true,
        priorityClassName: 'system-node-critical',
        tolerations: [{ operator: 'Exists' }],
        containers: [{ name: 'agent', image: 'agent:1', securityContext: { privileged: true } }],
        volumes: [{ name: 'proc', hostPath: { path: '/proc' } }],
      },
    },
  },
  status: { currentNumberScheduled: 2, numberMisscheduled: 0, desiredNumberScheduled: 2, numberReady: 2 },
});

export const statefulSet = () => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db', namespace: 'default' },
  spec: {
    serviceName: 'db',
    replicas: 3,
    selector: { matchLabels: { app: 'db' } },
    podManagementPolicy: 'Parallel',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
    template: {
      metadata: { labels: { app: 'db' } },
      spec: { containers: [{ name: 'db', image: 'postgres:16', volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql' }] }] },
    },
    volumeClaimTemplates: [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data', creationTimestamp: null },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } }, storageClassName: 'fast', volumeMode: 'Filesystem' },
        status: { phase: 'Pending' },
      },
    ],
  },
  status: { replicas: 3, readyReplicas: 3, currentRevision: 'db-5d8', updateRevision: 'db-5d8', collisionCount: 0 },
});
