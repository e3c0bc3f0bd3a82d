/**
 * What the RBAC authorizer reads: Roles, ClusterRoles, RoleBindings and ClusterRoleBindings kept
 * in memory by list + watch through the registry (kube's shared informers and listers). Aggregated
 * ClusterRoles are read as stored: the aggregation controller fills their rules.
 */
import type { KindDefinition, KubeObject } from '../../api/kind';
import type { Registry } from '../../api/registry/types';
import { RegistryInformer } from '../../aggregator/registry-informer';

/** the v1 kinds of rbac.authorization.k8s.io as the scheme serves them */
export interface RbacKinds {
  roles: KindDefinition;
  clusterRoles: KindDefinition;
  roleBindings: KindDefinition;
  clusterRoleBindings: KindDefinition;
}

/** read access to the RBAC objects (an informer-backed index, or a fixed set in tests) */
export interface RbacObjects {
  role(namespace: string, name: string): KubeObject | undefined;
  clusterRole(name: string): KubeObject | undefined;
  roleBindings(namespace: string): KubeObject[];
  clusterRoleBindings(): KubeObject[];
}

/** a fixed set of RBAC objects, for tests and tools */
export class StaticRbacObjects implements RbacObjects {
  readonly #objects: KubeObject[];

  constructor(objects: KubeObject[]) {
    this.#objects = objects;
  }

  #find(kind: string, namespace: string | undefined, name?: string): KubeObject[] {
    return this.#objects.filter(
      (o) => o.kind === kind && (namespace === undefined || (o.metadata?.namespace ?? '') === namespace) && (name === undefined || o.metadata?.name === name),
    );
  }

  role(namespace: string, name: string) {
    return this.#find('Role', namespace, name)[0];
  }
  clusterRole(name: string) {
    return this.#find('ClusterRole', undefined, name)[0];
  }
  roleBindings(namespace: string) {
    return this.#find('RoleBinding', namespace);
  }
  clusterRoleBindings() {
    return this.#find('ClusterRoleBinding', undefined);
  }
}

/** the four informers; start() begins list + watch, synced resolves once all four have listed */
export class RbacInformers implements RbacObjects {
  readonly #roles: RegistryInformer;
  readonly #clusterRoles: RegistryInformer;
  readonly #roleBindings: RegistryInformer;
  readonly #clusterRoleBindings: RegistryInformer;

  constructor(opts: { registry: Registry; kinds: RbacKinds; onError?: (err: unknown) => void }) {
    const make = (kind: KindDefinition) => new RegistryInformer({ registry: opts.registry, kind, onError: opts.onError });
    this.#roles = make(opts.kinds.roles);
    this.#clusterRoles = make(opts.kinds.clusterRoles);
    this.#roleBindings = make(opts.kinds.roleBindings);
    this.#clusterRoleBindings = make(opts.kinds.clusterRoleBindings);
  }

  #all(): RegistryInformer[] {
    return [this.#roles, this.#clusterRoles, this.#roleBindings, this.#clusterRoleBindings];
  }

  start(): void {
    for (const i of this.#all()) i.start();
  }

  stop(): void {
    for (const i of this.#all()) i.stop();
  }

  get synced(): Promise<void> {
    return Promise.all(this.#all().map((i) => i.synced)).then(() => undefined);
  }

  role(namespace: string, name: string) {
    return this.#roles.get(`${namespace}/${name}`);
  }
  clusterRole(name: string) {
    return this.#clusterRoles.get(name);
  }
  roleBindings(namespace: string) {
    return this.#roleBindings.list().filter((b) => b.metadata?.namespace === namespace);
  }
  clusterRoleBindings() {
    return this.#clusterRoleBindings.list();
  }
}
