/**
 * kube's csrsigning controller (pkg/controller/certificates/signer): approved, not yet issued, not
 * failed CSRs of the four built-in signers are signed with --cluster-signing-cert-file/key-file (or
 * the signer's own pair), for --cluster-signing-duration or the shorter spec.expirationSeconds. A
 * request its signer refuses gets a Failed condition (reason SignerValidationFailure).
 */
import fs from 'node:fs';
import { checkSignature, firstPemBlock, parseCertificateRequest } from '../../api/kinds/certificates/csr-request';
import { isConflict, isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerSettings } from '../settings';
import type { ControllerDefinition } from '../types';
import { certificateOf, conditionsOf, hasCondition, requestPem, specOf } from './csr-util';
import { issueCertificate, type SigningPair } from './issue-certificate';
import { SIGNER_SETTINGS_KEYS, signerRefusal } from './signer-checks';

/** each signer's pair, read once at start; signers without one are not run (as kube's) */
export function signingPairs(s: ControllerSettings['clusterSigning']): Map<string, SigningPair> {
  const pairs = new Map<string, SigningPair>();
  for (const [signerName, key] of Object.entries(SIGNER_SETTINGS_KEYS)) {
    const files = s.signers[key] ?? (s.certFile && s.keyFile ? { certFile: s.certFile, keyFile: s.keyFile } : undefined);
    if (files?.certFile && files.keyFile) pairs.set(signerName, { certPem: fs.readFileSync(files.certFile, 'utf8'), keyPem: fs.readFileSync(files.keyFile, 'utf8') });
  }
  return pairs;
}

export const csrSigningController: ControllerDefinition = {
  name: 'csrsigning',
  async start(ctx) {
    const pairs = signingPairs(ctx.settings.clusterSigning);
    if (pairs.size === 0) {
      ctx.logger.info('no cluster signing certificate and key: certificates are not signed');
      return;
    }
    const queue = new WorkQueue<string>({ name: 'certificate' });
    const csrs = ctx.informers.informerFor(RESOURCES.certificateSigningRequests);
    csrs.addEventHandler({ add: (c) => queue.add(c.metadata?.name ?? ''), update: (_o, c) => queue.add(c.metadata?.name ?? '') });
    ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
    if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;

    const writeStatus = async (csr: KubeObject, status: Record<string, unknown>) => {
      try {
        await ctx.client.update(RESOURCES.certificateSigningRequests, { ...csr, status: { ...(csr.status as object), ...status } }, 'status');
      } catch (err) {
        if (isNotFound(err)) return;
        if (isConflict(err)) queue.addAfter(csr.metadata?.name ?? '', 100);
        else throw err;
      }
    };

    await runWorkers(
      queue,
      5,
      async (name) => {
        const csr = csrs.store.get(name);
        if (!csr || !hasCondition(csr, 'Approved') || hasCondition(csr, 'Failed') || certificateOf(csr)) return;
        const spec = specOf(csr);
        const pair = pairs.get(spec.signerName ?? '');
        if (!pair) return;
        const block = firstPemBlock(requestPem(csr));
        if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('unable to parse csr: PEM block type must be CERTIFICATE REQUEST');
        const req = parseCertificateRequest(block.der);
        const usages = spec.usages ?? [];
        const refusal = checkSignature(req) || signerRefusal(spec.signerName ?? '', req, usages);
        if (refusal) {
          const failed = { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: refusal };
          await writeStatus(csr, { conditions: [...conditionsOf(csr), failed] });
          return;
        }
        let ttlMs = ctx.settings.clusterSigning.durationMs;
        if (spec.expirationSeconds) ttlMs = Math.min(ttlMs, Math.max(600, spec.expirationSeconds) * 1000);
        const pem = issueCertificate({ csrDer: block.der, usages, ttlMs, signer: pair });
        await writeStatus(csr, { certificate: Buffer.from(pem).toString('base64') });
      },
      (key, err) => ctx.logger.error({ err, csr: key }, 'signing a certificate signing request failed'),
    );
  },
};
