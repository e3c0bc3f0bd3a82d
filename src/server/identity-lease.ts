/**
 * The APIServerIdentity lease (kube 1.26+): each API server keeps a coordination.k8s.io/v1 Lease
 * in kube-system named `apiserver-<hash of host name>`, labelled
 * apiserver.kubernetes.io/identity=kube-apiserver, holding `<name>_<uuid of this run>`, renewed
 * every --identity-lease-renew-interval-seconds with --identity-lease-duration-seconds as its
 * duration. Leases of servers that stopped renewing (renewTime + duration in the past) are deleted
 * by the garbage collection kube runs alongside (every hour).
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import { isApiError } from '../api/errors';
import type { KindDefinition, KubeObject } from '../api/kind';
import type { Registry, Target } from '../api/registry/types';

export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
const NAMESPACE = 'kube-system';
const MANAGER = 'kube-apiserver';

export interface IdentityLeaseOptions {
  registry: Registry;
  /** coordination.k8s.io/v1 leases */
  kind: KindDefinition;
  logger: Logger;
  durationSeconds: number;
  renewIntervalSeconds: number;
  /** how often expired identity leases are collected; kube: an hour */
  gcIntervalMs?: number;
  hostname?: string;
  clock?: () => Date;
}

/** kube's lease name: base32 of the first 16 bytes of sha256(len16(hostname) hostname len16("kube-apiserver") "kube-apiserver") */
export function identityLeaseName(hostname: string): string {
  const field = (s: string): Buffer => {
    const b = Buffer.from(s, 'utf8');
    const len = Buffer.alloc(2);
    len.writeUInt16BE(b.length);
    return Buffer.concat([len, b]);
  };
  const hash = crypto.createHash('sha256').update(Buffer.concat([field(hostname), field('kube-apiserver')])).digest().subarray(0, 16);
  return `apiserver-${base32(hash).toLowerCase()}`;
}

/** RFC 4648 base32 without padding */
function base32(data: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of data) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** Go's metav1.MicroTime text */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class IdentityLeaseController {
  readonly #o: IdentityLeaseOptions;
  readonly #hostname: string;
  readonly #clock: () => Date;
  readonly name: string;
  readonly holderIdentity: string;
  #renewTimer: NodeJS.Timeout | undefined;
  #gcTimer: NodeJS.Timeout | undefined;

  constructor(o: IdentityLeaseOptions) {
    this.#o = o;
    this.#hostname = o.hostname ?? os.hostname();
    this.#clock = o.clock ?? (() => new Date());
    this.name = identityLeaseName(this.#hostname);
    this.holderIdentity = `${this.name}_${crypto.randomUUID()}`;
  }

  /** the first renewal, then one every interval and a collection every gc interval (failures are logged and retried) */
  async start(): Promise<void> {
    await this.renew().catch((err) => this.#o.logger.warn({ err }, 'Unable to create the API server identity lease; retrying'));
    this.#renewTimer = setInterval(() => {
      this.renew().catch((err) => this.#o.logger.warn({ err }, 'Unable to renew the API server identity lease; retrying'));
    }, this.#o.renewIntervalSeconds * 1000);
    this.#gcTimer = setInterval(() => {
      this.collectExpired().catch((err) => this.#o.logger.warn({ err }, 'Unable to collect expired API server identity leases'));
    }, this.#o.gcIntervalMs ?? 3_600_000);
  }

  stop(): void {
    clearInterval(this.#renewTimer);
    clearInterval(this.#gcTimer);
  }

  /** create the lease, or take it over and renew it */
  async renew(): Promise<void> {
    const target: Target = { kind: this.#o.kind, namespace: NAMESPACE, name: this.name };
    const now = microTime(this.#clock());
    const labels = { [IDENTITY_LABEL]: 'kube-apiserver', 'kubernetes.io/hostname': this.#hostname };
    let existing: KubeObject | undefined;
    try {
      existing = await this.#o.registry.get(target, {});
    } catch (err) {
      if (!isApiError(err) || err.code !== 404) throw err;
    }
    const spec = { holderIdentity: this.holderIdentity, leaseDurationSeconds: this.#o.durationSeconds, renewTime: now };
    if (!existing) {
      const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.name, namespace: NAMESPACE, labels }, spec };
      await this.#o.registry.create({ kind: this.#o.kind, namespace: NAMESPACE }, lease, { dryRun: false, fieldManager: MANAGER });
      return;
    }
    const next = structuredClone(existing);
    next.metadata = { ...next.metadata, labels: { ...next.metadata?.labels, ...labels } };
    next.spec = { ...(next.spec as object), ...spec };
    await this.#o.registry.update(target, next, { dryRun: false, fieldManager: MANAGER });
  }

  /** delete identity leases whose holder stopped renewing them; returns the names deleted */
  async collectExpired(): Promise<string[]> {
    const now = this.#clock().getTime();
    const list = await this.#o.registry.list({ kind: this.#o.kind, namespace: NAMESPACE }, { labelSelector: `${IDENTITY_LABEL}=kube-apiserver` });
    const deleted: string[] = [];
    for (const lease of list.items) {
      const spec = (lease.spec ?? {}) as { renewTime?: string; leaseDurationSeconds?: number };
      const renewed = spec.renewTime ? Date.parse(spec.renewTime) : NaN;
      const duration = spec.leaseDurationSeconds ?? 0;
      if (!Number.isNaN(renewed) && renewed + duration * 1000 > now) continue;
      const name = String(lease.metadata?.name ?? '');
      try {
        await this.#o.registry.delete(
          { kind: this.#o.kind, namespace: NAMESPACE, name },
          { dryRun: false, preconditions: { resourceVersion: lease.metadata?.resourceVersion } },
        );
        deleted.push(name);
      } catch (err) {
        // renewed or deleted meanwhile
        if (!isApiError(err) || (err.code !== 409 && err.code !== 404)) throw err;
      }
    }
    return deleted;
  }
}
