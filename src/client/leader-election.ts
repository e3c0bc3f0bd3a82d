/**
 * Leader election among replicas of a component (client-go's leaderelection): a lock object names
 * the holder and when it last renewed. A candidate takes the lock when it is free or when the holder
 * has not renewed for a lease duration (measured on the candidate's own clock, from when it last saw
 * the record change, so clocks need not agree); the leader renews every retry period and gives up
 * leading when it could not renew within the renew deadline.
 *
 * Lock kinds are kube's `--leader-elect-resource-lock` values: `leases` (coordination.k8s.io Lease),
 * `endpoints` and `configmaps` (the record as JSON in the annotation
 * control-plane.alpha.kubernetes.io/leader), and the migration pairs `endpointsleases` and
 * `configmapsleases` (both written, the first one read).
 */
import type { Logger } from 'pino';
import { isAlreadyExists, isConflict, isNotFound } from './errors';
import type { RestClient } from './rest-client';
import { sleep } from './sleep';
import type { KubeObject, ResourceRef } from './types';

export type LockKind = 'leases' | 'endpoints' | 'configmaps' | 'endpointsleases' | 'configmapsleases';
export const LOCK_KINDS: readonly LockKind[] = ['leases', 'endpoints', 'configmaps', 'endpointsleases', 'configmapsleases'];

export const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

export interface LeaderRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaderTransitions: number;
}

const LEASES: ResourceRef = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };
const ENDPOINTS: ResourceRef = { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true };
const CONFIGMAPS: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };

/** one place a record is kept */
interface Lock {
  /** the record and the object holding it; undefined when there is no such object */
  get(): Promise<{ record?: LeaderRecord; object: KubeObject } | undefined>;
  create(record: LeaderRecord): Promise<KubeObject>;
  update(object: KubeObject, record: LeaderRecord): Promise<KubeObject>;
  describe(): string;
}

/** MicroTime as kube writes it: RFC 3339 with microseconds */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
/** metav1.Time: RFC 3339 to the second */
function secondsTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

class LeaseLock implements Lock {
  constructor(
    readonly client: RestClient,
    readonly namespace: string,
    readonly name: string,
  ) {}

  describe(): string {
    return `${this.namespace}/${this.name} (Lease)`;
  }

  async get() {
    try {
      const object = await this.client.get(LEASES, this.namespace, this.name);
      const spec = (object.spec ?? {}) as Record<string, unknown>;
      const record: LeaderRecord = {
        holderIdentity: String(spec.holderIdentity ?? ''),
        leaseDurationSeconds: Number(spec.leaseDurationSeconds ?? 0),
        acquireTime: String(spec.acquireTime ?? ''),
        renewTime: String(spec.renewTime ?? ''),
        leaderTransitions: Number(spec.leaseTransitions ?? 0),
      };
      return { record, object };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  #spec(r: LeaderRecord) {
    return {
      holderIdentity: r.holderIdentity,
      leaseDurationSeconds: r.leaseDurationSeconds,
      acquireTime: r.acquireTime ? microTime(Date.parse(r.acquireTime)) : undefined,
      renewTime: r.renewTime ? microTime(Date.parse(r.renewTime)) : undefined,
      leaseTransitions: r.leaderTransitions,
    };
  }

  create(r: LeaderRecord) {
    return this.client.create(LEASES, this.namespace, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: this.#spec(r),
    });
  }

  update(object: KubeObject, r: LeaderRecord) {
    return this.client.update(LEASES, { ...object, spec: this.#spec(r) });
  }
}

class AnnotationLock implements Lock {
  constructor(
    readonly client: RestClient,
    readonly ref: ResourceRef,
    readonly namespace: string,
    readonly name: string,
  ) {}

  describe(): string {
    return `${this.namespace}/${this.name} (${this.ref.kind})`;
  }

  async get() {
    try {
      const object = await this.client.get(this.ref, this.namespace, this.name);
      const text = object.metadata?.annotations?.[LEADER_ANNOTATION];
      let record: LeaderRecord | undefined;
      if (text) {
        try {
          record = JSON.parse(text) as LeaderRecord;
        } catch {
          record = undefined;
        }
      }
      return { record, object };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  #annotation(r: LeaderRecord): string {
    return JSON.stringify({
      holderIdentity: r.holderIdentity,
      leaseDurationSeconds: r.leaseDurationSeconds,
      acquireTime: r.acquireTime ? secondsTime(Date.parse(r.acquireTime)) : '',
      renewTime: r.renewTime ? secondsTime(Date.parse(r.renewTime)) : '',
      leaderTransitions: r.leaderTransitions,
    });
  }

  create(r: LeaderRecord) {
    return this.client.create(this.ref, this.namespace, {
      apiVersion: 'v1',
      kind: this.ref.kind,
      metadata: { name: this.name, namespace: this.namespace, annotations: { [LEADER_ANNOTATION]: this.#annotation(r) } },
    });
  }

  update(object: KubeObject, r: LeaderRecord) {
    const metadata = { ...object.metadata, annotations: { ...object.metadata?.annotations, [LEADER_ANNOTATION]: this.#annotation(r) } };
    return this.client.update(this.ref, { ...object, metadata });
  }
}

/** the migration locks: the primary decides, the secondary follows */
class MultiLock implements Lock {
  #secondaryObject: KubeObject | undefined;
  constructor(
    readonly primary: Lock,
    readonly secondary: Lock,
  ) {}

  describe(): string {
    return `${this.primary.describe()} and ${this.secondary.describe()}`;
  }

  async get() {
    const p = await this.primary.get();
    this.#secondaryObject = (await this.secondary.get())?.object;
    return p;
  }

  async create(r: LeaderRecord) {
    const o = await this.primary.create(r);
    await this.#followSecondary(r);
    return o;
  }

  async update(object: KubeObject, r: LeaderRecord) {
    const o = await this.primary.update(object, r);
    await this.#followSecondary(r);
    return o;
  }

  async #followSecondary(r: LeaderRecord): Promise<void> {
    try {
      this.#secondaryObject = this.#secondaryObject ? await this.secondary.update(this.#secondaryObject, r) : await this.secondary.create(r);
    } catch (err) {
      // the primary holds the truth; the secondary catches up at the next renewal
      if (!isConflict(err) && !isAlreadyExists(err)) throw err;
      this.#secondaryObject = (await this.secondary.get())?.object;
    }
  }
}

export function createLock(kind: LockKind, client: RestClient, namespace: string, name: string): Lock {
  switch (kind) {
    case 'leases':
      return new LeaseLock(client, namespace, name);
    case 'endpoints':
      return new AnnotationLock(client, ENDPOINTS, namespace, name);
    case 'configmaps':
      return new AnnotationLock(client, CONFIGMAPS, namespace, name);
    case 'endpointsleases':
      return new MultiLock(new AnnotationLock(client, ENDPOINTS, namespace, name), new LeaseLock(client, namespace, name));
    case 'configmapsleases':
      return new MultiLock(new AnnotationLock(client, CONFIGMAPS, namespace, name), new LeaseLock(client, namespace, name));
  }
}

export interface LeaderElectionOptions {
  lock: LockKind;
  namespace: string;
  name: string;
  /** this candidate's name, unique among candidates (kube: host name + "_" + a UUID) */
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** called when this candidate becomes leader; the signal aborts when leadership is lost */
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading?(): void;
  onNewLeader?(identity: string): void;
  /** after each successful renewal while leading (the health check's sign of life) */
  onRenewed?(): void;
  /** on shutdown, leave the lock free so another candidate need not wait a lease duration */
  releaseOnCancel?: boolean;
  logger?: Logger;
}

export class LeaderElector {
  readonly #opts: LeaderElectionOptions;
  readonly #lock: Lock;
  #observed: { record?: LeaderRecord; object?: KubeObject; at: number } = { at: 0 };
  #leader = '';

  constructor(client: RestClient, opts: LeaderElectionOptions) {
    if (opts.leaseDurationMs <= opts.renewDeadlineMs) throw new Error('leaderElection: lease duration must be greater than the renew deadline');
    if (opts.renewDeadlineMs <= opts.retryPeriodMs * 1.2) throw new Error('leaderElection: renew deadline must be greater than 1.2 times the retry period');
    this.#opts = opts;
    this.#lock = createLock(opts.lock, client, opts.namespace, opts.name);
  }

  get isLeader(): boolean {
    return this.#leader === this.#opts.identity;
  }

  get leader(): string {
    return this.#leader;
  }

  /** campaign until leading, lead until losing the lock or the signal aborting */
  async run(signal: AbortSignal): Promise<void> {
    const o = this.#opts;
    o.logger?.info({ lock: this.#lock.describe(), identity: o.identity }, 'attempting to acquire leader lease');
    while (!signal.aborted && !(await this.#tryAcquireOrRenew())) await sleep(o.retryPeriodMs * (1 + Math.random() * 1.2), signal);
    if (signal.aborted) return;
    o.logger?.info({ lock: this.#lock.describe(), identity: o.identity }, 'successfully acquired lease');
    const leading = new AbortController();
    o.onStartedLeading(leading.signal);
    try {
      let lastRenew = Date.now();
      while (!signal.aborted) {
        await sleep(o.retryPeriodMs, signal);
        if (signal.aborted) break;
        if (await this.#tryAcquireOrRenew()) {
          lastRenew = Date.now();
          o.onRenewed?.();
        } else if (Date.now() - lastRenew > o.renewDeadlineMs) {
          o.logger?.info({ lock: this.#lock.describe() }, 'failed to renew lease: leadership lost');
          break;
        }
      }
    } finally {
      leading.abort();
      if (signal.aborted && o.releaseOnCancel && this.isLeader) await this.#release();
      this.#leader = '';
      o.onStoppedLeading?.();
    }
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const o = this.#opts;
    const now = Date.now();
    const mine: LeaderRecord = {
      holderIdentity: o.identity,
      leaseDurationSeconds: Math.round(o.leaseDurationMs / 1000),
      acquireTime: new Date(now).toISOString(),
      renewTime: new Date(now).toISOString(),
      leaderTransitions: 0,
    };
    try {
      const current = await this.#lock.get();
      if (!current) {
        await this.#lock.create(mine);
        this.#observe(mine, undefined, now);
        return true;
      }
      const record = current.record;
      if (!this.#observed.record || JSON.stringify(record) !== JSON.stringify(this.#observed.record)) this.#observe(record, current.object, now);
      this.#observed.object = current.object;
      const holder = record?.holderIdentity ?? '';
      const held = holder !== '' && holder !== o.identity && this.#observed.at + (record?.leaseDurationSeconds ?? 0) * 1000 > now;
      if (held) return false;
      if (holder === o.identity) {
        mine.acquireTime = record!.acquireTime || mine.acquireTime;
        mine.leaderTransitions = record!.leaderTransitions;
      } else {
        mine.leaderTransitions = (record?.leaderTransitions ?? 0) + 1;
      }
      const updated = await this.#lock.update(current.object, mine);
      this.#observe(mine, updated, now);
      return true;
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err)) o.logger?.info({ err: (err as Error).message, lock: this.#lock.describe() }, 'error retrieving or updating the lock');
      return false;
    }
  }

  #observe(record: LeaderRecord | undefined, object: KubeObject | undefined, at: number): void {
    this.#observed = { record, object, at };
    const holder = record?.holderIdentity ?? '';
    if (holder !== this.#leader) {
      this.#leader = holder;
      if (holder) this.#opts.onNewLeader?.(holder);
    }
  }

  async #release(): Promise<void> {
    const current = await this.#lock.get().catch(() => undefined);
    if (!current?.record || current.record.holderIdentity !== this.#opts.identity) return;
    const now = new Date().toISOString();
    await this.#lock
      .update(current.object, { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaderTransitions: current.record.leaderTransitions })
      .catch(() => undefined);
  }
}
