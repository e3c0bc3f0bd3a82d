/**
 * What each of kube's built-in signers accepts (pkg/controller/certificates/signer, kube 1.20):
 * an error message for a request a signer refuses, '' for one it signs.
 */
import type { CertificateRequest } from '../../api/kinds/certificates/csr-request';
import { KUBELET_CLIENT, KUBELET_SERVING, LEGACY_UNKNOWN } from '../../api/kinds/certificates/signer-name';

export const KUBE_APISERVER_CLIENT = 'kubernetes.io/kube-apiserver-client';

/** signer name -> the key of its pair in ControllerSettings.clusterSigning.signers */
export const SIGNER_SETTINGS_KEYS: Readonly<Record<string, string>> = Object.freeze({
  [KUBE_APISERVER_CLIENT]: 'apiserver-client',
  [KUBELET_CLIENT]: 'kubelet-client',
  [KUBELET_SERVING]: 'kubelet-serving',
  [LEGACY_UNKNOWN]: 'legacy-unknown',
});

const CLIENT_USAGES = new Set(['digital signature', 'key encipherment', 'client auth']);
const SERVING_USAGES = new Set(['digital signature', 'key encipherment', 'server auth']);

function usagesWithin(usages: readonly string[], allowed: Set<string>): string {
  for (const u of usages) if (!allowed.has(u)) return `usage not permitted: ${JSON.stringify(u)}`;
  return '';
}

function fromNodes(req: CertificateRequest): string {
  if (req.organizations.length !== 1 || req.organizations[0] !== 'system:nodes') return 'subject organization is not system:nodes';
  return '';
}

function kubeletClient(req: CertificateRequest, usages: readonly string[]): string {
  return (
    fromNodes(req) ||
    (req.dnsNames.length ? 'dnsNames subjectAltName is not allowed' : '') ||
    (req.emailAddresses.length ? 'email subjectAltNames are not allowed' : '') ||
    (req.ipAddresses.length ? 'ipAddresses subjectAltName is not allowed' : '') ||
    (req.uris.length ? 'uri subjectAltNames are not allowed' : '') ||
    (req.commonName.startsWith('system:node:') ? '' : 'subject common name does not begin with system:node:') ||
    usagesWithin(usages, CLIENT_USAGES)
  );
}

function kubeletServing(req: CertificateRequest, usages: readonly string[]): string {
  return (
    fromNodes(req) ||
    (req.emailAddresses.length ? 'email subjectAltNames are not allowed' : '') ||
    (req.uris.length ? 'uri subjectAltNames are not allowed' : '') ||
    (req.dnsNames.length === 0 && req.ipAddresses.length === 0 ? 'DNS or IP subjectAltName is required' : '') ||
    (req.commonName.startsWith('system:node:') ? '' : 'subject common name does not begin with system:node:') ||
    usagesWithin(usages, SERVING_USAGES)
  );
}

/** '' when `signerName` signs this request; its refusal otherwise */
export function signerRefusal(signerName: string, req: CertificateRequest, usages: readonly string[]): string {
  switch (signerName) {
    case KUBE_APISERVER_CLIENT:
      return usagesWithin(usages, CLIENT_USAGES);
    case KUBELET_CLIENT:
      return kubeletClient(req, usages);
    case KUBELET_SERVING:
      return kubeletServing(req, usages);
    default:
      return '';
  }
}
