/**
 * The garbage collector's dependency graph (kube's GraphBuilder and its uidToNode map): one node per
 * object uid seen on any monitored resource, linked to the nodes of its owners. An owner referenced
 * but not (yet) observed is a virtual node, to be verified with a live read. The graph is changed
 * only through `observe` and `forget`, which run synchronously inside informer handlers (Node's one
 * thread is kube's single processGraphChanges loop), and report the work they make through `queues`.
 */
import type { KubeObject, OwnerReference } from '../../client/types';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

/** what names an object for the collector: its coordinates and its uid */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** '' for cluster-scoped objects */
  namespace: string;
}

export class GraphNode {
  identity: ObjectIdentity;
  readonly dependents = new Set<GraphNode>();
  owners: OwnerReference[] = [];
  /** seen on an informer; false for a node made from someone's ownerReference */
  observed: boolean;
  beingDeleted = false;
  /** deletionTimestamp and the foregroundDeletion finalizer: waits for its blocking dependents */
  deletingDependents = false;

  constructor(identity: ObjectIdentity, observed: boolean) {
    this.identity = identity;
    this.observed = observed;
  }

  /** dependents whose reference to this node has blockOwnerDeletion */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((d) => d.owners.some((r) => r.uid === this.identity.uid && r.blockOwnerDeletion === true));
  }
}

export interface GraphQueues {
  attemptToDelete(node: GraphNode): void;
  attemptToOrphan(node: GraphNode): void;
  /** a namespaced owner referenced from another namespace, or by a cluster-scoped dependent */
  invalidOwnerNamespace(dependent: GraphNode, ref: OwnerReference, ownerNamespace: string): void;
}

export function hasFinalizer(obj: KubeObject, name: string): boolean {
  return (obj.metadata?.finalizers ?? []).includes(name);
}

export function identityOf(obj: KubeObject): ObjectIdentity {
  return {
    apiVersion: obj.apiVersion ?? '',
    kind: obj.kind ?? '',
    name: obj.metadata?.name ?? '',
    uid: obj.metadata?.uid ?? '',
    namespace: obj.metadata?.namespace ?? '',
  };
}

export class DependencyGraph {
  readonly #nodes = new Map<string, GraphNode>();
  readonly #queues: GraphQueues;
  /** dependent/owner pairs already reported as invalid (one event each) */
  readonly #reported = new Set<string>();
  /** kinds known to be namespaced, by `apiVersion/kind` (from discovery) */
  #isNamespaced: (apiVersion: string, kind: string) => boolean | undefined;

  constructor(queues: GraphQueues, isNamespaced: (apiVersion: string, kind: string) => boolean | undefined) {
    this.#queues = queues;
    this.#isNamespaced = isNamespaced;
  }

  get size(): number {
    return this.#nodes.size;
  }

  node(uid: string): GraphNode | undefined {
    return this.#nodes.get(uid);
  }

  /** an object was added or changed on an informer */
  observe(obj: KubeObject): void {
    const identity = identityOf(obj);
    if (!identity.uid) return;
    const beingDeleted = !!obj.metadata?.deletionTimestamp;
    const owners = [...(obj.metadata?.ownerReferences ?? [])];
    let node = this.#nodes.get(identity.uid);
    if (!node) {
      node = new GraphNode(identity, true);
      node.owners = owners;
      this.#nodes.set(identity.uid, node);
      this.#linkToOwners(node, owners);
    } else {
      // a virtual node now seen for real takes the object's coordinates
      if (!node.observed) node.identity = identity;
      node.observed = true;
      const { added, removed, unblocked } = diffOwners(node.owners, owners);
      node.owners = owners;
      this.#linkToOwners(node, added);
      for (const ref of removed) {
        const owner = this.#nodes.get(ref.uid);
        if (!owner) continue;
        owner.dependents.delete(node);
        // an owner waiting for its dependents may be free now
        if (owner.deletingDependents) this.#queues.attemptToDelete(owner);
      }
      for (const ref of unblocked) {
        const owner = this.#nodes.get(ref.uid);
        if (owner?.deletingDependents) this.#queues.attemptToDelete(owner);
      }
    }
    this.#checkDependentsNamespace(node);
    this.#transitions(node, obj, beingDeleted);
  }

  /** a namespaced owner seen for real: dependents in other namespaces can never reach it */
  #checkDependentsNamespace(owner: GraphNode): void {
    if (!owner.observed || owner.identity.namespace === '') return;
    for (const dep of owner.dependents) {
      if (dep.identity.namespace === owner.identity.namespace) continue;
      const ref = dep.owners.find((r) => r.uid === owner.identity.uid);
      if (ref) this.#reportInvalid(dep, ref);
      this.#queues.attemptToDelete(dep);
    }
  }

  #reportInvalid(dep: GraphNode, ref: OwnerReference): void {
    const key = `${dep.identity.uid}/${ref.uid}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    if (this.#reported.size > 10_000) this.#reported.clear();
    this.#queues.invalidOwnerNamespace(dep, ref, dep.identity.namespace);
  }

  /** an object was deleted (or vanished between lists) */
  forget(obj: KubeObject): void {
    const uid = obj.metadata?.uid;
    if (!uid) return;
    const node = this.#nodes.get(uid);
    if (!node) return;
    this.removeNode(node);
  }

  /** drop a node: its dependents are re-checked, and owners waiting on it may finish */
  removeNode(node: GraphNode): void {
    if (this.#nodes.get(node.identity.uid) !== node) return;
    this.#nodes.delete(node.identity.uid);
    for (const ref of node.owners) {
      const owner = this.#nodes.get(ref.uid);
      if (!owner) continue;
      owner.dependents.delete(node);
      if (owner.deletingDependents) this.#queues.attemptToDelete(owner);
    }
    for (const dep of node.dependents) this.#queues.attemptToDelete(dep);
    // a virtual owner that no one references any more need not stay
    for (const ref of node.owners) {
      const owner = this.#nodes.get(ref.uid);
      if (owner && !owner.observed && owner.dependents.size === 0) this.#nodes.delete(ref.uid);
    }
  }

  #linkToOwners(node: GraphNode, refs: readonly OwnerReference[]): void {
    for (const ref of refs) {
      let owner = this.#nodes.get(ref.uid);
      const ownerNamespaced = this.#isNamespaced(ref.apiVersion, ref.kind);
      // kube 1.20: a cluster-scoped dependent cannot have a namespaced owner, and a namespaced
      // owner must be in the dependent's namespace; either way the owner counts as absent
      if (ownerNamespaced === true && (node.identity.namespace === '' || (owner?.observed && owner.identity.namespace !== node.identity.namespace))) {
        this.#reportInvalid(node, ref);
      }
      if (!owner) {
        owner = new GraphNode(
          { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: ownerNamespaced === false ? '' : node.identity.namespace },
          false,
        );
        this.#nodes.set(ref.uid, owner);
        // an owner we have not seen: verify it exists (kube's virtual node)
        this.#queues.attemptToDelete(owner);
      }
      owner.dependents.add(node);
      if (owner.observed && owner.identity.namespace !== node.identity.namespace && owner.identity.namespace !== '') {
        // the dependent can never resolve this owner: let the collector judge it
        this.#queues.attemptToDelete(node);
      }
    }
  }

  #transitions(node: GraphNode, obj: KubeObject, beingDeleted: boolean): void {
    const wasBeingDeleted = node.beingDeleted;
    node.beingDeleted = beingDeleted;
    if (beingDeleted && hasFinalizer(obj, ORPHAN_FINALIZER)) {
      this.#queues.attemptToOrphan(node);
    }
    if (beingDeleted && hasFinalizer(obj, FOREGROUND_FINALIZER)) {
      const starts = !node.deletingDependents || !wasBeingDeleted;
      node.deletingDependents = true;
      if (starts) for (const dep of node.dependents) this.#queues.attemptToDelete(dep);
      this.#queues.attemptToDelete(node);
    } else {
      node.deletingDependents = false;
    }
  }
}

/** owner references added, removed, and changed from blocking to not blocking */
export function diffOwners(
  before: readonly OwnerReference[],
  after: readonly OwnerReference[],
): { added: OwnerReference[]; removed: OwnerReference[]; unblocked: OwnerReference[] } {
  const old = new Map(before.map((r) => [r.uid, r]));
  const next = new Map(after.map((r) => [r.uid, r]));
  const added = after.filter((r) => !old.has(r.uid));
  const removed = before.filter((r) => !next.has(r.uid));
  const unblocked = after.filter((r) => old.get(r.uid)?.blockOwnerDeletion === true && r.blockOwnerDeletion !== true);
  return { added, removed, unblocked };
}
