/**
 * Claims, volumes, classes and CSINodes for the volume plugin tests, and a handle whose listers
 * hold them.
 */
import { RESOURCES } from '../../../src/client/resources';
import type { KubeObject } from '../../../src/client/types';
import { CycleState, type FrameworkHandle } from '../../../src/scheduler/framework/types';
import { fakeHandle, makePod, Snapshot, type PodShape } from '../helpers';

export interface VolumeShape {
  capacity?: string;
  storageClass?: string;
  labels?: Record<string, string>;
  claimRef?: { namespace: string; name: string; uid?: string };
  phase?: string;
  accessModes?: string[];
  /** required node affinity terms */
  nodeTerms?: unknown[];
  source?: Record<string, unknown>;
  resourceVersion?: string;
}

export function makePV(name: string, s: VolumeShape = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, labels: s.labels, resourceVersion: s.resourceVersion ?? '1' },
    spec: {
      capacity: { storage: s.capacity ?? '10Gi' },
      accessModes: s.accessModes ?? ['ReadWriteOnce'],
      storageClassName: s.storageClass ?? '',
      ...(s.claimRef ? { claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', ...s.claimRef } } : {}),
      ...(s.nodeTerms ? { nodeAffinity: { required: { nodeSelectorTerms: s.nodeTerms } } } : {}),
      ...(s.source ?? { hostPath: { path: `/data/${name}` } }),
    },
    status: { phase: s.phase ?? 'Available' },
  };
}

export interface ClaimShape {
  namespace?: string;
  storageClass?: string;
  request?: string;
  volumeName?: string;
  /** the PV controller finished binding (bind-completed annotation) */
  bound?: boolean;
  annotations?: Record<string, string>;
  accessModes?: string[];
  selector?: Record<string, unknown>;
  resourceVersion?: string;
  deleting?: boolean;
}

export function makePVC(name: string, s: ClaimShape = {}): KubeObject {
  const annotations = { ...(s.bound ? { 'pv.kubernetes.io/bind-completed': 'yes' } : {}), ...s.annotations };
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: s.namespace ?? 'default',
      uid: `uid-pvc-${name}`,
      resourceVersion: s.resourceVersion ?? '1',
      annotations,
      ...(s.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      accessModes: s.accessModes ?? ['ReadWriteOnce'],
      resources: { requests: { storage: s.request ?? '1Gi' } },
      ...(s.storageClass !== undefined ? { storageClassName: s.storageClass } : {}),
      ...(s.volumeName ? { volumeName: s.volumeName } : {}),
      ...(s.selector ? { selector: s.selector } : {}),
    },
    status: { phase: s.bound ? 'Bound' : 'Pending' },
  };
}

export function makeClass(name: string, s: { mode?: string | null; provisioner?: string; allowedTopologies?: unknown[] } = {}): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name },
    provisioner: s.provisioner ?? 'example.com/csi',
    ...(s.mode === null ? {} : { volumeBindingMode: s.mode ?? 'WaitForFirstConsumer' }),
    ...(s.allowedTopologies ? { allowedTopologies: s.allowedTopologies } : {}),
  } as KubeObject;
}

export function makeCSINode(name: string, drivers: Array<{ name: string; count?: number }>): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name },
    spec: { drivers: drivers.map((d) => ({ name: d.name, nodeID: name, ...(d.count !== undefined ? { allocatable: { count: d.count } } : {}) })) },
  };
}

/** a pod mounting the given volumes (claim names as strings, other sources as objects) */
export function podWith(name: string, volumes: Array<string | Record<string, unknown>>, shape: PodShape = {}): KubeObject {
  const list = volumes.map((v, i) => (typeof v === 'string' ? { name: `v${i}`, persistentVolumeClaim: { claimName: v } } : { name: `v${i}`, ...v }));
  return makePod(name, { ...shape, spec: { ...shape.spec, volumes: list } });
}

export interface VolumeWorld {
  nodes: KubeObject[];
  pods?: KubeObject[];
  pvs?: KubeObject[];
  pvcs?: KubeObject[];
  classes?: KubeObject[];
  csiNodes?: KubeObject[];
}

export function volumeHandle(w: VolumeWorld): { handle: FrameworkHandle; snapshot: Snapshot } {
  const snapshot = Snapshot.of(w.nodes, w.pods ?? []);
  const handle = fakeHandle(snapshot, {
    objects: [
      { ref: RESOURCES.persistentVolumes, items: w.pvs ?? [] },
      { ref: RESOURCES.persistentVolumeClaims, items: w.pvcs ?? [] },
      { ref: RESOURCES.storageClasses, items: w.classes ?? [] },
      { ref: RESOURCES.csiNodes, items: w.csiNodes ?? [] },
      { ref: RESOURCES.nodes, items: w.nodes },
    ],
  });
  return { handle, snapshot };
}

export const newState = (): CycleState => new CycleState();
