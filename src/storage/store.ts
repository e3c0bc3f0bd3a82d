/**
 * The Store contract: a key-value revision log with etcd's semantics, which the API layer builds on.
 *
 * - Keys are strings such as `/registry/apps/deployments/default/web`. Values are opaque UTF-8 strings
 *   (the API layer stores JSON).
 * - Every successful mutation (create, update, delete) gets a new revision: a positive integer, strictly
 *   increasing across the whole store, with no gaps between committed mutations of one store.
 * - A promise returned by a mutation resolves only after the transaction holding it has committed
 *   durably; "acknowledged" means "committed".
 * - Errors are thrown as StorageError with one of the codes below, never as driver errors.
 */

export type Revision = number;

export interface KeyValue {
  key: string;
  value: string;
  /** revision of the mutation that produced this value (the API's resourceVersion) */
  modRevision: Revision;
  /** revision at which the key was created (unchanged by updates) */
  createRevision: Revision;
  /**
   * the value was stored in an older form than a write would store it now (encrypted with a key or
   * provider that is no longer the first): an update must write it even when nothing else changed
   */
  stale?: boolean;
}

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: StoreEventType;
  key: string;
  /** the revision of this event */
  revision: Revision;
  /** ADDED/MODIFIED: the new value. DELETED: the last value the key held before deletion. */
  value: string;
  /** MODIFIED and DELETED: the value before this event (DELETED: same as value). Undefined for ADDED. */
  prevValue?: string;
  /** createRevision of the key this event belongs to */
  createRevision: Revision;
}

export interface ListOptions {
  /**
   * Read the state at exactly this revision. Undefined means "the newest committed state".
   * Throws Compacted when revision < compactRevision(); throws FutureRevision when revision > currentRevision().
   */
  revision?: Revision;
  /**
   * only keys >= startKey (used by continue tokens); must still begin with the prefix. To continue
   * after a page, pass the page's last key + '\u0000' (as kube's etcd3 store does) together with
   * the page's revision. A startKey ordered before the prefix is ignored.
   */
  startKey?: string;
  /** at most this many items (0 or undefined: no limit) */
  limit?: number;
  /**
   * false: the caller knows the count of the remaining keys another way (the watch cache), so the
   * store need not count them (`remaining` is then undefined). Default true.
   */
  countRemaining?: boolean;
}

export interface ListResult {
  items: KeyValue[];
  /** the revision the list was read at */
  revision: Revision;
  /** true when keys after the last item exist under the prefix at that revision */
  more: boolean;
  /**
   * number of keys after the returned items, when cheap to know; otherwise undefined. The SQLite
   * store sets it (0 when more is false) for reads of the newest state and leaves it undefined for
   * reads at an older revision.
   */
  remaining?: number;
}

export interface WatchOptions {
  /** deliver events with revision > afterRevision. Throws/reports Compacted if afterRevision < compactRevision(). */
  afterRevision: Revision;
  /** every key starting with this prefix */
  prefix: string;
  /**
   * called for each event, strictly in revision order, with no gaps or duplicates for that prefix.
   * Never called before watch() has returned. An exception thrown here is logged and ignored.
   */
  onEvent: (event: StoreEvent) => void;
  /**
   * called once when the watch ends abnormally (Compacted history, a watcher that fell behind,
   * store closing). No events follow it.
   */
  onError: (err: StorageError) => void;
  /**
   * called when the store knows all events up to `revision` have been delivered (for BOOKMARKs).
   * The SQLite store calls it about once a second once the watch has caught up with the newest
   * revision (not while it is still replaying history).
   */
  onProgress?: (revision: Revision) => void;
}

export interface Watch {
  /** stop delivering events; idempotent */
  cancel(): void;
}

export interface Store {
  /** the newest committed revision (0 for an empty store) */
  currentRevision(): Revision;
  /** the revision at or below which history has been compacted (0 if never) */
  compactRevision(): Revision;

  /**
   * the newest value of key, or, with revision, the value at that revision; undefined if absent.
   * With a revision: Compacted if revision < compactRevision(), FutureRevision if > currentRevision().
   */
  get(key: string, revision?: Revision): Promise<KeyValue | undefined>;
  /**
   * keys beginning with prefix, in ascending key order (byte order of their UTF-8 encoding); at most
   * options.limit of them, and `more` tells whether others follow.
   */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /** number of keys beginning with prefix at the newest revision */
  count(prefix: string): Promise<number>;

  /** create key; throws Exists if it is present */
  create(key: string, value: string): Promise<KeyValue>;
  /**
   * replace key's value; throws NotFound if absent; with expectedRevision, throws Conflict
   * unless the key's modRevision equals it.
   */
  update(key: string, value: string, expectedRevision?: Revision): Promise<KeyValue>;
  /**
   * delete key; returns the deleted value with modRevision = the delete's revision.
   * NotFound if absent; Conflict if expectedRevision is given and stale.
   */
  delete(key: string, expectedRevision?: Revision): Promise<KeyValue>;

  /**
   * start a watch; see WatchOptions. Events begin after options.afterRevision, which may be older
   * than the in-memory event buffer (history is then replayed from the log) or newer than the newest
   * revision (events start once it is passed). Errors (Compacted, Closed) arrive through onError.
   */
  watch(options: WatchOptions): Watch;

  /**
   * wait until currentRevision() >= revision or timeoutMs passes; resolves true if reached.
   * (Used for "not older than" reads of revisions this instance has not seen yet.)
   */
  waitForRevision(revision: Revision, timeoutMs: number): Promise<boolean>;

  /** a cheap round trip to the database (health checks) */
  ping(): Promise<void>;
  /**
   * resolves when writes can be committed; rejects with the Unwritable error while they cannot (a
   * full disk, a read-only file system). Cheap while writes succeed: only after a failed commit does
   * it try a small commit of its own, so readiness comes back without waiting for client writes.
   * Optional: a store without it is taken as writable.
   */
  writable?(): Promise<void>;
  /**
   * compact history up to and including revision (superseded rows and tombstones); returns rows
   * removed. Afterwards reads and watches at revisions < revision are Compacted; the state at every
   * revision >= revision stays readable, and the newest value of every key is never removed.
   * A revision <= compactRevision() removes nothing; > currentRevision() throws FutureRevision.
   */
  compact(revision: Revision): Promise<number>;
  /**
   * the store that holds the keys under prefix, with its own revisions (a routing store built from
   * --etcd-servers-overrides answers the override's store). Absent: this store holds every key.
   */
  storeFor?(prefix: string): Store;
  /**
   * stop: queued writes fail with Closed, watches end with onError(Closed), later calls fail with
   * Closed. Idempotent.
   */
  close(): Promise<void>;
}

export type StorageErrorCode =
  | 'NotFound'
  | 'Exists'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'TooSlow'
  | 'Closed'
  | 'Unavailable'
  /**
   * the database cannot take writes: its disk is full or its file system is read-only. The message
   * names the cause. Reads still work; the store recovers by itself once the cause is gone.
   */
  | 'Unwritable';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly key?: string;
  /** the current revision (for Compacted / FutureRevision / Conflict) when known */
  readonly revision?: Revision;

  constructor(code: StorageErrorCode, message: string, opts: { key?: string; revision?: Revision; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'StorageError';
    this.code = code;
    this.key = opts.key;
    this.revision = opts.revision;
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}
