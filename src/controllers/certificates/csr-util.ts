/** What the certificate controllers read of a CertificateSigningRequest (certificates.k8s.io/v1). */
import type { KubeObject } from '../../client/types';

export interface CsrCondition {
  type: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CsrSpec {
  request?: string;
  signerName?: string;
  usages?: string[];
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  expirationSeconds?: number;
}

export const specOf = (csr: KubeObject): CsrSpec => (csr.spec ?? {}) as CsrSpec;
export const conditionsOf = (csr: KubeObject): CsrCondition[] => ((csr.status as { conditions?: CsrCondition[] } | undefined)?.conditions ?? []);
export const certificateOf = (csr: KubeObject): string => ((csr.status as { certificate?: string } | undefined)?.certificate ?? '');

export function hasCondition(csr: KubeObject, type: string): boolean {
  return conditionsOf(csr).some((c) => c.type === type && (c.status ?? 'True') === 'True');
}

/** the request's PEM, decoded from the JSON form of its bytes */
export const requestPem = (csr: KubeObject): Buffer => Buffer.from(specOf(csr).request ?? '', 'base64');
