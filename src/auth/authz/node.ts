/**
 * kube's Node authorizer (plugin/pkg/auth/authorizer/node) for node agents: users named
 * `system:node:<name>` in the group system:nodes. Secrets, configmaps, claims, volumes, volume
 * attachments and service account tokens are subdivided by the node graph (a node reaches only what
 * the pods bound to it use); its Node, its Lease and its CSINode by name; pods by the graph, the
 * `spec.nodeName=<node>` field selector and the writes the NodeRestriction admission plugin narrows
 * further. Everything else is decided by kube's static node rules (the system:node ClusterRole's).
 * Reads of single objects by list/watch go through the `metadata.name=` field selector the kubelet
 * uses. What it does not allow gets no opinion, so a later authorizer (RBAC) may still allow it.
 */
import type { AuthorizationAttributes, Authorizer, Decision, RulesResult, UserInfo } from '../../api/reviews/authorizer';
import { nodeRules } from '../../api/kinds/rbac/bootstrap/system-roles';
import { ruleAllows } from '../../api/kinds/rbac/rule-matching';
import type { NodeGraph, VertexType } from './node-graph';

export type { NodeGraph } from './node-graph';
export { podReferences } from './node-references';

const NODES_GROUP = 'system:nodes';
const NODE_PREFIX = 'system:node:';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** kube's nodeidentifier: the node's name, '' for a node user without one; undefined for everyone else */
export function nodeIdentity(user: UserInfo | undefined): string | undefined {
  if (!user || !user.name.startsWith(NODE_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.name.slice(NODE_PREFIX.length);
}

/** the value a field selector requires of `field` (`field=v` or `field==v` among its requirements) */
export function fieldSelectorValue(fieldSelector: string | undefined, field: string): string | undefined {
  for (const requirement of (fieldSelector ?? '').split(',')) {
    const m = /^\s*([^!=\s]+)\s*==?\s*(.*?)\s*$/.exec(requirement);
    if (m && m[1] === field) return m[2];
  }
  return undefined;
}

const allow: Decision = Object.freeze({ allowed: true });
const noOpinion = (reason?: string): Decision => (reason ? { allowed: false, reason } : { allowed: false });

export class NodeAuthorizer implements Authorizer {
  readonly #graph: NodeGraph;
  readonly #ready: Promise<void> | undefined;
  readonly #rules = nodeRules();

  constructor(opts: { graph: NodeGraph; ready?: Promise<void> }) {
    this.#graph = opts.graph;
    this.#ready = opts.ready;
  }

  async authorize(a: AuthorizationAttributes): Promise<Decision> {
    const node = nodeIdentity(a.user);
    if (node === undefined) return noOpinion();
    if (node === '') return noOpinion(`unknown node for user ${JSON.stringify(a.user?.name ?? '')}`);
    await this.#ready;
    if (a.resourceRequest) {
      const decided = this.#subdivided(node, a);
      if (decided) return decided;
    }
    return this.#rules.some((r) => ruleAllows(r, a)) ? allow : noOpinion();
  }

  /** kube's RulesFor: a node's permissions cannot be listed */
  async rulesFor(user: UserInfo | undefined): Promise<RulesResult> {
    if (nodeIdentity(user) === undefined) return { resourceRules: [], nonResourceRules: [], incomplete: false };
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
  }

  /** the resources kube subdivides; undefined for the rest (the static rules decide) */
  #subdivided(node: string, a: AuthorizationAttributes): Decision | undefined {
    const sub = a.subresource ?? '';
    switch (`${a.apiGroup ?? ''}/${a.resource ?? ''}`) {
      case '/secrets':
      case '/configmaps': {
        if (!['get', 'list', 'watch'].includes(a.verb)) return noOpinion('can only read resources of this type');
        if (sub !== '') return noOpinion('cannot read subresource');
        if (!a.namespace) return noOpinion('can only read namespaced object of this type');
        return this.#related(node, a.resource === 'secrets' ? 'secret' : 'configmap', a);
      }
      case '/persistentvolumeclaims':
        if (sub === 'status') {
          if (!['update', 'patch'].includes(a.verb)) return noOpinion('can only get/update/patch this type');
          return this.#related(node, 'persistentvolumeclaim', a);
        }
        return this.#get(node, 'persistentvolumeclaim', a);
      case '/persistentvolumes':
        return this.#get(node, 'persistentvolume', a);
      case 'storage.k8s.io/volumeattachments':
        return this.#get(node, 'volumeattachment', a);
      case '/serviceaccounts':
        if (a.verb !== 'create' || !a.name) return noOpinion('can only create tokens for individual service accounts');
        if (sub !== 'token') return noOpinion('can only create token subresource of serviceaccount');
        return this.#related(node, 'serviceaccount', a);
      case 'coordination.k8s.io/leases':
        if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
        if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
        // the name of a create is checked by NodeRestriction, which sees the object
        if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
        return allow;
      case 'storage.k8s.io/csinodes':
        if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
        if (sub !== '') return noOpinion('cannot authorize CSINode subresources');
        if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
        return allow;
      case '/nodes':
        return this.#node(node, a);
      case '/pods':
        return this.#pod(node, a);
      default:
        return undefined;
    }
  }

  /** kube's authorizeNode (with field selectors authorized): writes go to NodeRestriction, reads are by name */
  #node(node: string, a: AuthorizationAttributes): Decision {
    const sub = a.subresource ?? '';
    if (sub === '' && ['create', 'update', 'patch'].includes(a.verb)) return allow;
    if (sub === '' && ['get', 'list', 'watch'].includes(a.verb)) {
      const name = this.#name(a);
      if (name === node) return allow;
      if (name === '') return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
      return noOpinion(`node '${node}' cannot read '${name}', only its own Node object`);
    }
    if (sub === 'status' && ['update', 'patch'].includes(a.verb)) return allow;
    return noOpinion();
  }

  /** kube's authorizePod: reads through the graph or the node's own field selector; writes go to NodeRestriction */
  #pod(node: string, a: AuthorizationAttributes): Decision {
    const sub = a.subresource ?? '';
    if (sub === '') {
      if (a.verb === 'get') return this.#get(node, 'pod', a);
      if (a.verb === 'list' || a.verb === 'watch') {
        if (fieldSelectorValue(a.fieldSelector, 'spec.nodeName') === node) return allow;
        if (this.#name(a) !== '') return this.#related(node, 'pod', a);
        return noOpinion('can only list/watch pods with spec.nodeName field selector');
      }
      if (a.verb === 'create' || a.verb === 'delete') return allow;
    }
    if (sub === 'status' && ['update', 'patch'].includes(a.verb)) return allow;
    if (sub === 'eviction' && a.verb === 'create') return allow;
    return noOpinion();
  }

  /** kube's authorizeGet: only get, only the object itself */
  #get(node: string, type: VertexType, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if ((a.subresource ?? '') !== '') return noOpinion('cannot get subresource');
    return this.#related(node, type, a);
  }

  #related(node: string, type: VertexType, a: AuthorizationAttributes): Decision {
    const name = this.#name(a);
    if (name === '') return noOpinion('No Object name found');
    if (this.#graph.hasPath(node, type, a.namespace ?? '', name)) return allow;
    return noOpinion(`no relationship found between node '${node}' and this object`);
  }

  /** the object's name: from the path, or from a list/watch narrowed by `metadata.name=` (kube's request info does this) */
  #name(a: AuthorizationAttributes): string {
    if (a.name) return a.name;
    if (a.verb === 'list' || a.verb === 'watch') return fieldSelectorValue(a.fieldSelector, 'metadata.name') ?? '';
    return '';
  }
}
