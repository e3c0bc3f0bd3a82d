/**
 * kube's csrcleaner (pkg/controller/certificates/cleaner): once an hour, delete the CSRs nobody needs
 * any more: issued ones an hour after approval or once their certificate has expired, denied and
 * failed ones an hour after the decision, and pending ones a day after creation.
 */
import crypto from 'node:crypto';
import { firstPemBlock } from '../../api/kinds/certificates/csr-request';
import { isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import { sleep } from '../../client/sleep';
import type { KubeObject } from '../../client/types';
import type { ControllerDefinition } from '../types';
import { certificateOf, conditionsOf } from './csr-util';

export interface CleanerOptions {
  /** the clock (tests move it forward) */
  now?: () => number;
  pollIntervalMs?: number;
  approvedExpirationMs?: number;
  deniedExpirationMs?: number;
  pendingExpirationMs?: number;
}

const HOUR = 3600_000;

/** why kube's cleaner would delete `csr` at `now`, or '' to keep it */
export function cleanupReason(csr: KubeObject, now: number, o: Required<Omit<CleanerOptions, 'now' | 'pollIntervalMs'>>): string {
  const conditions = conditionsOf(csr);
  const older = (t: string | undefined, ms: number) => !!t && Date.parse(t) + ms < now;
  const cert = certificateOf(csr);
  if (cert) {
    const block = firstPemBlock(Buffer.from(cert, 'base64'));
    try {
      if (block && Date.parse(new crypto.X509Certificate(block.der).validTo) < now) return 'issued certificate expired';
    } catch {
      // an unreadable certificate is judged by its conditions alone
    }
  }
  for (const c of conditions) {
    const at = c.lastUpdateTime ?? c.lastTransitionTime;
    if (c.type === 'Approved' && cert && older(at, o.approvedExpirationMs)) return 'issued past deadline';
    if (c.type === 'Denied' && older(at, o.deniedExpirationMs)) return 'denied past deadline';
    if (c.type === 'Failed' && older(at, o.deniedExpirationMs)) return 'failed past deadline';
  }
  if (conditions.length === 0 && older(csr.metadata?.creationTimestamp ?? undefined, o.pendingExpirationMs)) return 'pending past deadline';
  return '';
}

export function csrCleaner(opts: CleanerOptions = {}): ControllerDefinition {
  const limits = {
    approvedExpirationMs: opts.approvedExpirationMs ?? HOUR,
    deniedExpirationMs: opts.deniedExpirationMs ?? HOUR,
    pendingExpirationMs: opts.pendingExpirationMs ?? 24 * HOUR,
  };
  const now = opts.now ?? Date.now;
  return {
    name: 'csrcleaner',
    async start(ctx) {
      const csrs = ctx.informers.informerFor(RESOURCES.certificateSigningRequests);
      if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;
      while (!ctx.signal.aborted) {
        for (const csr of csrs.store.list()) {
          const reason = cleanupReason(csr, now(), limits);
          if (!reason) continue;
          try {
            await ctx.client.delete(RESOURCES.certificateSigningRequests, undefined, csr.metadata?.name ?? '', { preconditions: { uid: csr.metadata?.uid } });
            ctx.logger.info({ csr: csr.metadata?.name, reason }, 'Cleaned up a certificate signing request');
          } catch (err) {
            if (!isNotFound(err)) ctx.logger.error({ err, csr: csr.metadata?.name }, 'deleting a certificate signing request failed');
          }
        }
        await sleep(opts.pollIntervalMs ?? HOUR, ctx.signal);
      }
    },
  };
}

export const csrCleanerController = csrCleaner();
