/**
 * kube's Node authorizer, simplified but closed by default: a node agent (user
 * `system:node:<name>` in group system:nodes) may read and write its own Node and its status, read
 * the pods bound to it and write their status, read the secrets, configmaps and
 * persistentvolumeclaims those pods use and the persistentvolumes those claims are bound to,
 * create events, use its Lease in kube-node-lease, and create and read CertificateSigningRequests.
 * Lists and watches of single objects are allowed only with the `metadata.name=` field selector
 * the kubelet uses. Anything else, and any other user, gets no opinion.
 */
import type { KubeObject } from '../../api/kind';
import type { AuthorizationAttributes, Authorizer, Decision } from '../../api/reviews/authorizer';
import { isObj, str } from '../../api/kinds/util';

const NODES_GROUP = 'system:nodes';
const NODE_PREFIX = 'system:node:';
const READ = ['get', 'list', 'watch'];

/** what the node authorizer looks up: pods by node, claims by namespace and name */
export interface NodeGraph {
  podsOnNode(node: string): KubeObject[];
  persistentVolumeClaim(namespace: string, name: string): KubeObject | undefined;
}

type Refs = { secrets: Set<string>; configmaps: Set<string>; persistentvolumeclaims: Set<string> };

const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** the secrets, configmaps and claims a pod references (volumes, env, envFrom, pull secrets) */
export function podReferences(pod: KubeObject): Refs {
  const refs: Refs = { secrets: new Set(), configmaps: new Set(), persistentvolumeclaims: new Set() };
  const add = (set: Set<string>, name: unknown) => {
    if (typeof name === 'string' && name !== '') set.add(name);
  };
  const spec = isObj(pod.spec) ? pod.spec : {};
  for (const s of list(spec.imagePullSecrets)) add(refs.secrets, s.name);
  for (const v of list(spec.volumes)) {
    if (isObj(v.secret)) add(refs.secrets, v.secret.secretName);
    if (isObj(v.configMap)) add(refs.configmaps, v.configMap.name);
    if (isObj(v.persistentVolumeClaim)) add(refs.persistentvolumeclaims, v.persistentVolumeClaim.claimName);
    if (isObj(v.projected)) {
      for (const src of list(v.projected.sources)) {
        if (isObj(src.secret)) add(refs.secrets, src.secret.name);
        if (isObj(src.configMap)) add(refs.configmaps, src.configMap.name);
      }
    }
    for (const key of ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos', 'csi']) {
      const source = v[key];
      if (!isObj(source)) continue;
      add(refs.secrets, source.secretName);
      for (const refKey of ['secretRef', 'nodePublishSecretRef']) if (isObj(source[refKey])) add(refs.secrets, (source[refKey] as Record<string, unknown>).name);
    }
  }
  for (const c of [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)]) {
    for (const e of list(c.env)) {
      const from = isObj(e.valueFrom) ? e.valueFrom : {};
      if (isObj(from.secretKeyRef)) add(refs.secrets, from.secretKeyRef.name);
      if (isObj(from.configMapKeyRef)) add(refs.configmaps, from.configMapKeyRef.name);
    }
    for (const e of list(c.envFrom)) {
      if (isObj(e.secretRef)) add(refs.secrets, e.secretRef.name);
      if (isObj(e.configMapRef)) add(refs.configmaps, e.configMapRef.name);
    }
  }
  return refs;
}

/** the one name a `metadata.name=x` field selector asks for, else undefined */
function selectedName(fieldSelector: string | undefined): string | undefined {
  const m = /^metadata\.name==?([^,]+)$/.exec(fieldSelector ?? '');
  return m?.[1];
}

export class NodeAuthorizer implements Authorizer {
  readonly #graph: NodeGraph;
  readonly #ready: Promise<void> | undefined;

  constructor(opts: { graph: NodeGraph; ready?: Promise<void> }) {
    this.#graph = opts.graph;
    this.#ready = opts.ready;
  }

  async authorize(a: AuthorizationAttributes): Promise<Decision> {
    const user = a.user;
    if (!user || !user.groups.includes(NODES_GROUP) || !user.name.startsWith(NODE_PREFIX)) return { allowed: false };
    const node = user.name.slice(NODE_PREFIX.length);
    if (node === '' || !a.resourceRequest) return { allowed: false };
    await this.#ready;
    return this.#decide(node, a) ? { allowed: true } : { allowed: false };
  }

  #decide(node: string, a: AuthorizationAttributes): boolean {
    const group = a.apiGroup ?? '';
    const sub = a.subresource ?? '';
    // the object the request names: from the path, or a list/watch narrowed to one name
    const name = a.name || (a.verb === 'list' || a.verb === 'watch' ? selectedName(a.fieldSelector) : undefined) || '';
    switch (`${group}/${a.resource ?? ''}`) {
      case '/nodes':
        if (sub === '') return name === node && [...READ, 'create', 'update', 'patch'].includes(a.verb);
        return sub === 'status' && name === node && ['get', 'update', 'patch'].includes(a.verb);
      case '/pods': {
        if ((a.verb === 'list' || a.verb === 'watch') && sub === '' && !a.name) {
          return /^spec\.nodeName==?([^,]+)$/.exec(a.fieldSelector ?? '')?.[1] === node;
        }
        const pod = this.#pod(node, a.namespace ?? '', name);
        if (!pod) return false;
        if (sub === '') return ['get', 'delete'].includes(a.verb);
        return sub === 'status' && ['get', 'update', 'patch'].includes(a.verb);
      }
      case '/secrets':
      case '/configmaps':
      case '/persistentvolumeclaims':
        return sub === '' && READ.includes(a.verb) && name !== '' && this.#referenced(node, a.resource as keyof Refs, a.namespace ?? '', name);
      case '/persistentvolumes':
        return sub === '' && READ.includes(a.verb) && name !== '' && this.#volumeUsed(node, name);
      case '/events':
      case 'events.k8s.io/events':
        return ['create', 'update', 'patch'].includes(a.verb);
      case 'coordination.k8s.io/leases':
        return a.namespace === 'kube-node-lease' && name === node && ['get', 'create', 'update', 'patch', 'delete', 'watch', 'list'].includes(a.verb);
      case 'certificates.k8s.io/certificatesigningrequests':
        return sub === '' && ['create', ...READ].includes(a.verb);
      default:
        return false;
    }
  }

  #pod(node: string, namespace: string, name: string): KubeObject | undefined {
    return this.#graph.podsOnNode(node).find((p) => p.metadata?.namespace === namespace && p.metadata?.name === name);
  }

  #referenced(node: string, resource: keyof Refs, namespace: string, name: string): boolean {
    return this.#graph.podsOnNode(node).some((p) => p.metadata?.namespace === namespace && podReferences(p)[resource].has(name));
  }

  #volumeUsed(node: string, volume: string): boolean {
    return this.#graph.podsOnNode(node).some((p) => {
      const ns = str(p.metadata?.namespace);
      return [...podReferences(p).persistentvolumeclaims].some((claim) => {
        const pvc = this.#graph.persistentVolumeClaim(ns, claim);
        return isObj(pvc?.spec) && pvc.spec.volumeName === volume;
      });
    });
  }
}
