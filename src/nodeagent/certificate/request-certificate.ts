/**
 * Asking the API server for a certificate (client-go's util/certificate/csr): create a
 * certificates.k8s.io/v1 CertificateSigningRequest, reusing one of the same name that asks for the
 * same thing with the same key (an agent restarted during its bootstrap), then wait until it is
 * issued; a Denied or Failed condition ends the wait with kube's message.
 */
import crypto from 'node:crypto';
import { firstPemBlock, parseCertificateRequest } from '../../api/kinds/certificates/csr-request';
import { isAlreadyExists } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject } from '../../client/types';
import { sleep } from '../../client/sleep';

/** what requesting a certificate needs of the API client (a RestClient, or a fake in tests) */
export type CsrClient = Pick<RestClient, 'create' | 'get'>;

export interface CertificateAsk {
  /** the PEM CERTIFICATE REQUEST */
  csrPem: string;
  /** the key that signed it (to check a namesake found already there) */
  keyPem: string;
  /** a fixed name (the bootstrap's digested name), or none for a generated csr-xxxxx */
  name?: string;
  signerName: string;
  usages: readonly string[];
}

interface CsrObject extends KubeObject {
  spec?: { request?: string; signerName?: string; usages?: string[] };
  status?: { certificate?: string; conditions?: { type?: string; reason?: string; message?: string }[] };
}

/** client-go's ensureCompatible: same subject, signer, usages and public key */
function compatibleProblem(existing: CsrObject, ask: CertificateAsk): string | undefined {
  const block = firstPemBlock(Buffer.from(existing.spec?.request ?? '', 'base64'));
  if (!block) return 'unable to parse the existing request';
  const theirs = parseCertificateRequest(block.der);
  const ours = parseCertificateRequest(firstPemBlock(Buffer.from(ask.csrPem))!.der);
  if (theirs.commonName !== ours.commonName || theirs.organizations.join('\n') !== ours.organizations.join('\n')) return 'csr subjects differ';
  if ((existing.spec?.signerName ?? '') !== ask.signerName) return `csr signerNames differ: ${existing.spec?.signerName} != ${ask.signerName}`;
  if ((existing.spec?.usages ?? []).join(',') !== ask.usages.join(',')) return 'csr usages differ';
  const ourKey = crypto.createPublicKey(ask.keyPem).export({ type: 'spki', format: 'der' });
  if (!theirs.publicKey.equals(ourKey)) return 'public key does not match the private key';
  return undefined;
}

/** create the request (or take the compatible one already there); returns its name and uid */
export async function requestCertificate(client: CsrClient, ask: CertificateAsk): Promise<{ name: string; uid: string }> {
  const csr: CsrObject = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: ask.name ? { name: ask.name } : { generateName: 'csr-' },
    spec: { request: Buffer.from(ask.csrPem).toString('base64'), signerName: ask.signerName, usages: [...ask.usages] },
  };
  try {
    const made = await client.create(RESOURCES.certificateSigningRequests, undefined, csr);
    return { name: made.metadata?.name ?? '', uid: made.metadata?.uid ?? '' };
  } catch (err) {
    if (!ask.name || !isAlreadyExists(err)) throw new Error(`cannot create certificate signing request: ${(err as Error).message}`);
  }
  const existing = (await client.get(RESOURCES.certificateSigningRequests, undefined, ask.name)) as CsrObject;
  const problem = compatibleProblem(existing, ask);
  if (problem) throw new Error(`retrieved csr is not compatible: ${problem}`);
  return { name: ask.name, uid: existing.metadata?.uid ?? '' };
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** give up after this long (kubelet: an hour for the bootstrap, 15 minutes for a rotation) */
  timeoutMs: number;
  pollMs?: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** the issued certificate chain (PEM) of the request, once approved and signed */
export async function waitForCertificate(client: CsrClient, csr: { name: string; uid: string }, o: WaitOptions): Promise<string> {
  const now = o.now ?? Date.now;
  const deadline = now() + o.timeoutMs;
  for (;;) {
    const current = (await client.get(RESOURCES.certificateSigningRequests, undefined, csr.name)) as CsrObject;
    if (csr.uid && current.metadata?.uid !== csr.uid) throw new Error(`csr "${csr.name}" changed UIDs`);
    const conditions = current.status?.conditions ?? [];
    const denied = conditions.find((c) => c.type === 'Denied');
    if (denied) throw new Error(`certificate signing request is denied, reason: ${denied.reason ?? ''}, message: ${denied.message ?? ''}`);
    const failed = conditions.find((c) => c.type === 'Failed');
    if (failed) throw new Error(`certificate signing request failed, reason: ${failed.reason ?? ''}, message: ${failed.message ?? ''}`);
    const certificate = current.status?.certificate;
    if (certificate && conditions.some((c) => c.type === 'Approved')) return Buffer.from(certificate, 'base64').toString('utf8');
    if (now() >= deadline) throw new Error(`timed out waiting for the certificate of csr "${csr.name}" to be issued`);
    await (o.sleep ?? sleep)(o.pollMs ?? 1000, o.signal);
    if (o.signal?.aborted) throw new Error('stopped while waiting for a certificate');
  }
}
