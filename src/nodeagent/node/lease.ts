/**
 * The node lease (kubelet 1.20's nodelease controller, component-helpers' lease controller):
 * kube-node-lease/<node>, holder the node's name, renewed every leaseDuration * 0.25 with a 4%
 * jitter. The last lease written is updated directly (no GET); on failure the lease is read or
 * created with back-off (100 ms doubling to 7 s); a new lease carries an owner reference to the
 * Node and is not created until the Node can be read.
 */
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject } from '../../client/types';
import { sleep } from '../../client/sleep';

export const LEASE_NAMESPACE = 'kube-node-lease';
/** DefaultRenewIntervalFraction */
export const RENEW_INTERVAL_FRACTION = 0.25;
/** maxUpdateRetries */
export const MAX_UPDATE_RETRIES = 5;
/** the longest wait between attempts to read or create the lease */
export const MAX_BACKOFF_MS = 7_000;

export interface LeaseObject extends KubeObject {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string; [key: string]: unknown };
}

export interface NodeLeaseOptions {
  client: RestClient;
  nodeName: string;
  leaseDurationSeconds: number;
  logger: Logger;
  /** epoch ms */
  now?: () => number;
  /** first back-off delay (tests shorten it) */
  initialBackoffMs?: number;
}

/** kube's MicroTime text: RFC 3339 with microseconds */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

export class NodeLease {
  readonly #opts: NodeLeaseOptions;
  readonly #now: () => number;
  readonly #abort = new AbortController();
  #latest: LeaseObject | undefined;
  #loop: Promise<void> | undefined;

  constructor(opts: NodeLeaseOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** leaseDuration * 0.25 */
  get renewIntervalMs(): number {
    return this.#opts.leaseDurationSeconds * 1000 * RENEW_INTERVAL_FRACTION;
  }

  /** the lease as last written or read */
  get latest(): LeaseObject | undefined {
    return this.#latest;
  }

  start(): void {
    this.#loop ??= (async () => {
      const signal = this.#abort.signal;
      while (!signal.aborted) {
        await this.sync();
        await sleep(this.renewIntervalMs * (1 + Math.random() * 0.04), signal);
      }
    })();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
  }

  /** one renewal: update the last lease, else read or create it and update it */
  async sync(): Promise<void> {
    if (this.#latest) {
      try {
        await this.#retryUpdate(this.#latest);
        return;
      } catch (err) {
        this.#opts.logger.info({ err: String(err) }, 'failed to update lease using latest lease, fallback to ensure lease');
      }
    }
    const ensured = await this.#backoffEnsure();
    if (!ensured) return;
    this.#latest = ensured.lease;
    if (ensured.created) return;
    try {
      await this.#retryUpdate(ensured.lease);
    } catch (err) {
      this.#opts.logger.error({ err: String(err) }, `will retry after ${this.renewIntervalMs / 1000}s`);
    }
  }

  async #newLease(base: LeaseObject | undefined): Promise<LeaseObject> {
    const { nodeName, leaseDurationSeconds } = this.#opts;
    const lease: LeaseObject = base
      ? structuredClone(base)
      : {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: nodeName, namespace: LEASE_NAMESPACE },
          spec: { holderIdentity: nodeName, leaseDurationSeconds },
        };
    (lease.spec ??= {}).renewTime = microTime(this.#now());
    // kubelet's setNodeOwnerFunc: the lease belongs to the Node, so it goes when the Node goes
    const meta = (lease.metadata ??= {});
    if (!meta.ownerReferences?.length) {
      try {
        const node = await this.#opts.client.get(RESOURCES.nodes, undefined, nodeName);
        meta.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata?.uid ?? '' }];
      } catch (err) {
        this.#opts.logger.error({ err: String(err), node: nodeName }, 'failed to get node when trying to set owner ref to the node lease');
      }
    }
    return lease;
  }

  async #ensure(): Promise<{ lease: LeaseObject; created: boolean } | undefined> {
    const { client, nodeName } = this.#opts;
    try {
      return { lease: await client.get<LeaseObject>(RESOURCES.leases, LEASE_NAMESPACE, nodeName), created: false };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const lease = await this.#newLease(undefined);
    // without its owner reference the lease is not created: the next renewal tries again
    if (!lease.metadata?.ownerReferences?.length) return undefined;
    return { lease: await client.create<LeaseObject>(RESOURCES.leases, LEASE_NAMESPACE, lease), created: true };
  }

  /** ensure with back-off until it works or the controller stops (undefined then, or when the Node is missing) */
  async #backoffEnsure(): Promise<{ lease: LeaseObject; created: boolean } | undefined> {
    let delay = this.#opts.initialBackoffMs ?? 100;
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      try {
        return await this.#ensure();
      } catch (err) {
        delay = Math.min(delay * 2, MAX_BACKOFF_MS);
        this.#opts.logger.error({ err: String(err) }, `failed to ensure node lease exists, will retry in ${delay / 1000}s`);
        await sleep(delay, signal);
      }
    }
    return undefined;
  }

  async #retryUpdate(base: LeaseObject): Promise<void> {
    let current: LeaseObject | undefined = base;
    for (let i = 0; i < MAX_UPDATE_RETRIES; i++) {
      if (this.#abort.signal.aborted) break;
      try {
        this.#latest = await this.#opts.client.update<LeaseObject>(RESOURCES.leases, await this.#newLease(current));
        return;
      } catch (err) {
        this.#opts.logger.error({ err: String(err) }, 'failed to update lease');
        // an optimistic-lock failure needs the newer lease
        if (isConflict(err)) current = (await this.#backoffEnsure())?.lease ?? current;
      }
    }
    throw new Error(`failed ${MAX_UPDATE_RETRIES} attempts to update lease`);
  }
}
