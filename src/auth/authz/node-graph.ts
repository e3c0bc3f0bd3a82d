/**
 * The Node authorizer's view of pods and claims: list + watch through the registry (kube builds a
 * graph from informers; here pods are grouped by node on each change).
 */
import type { KindDefinition, KubeObject } from '../../api/kind';
import type { Registry } from '../../api/registry/types';
import { RegistryInformer } from '../../aggregator/registry-informer';
import { isObj } from '../../api/kinds/util';
import type { NodeGraph } from './node';

export class InformerNodeGraph implements NodeGraph {
  readonly #pods: RegistryInformer;
  readonly #claims: RegistryInformer;
  #byNode: Map<string, KubeObject[]> | undefined;

  constructor(opts: { registry: Registry; pods: KindDefinition; claims: KindDefinition; onError?: (err: unknown) => void }) {
    this.#pods = new RegistryInformer({ registry: opts.registry, kind: opts.pods, onError: opts.onError, onChange: () => (this.#byNode = undefined) });
    this.#claims = new RegistryInformer({ registry: opts.registry, kind: opts.claims, onError: opts.onError });
  }

  start(): void {
    this.#pods.start();
    this.#claims.start();
  }

  stop(): void {
    this.#pods.stop();
    this.#claims.stop();
  }

  get synced(): Promise<void> {
    return Promise.all([this.#pods.synced, this.#claims.synced]).then(() => undefined);
  }

  podsOnNode(node: string): KubeObject[] {
    if (!this.#byNode) {
      const byNode = new Map<string, KubeObject[]>();
      for (const pod of this.#pods.list()) {
        const nodeName = isObj(pod.spec) && typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : '';
        if (nodeName === '') continue;
        byNode.set(nodeName, [...(byNode.get(nodeName) ?? []), pod]);
      }
      this.#byNode = byNode;
    }
    return this.#byNode.get(node) ?? [];
  }

  persistentVolumeClaim(namespace: string, name: string): KubeObject | undefined {
    return this.#claims.get(`${namespace}/${name}`);
  }
}
