/**
 * The seam between the HTTP layer and the registry. The HTTP layer routes a request to a kind,
 * decodes the body (JSON/YAML; protobuf later) into plain objects, parses query parameters into the
 * typed options below (non-integers -> 400), and calls a Registry verb. The registry does everything
 * else: resourceVersion semantics, selectors, continue tokens, defaulting, validation, dry-run,
 * deletion, watch. It throws ApiError (src/api/errors.ts) for every failure; the HTTP layer writes its
 * `status` as the response body with `status.code` as the HTTP status.
 */
import type { KindDefinition, KubeObject } from '../kind';
import type { Status } from '../errors';
import type { UserInfo } from '../reviews/authorizer';

export interface Target {
  kind: KindDefinition;
  /**
   * namespaced kinds: the namespace from the path; undefined for list/watch across namespaces.
   * cluster-scoped kinds: always undefined.
   */
  namespace?: string;
  /** the object name from the path (get, update, patch, delete, subresources) */
  name?: string;
}

/** query parameters of list, watch and deletecollection, as strings except where typed */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  /**
   * server-internal, never set from a request: a list without resourceVersion may come from the
   * kind's watch cache when the cache reflects every commit this server knows of (what an
   * in-process informer's lister holds; admission plugins read this way)
   */
  newestFromCache?: boolean;
}

export interface GetOptions {
  resourceVersion?: string;
}

export interface WriteOptions {
  /** dryRun=All was given (the HTTP layer rejects any other value with 400) */
  dryRun: boolean;
  /** who asks (after impersonation); undefined when the server runs without authentication */
  user?: UserInfo;
  fieldManager?: string;
  /** the request's User-Agent: without fieldManager, its first segment names the manager (`kubectl`) */
  userAgent?: string;
  /** 'Ignore' | 'Warn' | 'Strict' (validated by the HTTP layer); undefined = the verb's default */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /**
   * what kube's strict decoding found in the body itself before any schema check, in its words:
   * `duplicate field "metadata.name"` (JSON), `yaml: unmarshal errors: ...` (YAML). Reported with
   * the unknown fields, first, under fieldValidation (Strict: one 400; Warn: a warning each).
   */
  strictDecodingErrors?: string[];
  /**
   * an object the server writes from its own code (the bootstrap objects): the OpenAPI schema check
   * is skipped, since compiling a kind's schema costs a start more than the whole write;
   * test/api/registry/bootstrap-schema.test.ts checks every such object against its schema instead.
   * Never set from a request.
   */
  trusted?: boolean;
}

export interface DeleteOptions extends WriteOptions {
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface KubeList {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: KubeObject[];
}

export interface WriteResult {
  object: KubeObject;
  /** true when the write created the object (HTTP 201) */
  created: boolean;
  /** `Warning: 299` header texts */
  warnings?: string[];
}

export interface DeleteResult {
  /** 200 or 202 (kube answers 202 only for orphanDependents=false on a pending deletion) */
  code: 200 | 202;
  /** the object (pending deletion, or kinds that return the deleted object) or a Success Status */
  body: KubeObject | Status;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface ApiWatchEvent {
  type: WatchEventType;
  /** the object in the requested version; a Status for ERROR; only metadata.resourceVersion for BOOKMARK */
  object: KubeObject | Status;
}

export interface WatchSink {
  /** deliver one event; called in order. Returns false when the consumer wants no more (closed). */
  send(event: ApiWatchEvent): boolean;
  /** the watch ended on the registry side (after an ERROR event, or the store closing) */
  end(): void;
}

export interface WatchHandle {
  cancel(): void;
}

export interface Registry {
  get(target: Target, options: GetOptions): Promise<KubeObject>;
  list(target: Target, options: ListOptions): Promise<KubeList>;
  /**
   * start a watch. Rejects with ApiError for errors known before the stream starts (bad selector,
   * bad resourceVersion syntax); once started, later errors (410 too old, fell behind) arrive as an
   * ERROR event followed by sink.end(). Timeouts are the HTTP layer's job (it calls cancel()).
   */
  watch(target: Target, options: ListOptions, sink: WatchSink): Promise<WatchHandle>;
  create(target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult>;
  /** PUT: replace (or create when the kind allows create-on-update; kube allows it for few kinds) */
  update(target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult>;
  /** PATCH: body is the raw patch text as received */
  patch(target: Target, type: PatchType, body: string, options: WriteOptions & { force?: boolean }): Promise<WriteResult>;
  delete(target: Target, options: DeleteOptions): Promise<DeleteResult>;
  deleteCollection(target: Target, list: ListOptions, options: DeleteOptions): Promise<KubeList>;

  /** the status subresource: GET/PUT/PATCH */
  getStatus(target: Target, options: GetOptions): Promise<KubeObject>;
  updateStatus(target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult>;
  patchStatus(target: Target, type: PatchType, body: string, options: WriteOptions & { force?: boolean }): Promise<WriteResult>;

  /** the scale subresource (autoscaling/v1 Scale) */
  getScale(target: Target, options: GetOptions): Promise<KubeObject>;
  updateScale(target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult>;
  patchScale(target: Target, type: PatchType, body: string, options: WriteOptions & { force?: boolean }): Promise<WriteResult>;

  /**
   * the subresources a kind declares beyond status and scale (KindDefinition.subresources), by name:
   * GET/PUT/PATCH of `partial` ones, POST of `action` ones. An undeclared name is a 404.
   */
  getSubresource(target: Target, subresource: string, options: GetOptions): Promise<KubeObject>;
  updateSubresource(target: Target, subresource: string, body: KubeObject, options: WriteOptions): Promise<WriteResult>;
  patchSubresource(target: Target, subresource: string, type: PatchType, body: string, options: WriteOptions & { force?: boolean }): Promise<WriteResult>;
  createSubresource(target: Target, subresource: string, body: KubeObject, options: WriteOptions): Promise<WriteResult>;
}
