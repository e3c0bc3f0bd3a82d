/**
 * The cost of --storage-media-type: a typical Pod (two containers, probes, resources, volumes,
 * status with conditions) written and read back 10,000 times in each form, the way the store path
 * does it: JSON.stringify, StorageCodec.encode, StorageCodec.decode, JSON.parse.
 *   node dist/bench/storage-media-type.js [iterations]
 */
import { STORAGE_MEDIA_TYPES, StorageCodec } from '../src/storage/codec/storage-codec';

export function typicalPod(i = 0): Record<string, unknown> {
  const container = (name: string, image: string) => ({
    name,
    image,
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
    env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
    readinessProbe: { httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app' }, { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-7d4b9c8f6d-${i}`,
      generateName: 'web-7d4b9c8f6d-',
      namespace: 'default',
      uid: '0f0e6a4c-2f4b-4a8e-9a55-1f3c5b2d7e90',
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: 'web', 'pod-template-hash': '7d4b9c8f6d' },
      annotations: { 'kubernetes.io/psp': 'restricted' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d4b9c8f6d', uid: 'a1b2c3d4-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [container('web', 'nginx:1.25'), container('sidecar', 'envoy:1.29')],
      volumes: [{ name: 'config', configMap: { name: 'web-config', defaultMode: 420 } }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: 'node-1',
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      priority: 0,
      enableServiceLinks: true,
    },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:01Z' },
        { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:05Z' },
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
      hostIP: '10.0.0.5',
      podIP: '10.244.1.17',
      podIPs: [{ ip: '10.244.1.17' }],
      startTime: '2026-01-01T00:00:01Z',
      qosClass: 'Burstable',
    },
  };
}

export function measure(iterations: number): { mediaType: string; ms: number; bytes: number }[] {
  const pod = typicalPod();
  return STORAGE_MEDIA_TYPES.map((mediaType) => {
    const codec = new StorageCodec(mediaType);
    let bytes = 0;
    // warm up (and load the protobuf schema) outside the timing
    for (let i = 0; i < 200; i++) JSON.parse(codec.decode(codec.encode(JSON.stringify(pod))));
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) {
      const stored = codec.encode(JSON.stringify(pod));
      bytes = stored.length;
      JSON.parse(codec.decode(stored));
    }
    return { mediaType, ms: Number(process.hrtime.bigint() - start) / 1e6, bytes };
  });
}

if (require.main === module) {
  const n = Number(process.argv[2] ?? 10_000);
  for (const r of measure(n)) console.log(`${r.mediaType.padEnd(38)} ${r.ms.toFixed(0).padStart(6)} ms for ${n} writes+reads (${((r.ms * 1000) / n).toFixed(1)} µs each), ${r.bytes} bytes stored`);
}
