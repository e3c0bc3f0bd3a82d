/** certificates.k8s.io v1 and v1beta1: CertificateSigningRequest (v1 preferred, both stored as v1) */
import type { KindDefinition } from '../../kind';
import { csrKind } from './csr';

export { csrApprovalHandler } from './approval';

export function certificatesKinds(): KindDefinition[] {
  return [csrKind('v1'), csrKind('v1beta1')];
}
