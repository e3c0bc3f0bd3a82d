/**
 * What a plugin is built with (kube's plugin initializers): the objects it reads and writes
 * (through the registry, bound once it exists, since the registry itself is built with the
 * chain), the authorizer, its section of the admission configuration file, and the flags some
 * plugins take.
 */
import type { KubeObject } from '../api/kind';
import type { Scheme } from '../api/scheme';
import type { Registry } from '../api/registry/types';
import type { Authorizer } from '../api/reviews/authorizer';
import { isApiError } from '../api/errors';

export interface AdmissionFlags {
  /** --default-not-ready-toleration-seconds */
  readonly defaultNotReadyTolerationSeconds: number;
  /** --default-unreachable-toleration-seconds */
  readonly defaultUnreachableTolerationSeconds: number;
}

export const DEFAULT_ADMISSION_FLAGS: AdmissionFlags = Object.freeze({
  defaultNotReadyTolerationSeconds: 300,
  defaultUnreachableTolerationSeconds: 300,
});

/** a resource by group, version and plural name (`{ group: '', version: 'v1', resource: 'pods' }`) */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
}

/** the objects plugins read and the few writes they make, as the API server itself (no admission user) */
export class AdmissionObjects {
  readonly #scheme: Scheme;
  #registry?: Registry;

  constructor(scheme: Scheme) {
    this.#scheme = scheme;
  }

  /** called once the registry built with the chain exists */
  bind(registry: Registry): void {
    this.#registry = registry;
  }

  get registry(): Registry {
    if (!this.#registry) throw new Error('admission objects used before the registry was bound');
    return this.#registry;
  }

  target(ref: ResourceRef, namespace?: string, name?: string) {
    const kind = this.#scheme.byResource(ref.group, ref.version, ref.resource);
    if (!kind) return undefined;
    return { kind, namespace: kind.namespaced ? namespace : undefined, name };
  }

  /** the served kind of an apiVersion and kind (a RESTMapper lookup), undefined when none */
  kindOf(apiVersion: string, kind: string) {
    return this.#scheme.byKind(apiVersion, kind);
  }

  /**
   * the object, or undefined when it (or its kind) does not exist. `cached`: as a plugin reading
   * its informer's lister, from the watch cache (resourceVersion 0), and only when it is not there
   * from the store (an object created a moment ago), as kube's NamespaceLifecycle does
   */
  async get(ref: ResourceRef, namespace: string, name: string, opts: { cached?: boolean } = {}): Promise<KubeObject | undefined> {
    const target = this.target(ref, namespace, name);
    if (!target) return undefined;
    const read = async (resourceVersion?: string) => {
      try {
        return await this.registry.get(target, resourceVersion === undefined ? {} : { resourceVersion });
      } catch (err) {
        if (isApiError(err) && err.code === 404) return undefined;
        throw err;
      }
    };
    return (opts.cached ? await read('0') : undefined) ?? read();
  }

  /**
   * every object of the resource (in `namespace` when given); none when the kind is not served.
   * As kube's plugins read their informers' listers: from the watch cache when it holds every
   * commit this server knows of (on SQLite always: it is fed inside each commit), else from the
   * store. ResourceQuota lists the namespace's quotas for every create, and that list from the
   * database was the largest storage read of a create.
   */
  async list(ref: ResourceRef, namespace?: string): Promise<KubeObject[]> {
    const target = this.target(ref, namespace);
    if (!target) return [];
    return (await this.registry.list(target, { newestFromCache: true })).items;
  }
}

export interface AdmissionPluginContext {
  readonly objects: AdmissionObjects;
  readonly authorizer?: Authorizer;
  readonly flags: AdmissionFlags;
  /** the plugin's configuration from --admission-control-config-file (undefined when none) */
  readonly configuration?: unknown;
  /** the file that configuration was read from (its own `path`, or the admission configuration file) */
  readonly configurationFile?: string;
}

export const CORE = (resource: string): ResourceRef => ({ group: '', version: 'v1', resource });
