/**
 * Building blocks for scheduler plugin tests: nodes and pods in a few words, a snapshot of them,
 * and a FrameworkHandle whose listers are plain stores (no API server).
 */
import pino from 'pino';
import { Indexer, NAMESPACE_INDEX, byNamespace } from '../../src/client/indexer';
import type { KubeObject, OwnerReference, ResourceRef } from '../../src/client/types';
import { DEFAULT_FEATURE_GATES } from '../../src/options/feature-gates';
import type { EventRecorder } from '../../src/client/events';
import type { RestClient } from '../../src/client/rest-client';
import { PodInfo, type NodeInfo } from '../../src/scheduler/framework/node-info';
import { Snapshot } from '../../src/scheduler/framework/snapshot';
import type { Result } from '../../src/scheduler/framework/status';
import type { CycleState, FrameworkHandle, PodNominator } from '../../src/scheduler/framework/types';

export interface NodeShape {
  cpu?: string;
  memory?: string;
  pods?: string | number;
  labels?: Record<string, string>;
  taints?: Array<{ key: string; value?: string; effect: string }>;
  unschedulable?: boolean;
  /** extra allocatable resources, e.g. { 'example.com/gpu': '2' } */
  extra?: Record<string, string>;
  images?: Array<{ names: string[]; sizeBytes: number }>;
  annotations?: Record<string, string>;
}

export function makeNode(name: string, shape: NodeShape = {}): KubeObject {
  const allocatable = { cpu: shape.cpu ?? '4', memory: shape.memory ?? '8Gi', pods: String(shape.pods ?? 110), ...shape.extra };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-node-${name}`, labels: { 'kubernetes.io/hostname': name, ...shape.labels }, annotations: shape.annotations },
    spec: { taints: shape.taints, unschedulable: shape.unschedulable },
    status: { capacity: allocatable, allocatable, images: shape.images ?? [] },
  };
}

export interface PodShape {
  namespace?: string;
  node?: string;
  labels?: Record<string, string>;
  /** one container per entry: its requests */
  requests?: Array<Record<string, string>>;
  initRequests?: Array<Record<string, string>>;
  spec?: Record<string, unknown>;
  priority?: number;
  uid?: string;
  ownerReferences?: OwnerReference[];
}

let podCounter = 0;

export function makePod(name: string, shape: PodShape = {}): KubeObject {
  const containers = (shape.requests ?? [{}]).map((requests, i) => ({ name: `c${i}`, image: 'busybox', resources: Object.keys(requests).length ? { requests } : {} }));
  const initContainers = shape.initRequests?.map((requests, i) => ({ name: `init${i}`, image: 'busybox', resources: { requests } }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: shape.namespace ?? 'default',
      uid: shape.uid ?? `uid-pod-${name}-${++podCounter}`,
      labels: shape.labels,
      ownerReferences: shape.ownerReferences,
      creationTimestamp: new Date(Date.UTC(2026, 0, 1) + podCounter * 1000).toISOString(),
    },
    spec: {
      schedulerName: 'default-scheduler',
      containers,
      ...(initContainers ? { initContainers } : {}),
      ...(shape.node ? { nodeName: shape.node } : {}),
      ...(shape.priority !== undefined ? { priority: shape.priority } : {}),
      ...shape.spec,
    },
    status: { phase: shape.node ? 'Running' : 'Pending' },
  };
}

class FakeNominator implements PodNominator {
  readonly byNode = new Map<string, PodInfo[]>();
  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    return this.byNode.get(nodeName) ?? [];
  }
  addNominatedPod(pod: KubeObject, nodeName: string): void {
    this.deleteNominatedPodIfExists(pod);
    const list = this.byNode.get(nodeName) ?? [];
    list.push(new PodInfo(pod));
    this.byNode.set(nodeName, list);
  }
  deleteNominatedPodIfExists(pod: KubeObject): void {
    for (const [n, list] of this.byNode) this.byNode.set(n, list.filter((p) => p.pod.metadata?.uid !== pod.metadata?.uid));
  }
}

export interface FakeHandleOptions {
  /** objects the listers hold (services, PVCs, PDBs...), by resource ref */
  objects?: Array<{ ref: ResourceRef; items: KubeObject[] }>;
  /** filters run by runFilterPluginsWithNominatedPods (default: none, everything fits) */
  filter?: (state: CycleState, pod: KubeObject, nodeInfo: NodeInfo) => Result;
  profileName?: string;
}

/** a handle over a snapshot: listers from plain stores, no client (plugins that call the API get an error) */
export function fakeHandle(snapshot: Snapshot, o: FakeHandleOptions = {}): FrameworkHandle & { nominator: FakeNominator } {
  const stores = new Map<string, Indexer>();
  const keyOf = (ref: ResourceRef) => `${ref.group}/${ref.resource}`;
  for (const { ref, items } of o.objects ?? []) {
    const store = new Indexer({ [NAMESPACE_INDEX]: byNamespace });
    for (const item of items) store.upsert(item);
    stores.set(keyOf(ref), store);
  }
  const noClient = new Proxy({}, { get: () => () => Promise.reject(new Error('no API client in this test')) }) as unknown as RestClient;
  const events: Array<{ obj: KubeObject; type: string; reason: string; message: string }> = [];
  const recorder = { event: (obj: KubeObject, type: string, reason: string, message: string) => events.push({ obj, type, reason, message }) } as unknown as EventRecorder;
  return {
    snapshot: () => snapshot,
    client: noClient,
    lister: (ref) => {
      let store = stores.get(keyOf(ref));
      if (!store) stores.set(keyOf(ref), (store = new Indexer({ [NAMESPACE_INDEX]: byNamespace })));
      return store;
    },
    recorder,
    nominator: new FakeNominator(),
    logger: pino({ level: 'silent' }),
    featureGates: DEFAULT_FEATURE_GATES,
    profileName: o.profileName ?? 'default-scheduler',
    runFilterPluginsWithNominatedPods: (state, pod, nodeInfo) => o.filter?.(state, pod, nodeInfo),
    runPreFilterExtensionAddPod: () => undefined,
    runPreFilterExtensionRemovePod: () => undefined,
  };
}

export { Snapshot };
