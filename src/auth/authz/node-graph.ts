/**
 * kube's node authorizer graph (plugin/pkg/auth/authorizer/node/graph.go), kept current one object
 * at a time: pods point at their node and are pointed at by the secrets, configmaps, claims and
 * service account they use; persistent volumes point at the claim they are bound to and are pointed
 * at by the secrets of their source; volume attachments point at their node. A node may reach an
 * object when a path leads from the object to the node.
 */
import type { KubeObject } from '../../api/kind';
import { isObj, str } from '../../api/kinds/util';
import { podReferences, volumeClaim, volumeSecrets } from './node-references';

/** the kinds of vertex a node's request can start from */
export type VertexType = 'pod' | 'secret' | 'configmap' | 'persistentvolumeclaim' | 'persistentvolume' | 'serviceaccount' | 'volumeattachment';

/** what the node authorizer asks */
export interface NodeGraph {
  /** true when a path leads from the object to the node */
  hasPath(node: string, type: VertexType, namespace: string, name: string): boolean;
}

type PodRefType = 'secret' | 'configmap' | 'persistentvolumeclaim' | 'serviceaccount';

interface PodVertex {
  node: string;
  /** `${type}/${namespace}/${name}` of what it uses */
  uses: string[];
}

interface VolumeVertex {
  claim?: string;
  secrets: string[];
}

/** a reverse index: one key, many members */
class Index {
  readonly #map = new Map<string, Set<string>>();
  add(key: string, member: string): void {
    const set = this.#map.get(key) ?? new Set<string>();
    set.add(member);
    this.#map.set(key, set);
  }
  remove(key: string, member: string): void {
    const set = this.#map.get(key);
    if (!set) return;
    set.delete(member);
    if (set.size === 0) this.#map.delete(key);
  }
  get(key: string): ReadonlySet<string> {
    return this.#map.get(key) ?? new Set();
  }
}

export class MemoryNodeGraph implements NodeGraph {
  readonly #pods = new Map<string, PodVertex>();
  /** `${type}/${namespace}/${name}` -> pod keys using it */
  readonly #usedBy = new Index();
  readonly #volumes = new Map<string, VolumeVertex>();
  /** claim `namespace/name` -> volumes bound to it */
  readonly #volumesOfClaim = new Index();
  /** secret `namespace/name` -> volumes naming it */
  readonly #volumesOfSecret = new Index();
  readonly #attachments = new Map<string, string>();

  /** add, replace (obj) or remove (undefined) the pod stored under `namespace/name` */
  setPod(key: string, pod: KubeObject | undefined): void {
    const old = this.#pods.get(key);
    if (old) for (const used of old.uses) this.#usedBy.remove(used, key);
    this.#pods.delete(key);
    const node = pod && isObj(pod.spec) ? str(pod.spec.nodeName) : '';
    // kube adds only scheduled pods to the graph
    if (!pod || node === '') return;
    const ns = str(pod.metadata?.namespace);
    const refs = podReferences(pod);
    const uses: string[] = [];
    const each = (type: PodRefType, names: Set<string>) => names.forEach((name) => uses.push(`${type}/${ns}/${name}`));
    each('secret', refs.secrets);
    each('configmap', refs.configmaps);
    each('persistentvolumeclaim', refs.persistentvolumeclaims);
    each('serviceaccount', refs.serviceaccounts);
    for (const used of uses) this.#usedBy.add(used, key);
    this.#pods.set(key, { node, uses });
  }

  /** add, replace or remove the persistent volume `name` */
  setVolume(name: string, pv: KubeObject | undefined): void {
    const old = this.#volumes.get(name);
    if (old) {
      if (old.claim) this.#volumesOfClaim.remove(old.claim, name);
      for (const s of old.secrets) this.#volumesOfSecret.remove(s, name);
    }
    this.#volumes.delete(name);
    if (!pv) return;
    const vertex: VolumeVertex = { claim: volumeClaim(pv), secrets: volumeSecrets(pv) };
    if (vertex.claim) this.#volumesOfClaim.add(vertex.claim, name);
    for (const s of vertex.secrets) this.#volumesOfSecret.add(s, name);
    this.#volumes.set(name, vertex);
  }

  /** add, replace or remove the volume attachment `name` (storage.k8s.io) */
  setAttachment(name: string, va: KubeObject | undefined): void {
    const node = va && isObj(va.spec) ? str(va.spec.nodeName) : '';
    if (node === '') this.#attachments.delete(name);
    else this.#attachments.set(name, node);
  }

  hasPath(node: string, type: VertexType, namespace: string, name: string): boolean {
    switch (type) {
      case 'pod':
        return this.#pods.get(`${namespace}/${name}`)?.node === node;
      case 'volumeattachment':
        return this.#attachments.get(name) === node;
      case 'persistentvolume': {
        const claim = this.#volumes.get(name)?.claim;
        if (!claim) return false;
        const [ns, claimName] = claim.split('/');
        return this.#usedOn(node, `persistentvolumeclaim/${ns}/${claimName}`);
      }
      case 'secret':
        if (this.#usedOn(node, `secret/${namespace}/${name}`)) return true;
        return [...this.#volumesOfSecret.get(`${namespace}/${name}`)].some((pv) => this.hasPath(node, 'persistentvolume', '', pv));
      default:
        return this.#usedOn(node, `${type}/${namespace}/${name}`);
    }
  }

  #usedOn(node: string, used: string): boolean {
    for (const key of this.#usedBy.get(used)) if (this.#pods.get(key)?.node === node) return true;
    return false;
  }
}
