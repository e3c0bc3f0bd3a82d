/**
 * A served kind is one declaration: names, scope, schema, strategy and table. The registry, routes,
 * discovery and (later) OpenAPI are generic over these; adding a kind never adds routes.
 */
import type { StatusCause } from './errors';
import type { UserInfo } from './reviews/authorizer';
import type { Definitions } from '../schema/types';

/** any Kubernetes object as JSON */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  selfLink?: string;
  [field: string]: unknown;
}

export interface TableColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  /** 0 = shown by default; 1 = only with -o wide */
  priority: number;
}

export interface TableDefinition {
  /** the columns, Name first (kube's first column is always Name, format "name") */
  columns: TableColumnDefinition[];
  /** one cell per column, in order; `now` lets AGE-like cells be computed consistently */
  cells(obj: KubeObject, now: Date): unknown[];
}

/** the scale subresource of a kind (autoscaling/v1 Scale) */
export interface ScaleDefinition {
  /** read/write spec replicas */
  getSpecReplicas(obj: KubeObject): number;
  setSpecReplicas(obj: KubeObject, replicas: number): void;
  getStatusReplicas(obj: KubeObject): number;
  /** the label selector string of the scale status (`app=web`), or '' */
  getSelector(obj: KubeObject): string;
}

export interface StorageLocation {
  /** group and resource of the storage key; kinds served in several versions share one location */
  group: string;
  resource: string;
}

/**
 * A subresource beyond status and scale, declared on its kind for routing, discovery and OpenAPI;
 * its behaviour lives in the registry (src/api/registry/subresources/, by `<group>/<resource>/<name>`).
 *
 * - `partial`: a view of the whole object whose writes change only some of its fields, as the status
 *   subresource does (certificatesigningrequests/approval, pods/ephemeralcontainers): GET, PUT, PATCH.
 * - `action`: a POST of a body of another kind that acts on the object (pods/binding with a Binding,
 *   pods/eviction with an Eviction); the answer is what the handler returns.
 * - `connect`: streams and proxies served by a node agent or a service (pods/log, exec, attach,
 *   portforward, proxy; nodes/proxy; services/proxy).
 */
export interface SubresourceDefinition {
  name: string;
  type: 'partial' | 'action' | 'connect';
  /** discovery verbs; partial: get, patch, update; action: create; connect: kube's verbs (get, create, ...) */
  verbs: string[];
  /** the kind discovery names for it; default: the parent's own kind */
  kind?: { group: string; version: string; kind: string };
  /** action: the kinds a body may have (`v1`/`Binding`, `policy/v1`/`Eviction`, ...); the first is the preferred one */
  bodyKinds?: Array<{ apiVersion: string; kind: string }>;
  /** OpenAPI: the definition name of the request and response body (default: the parent's schemaName) */
  schemaName?: string;
}

export interface KindStrategy {
  /**
   * kube's defaulting for this version (SetDefaults_*): fill unset fields in place. Applied on
   * create, update, patch results, and to objects read back from storage.
   */
  defaults(obj: KubeObject): void;
  /**
   * kube's PrepareForCreate: e.g. reset status, set initial phase. Runs before validation.
   * `requester` is the authenticated user of the request (undefined for in-process writes).
   */
  prepareForCreate?(obj: KubeObject, requester?: UserInfo): void;
  /** kube's PrepareForUpdate on the main resource; status is already copied from old by the registry */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /**
   * after validation and admission, just before a create or update is written (not for dry runs):
   * work that needs storage itself, and may still adjust the object or refuse the write (the
   * service allocator claims its values here)
   */
  beforeStore?(obj: KubeObject, old?: KubeObject): Promise<void>;
  /**
   * validation of the whole object (create when old is undefined; update otherwise, including
   * "Cannot be updated" immutability against old). Returns causes (empty = valid), field paths as
   * kube writes them: `spec.template.spec.containers[0].image`.
   * Metadata name/namespace/labels/annotations formats are validated by the registry, not here.
   */
  validate(obj: KubeObject, old?: KubeObject): StatusCause[];
  /** validation of a write to the status subresource */
  validateStatus?(obj: KubeObject, old: KubeObject): StatusCause[];
  /**
   * kube's status strategy PrepareForUpdate, after the registry's (everything but metadata and
   * status from the stored object, labels too): kinds whose status writes keep more of the old
   * metadata (custom resources: all of it but managedFields) adjust `obj` here
   */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject): void;
}

export interface KindDefinition {
  /** '' for core */
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** plural resource name used in URLs */
  resource: string;
  singular: string;
  namespaced: boolean;
  /** how metadata.name is validated (kube's ValidateObjectMeta name function); default dns1123Subdomain */
  nameValidation?: 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'pathSegment';
  shortNames: string[];
  categories: string[];
  /** verbs served on the main resource (discovery); default: all of create, delete, deletecollection, get, list, patch, update, watch */
  verbs?: string[];
  /** where objects are stored; several versions of one kind share a location */
  storage: StorageLocation;
  /** the apiVersion objects are stored with; when different from this version, convert */
  storageVersion: string;
  /** convert a stored object (apiVersion = storageVersion) into this version; default: set apiVersion */
  fromStorage?(obj: KubeObject): KubeObject;
  /** convert an object of this version into the storage version; default: set apiVersion */
  toStorage?(obj: KubeObject): KubeObject;
  /** name of the object's definition in the schema source (`io.k8s.api.apps.v1.Deployment`) */
  schemaName: string;
  /** metadata.generation is set to 1 on create and bumped when anything but metadata and status changes */
  tracksGeneration: boolean;
  /** the kind has a status subresource: main-resource writes keep the old status, /status writes change only status */
  statusSubresource: boolean;
  scale?: ScaleDefinition;
  strategy: KindStrategy;
  /**
   * the field selector labels of an object, beyond metadata.name and metadata.namespace which the
   * registry adds (pods: spec.nodeName, status.phase, ...). Unknown field names in a selector are a 400.
   */
  selectableFields?(obj: KubeObject): Record<string, string>;
  /**
   * kube's watch trigger (the cacher's IndexedTrigger): a selectable field whose value the watch
   * cache indexes its watchers by, so an event is offered only to the watchers that pinned its
   * value (or the value before the change) with `field=value`, and to those that pinned none
   * (pods: spec.nodeName, one watch per node agent)
   */
  watchTriggerField?: string;
  /** kube's server-side table; undefined = the default Name / Created At table */
  table?: TableDefinition;
  /** default grace period in seconds for DELETE (pods: from spec.terminationGracePeriodSeconds); undefined = immediate */
  deleteGracePeriod?(obj: KubeObject): number | undefined;
  /**
   * why kube refuses a DELETE of the named object (a REST Delete override: the system
   * PriorityClasses), or undefined; answered 403 Forbidden. A deletecollection is not checked, as
   * kube's collection delete bypasses the override.
   */
  deleteForbidden?(name: string): string | undefined;
  /** 'Background' for everything in apps/v1 and most kinds; kube's per-kind default GC policy */
  defaultGarbageCollectionPolicy?: 'Background' | 'Orphan';
  /** subresources beyond status and scale */
  subresources?: SubresourceDefinition[];
  /**
   * schema definitions the kind brings with it, for kinds whose schemas are not in the built-in
   * source (src/schema): custom resources. They join the OpenAPI documents while the kind is served.
   */
  definitions?: Definitions;
}
