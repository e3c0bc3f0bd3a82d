/**
 * The node graph fed by informers (list + watch through the registry), as kube's graph populator
 * feeds it from shared informers: every change to a pod, persistent volume or volume attachment
 * updates the graph's edges for that one object.
 */
import type { KindDefinition } from '../../api/kind';
import type { Registry } from '../../api/registry/types';
import { RegistryInformer } from '../../aggregator/registry-informer';
import { MemoryNodeGraph } from './node-graph';
import type { NodeGraph, VertexType } from './node-graph';

export interface InformerNodeGraphOptions {
  registry: Registry;
  pods: KindDefinition;
  persistentVolumes: KindDefinition;
  /** storage.k8s.io VolumeAttachments, when served */
  volumeAttachments?: KindDefinition;
  onError?: (err: unknown) => void;
}

export class InformerNodeGraph implements NodeGraph {
  readonly #graph = new MemoryNodeGraph();
  readonly #informers: RegistryInformer[];

  constructor(opts: InformerNodeGraphOptions) {
    const follow = (kind: KindDefinition, set: (key: string, obj: Parameters<MemoryNodeGraph['setPod']>[1]) => void) =>
      new RegistryInformer({ registry: opts.registry, kind, onError: opts.onError, onChange: set });
    this.#informers = [
      follow(opts.pods, (key, obj) => this.#graph.setPod(key, obj)),
      follow(opts.persistentVolumes, (key, obj) => this.#graph.setVolume(key, obj)),
      ...(opts.volumeAttachments ? [follow(opts.volumeAttachments, (key, obj) => this.#graph.setAttachment(key, obj))] : []),
    ];
  }

  start(): void {
    for (const i of this.#informers) i.start();
  }

  stop(): void {
    for (const i of this.#informers) i.stop();
  }

  /** resolves once every informer has listed once */
  get synced(): Promise<void> {
    return Promise.all(this.#informers.map((i) => i.synced)).then(() => undefined);
  }

  hasPath(node: string, type: VertexType, namespace: string, name: string): boolean {
    return this.#graph.hasPath(node, type, namespace, name);
  }
}
