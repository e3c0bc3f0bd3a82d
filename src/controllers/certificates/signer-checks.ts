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

const KUBELET_CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const KUBELET_SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];

function sameUsages(usages: readonly string[], required: readonly string[]): string {
  const have = new Set(usages);
  const ok = have.size === required.length && required.every((u) => have.has(u));
  // kube prints the required list with Go's %v
  return ok ? '' : `usages did not match [${required.join(' ')}]`;
}

const fromNodes = (req: CertificateRequest): string =>
  req.organizations.length === 1 && req.organizations[0] === 'system:nodes' ? '' : 'subject organization is not system:nodes';
const nodeName = (req: CertificateRequest): string => (req.commonName.startsWith('system:node:') ? '' : 'subject common name does not begin with system:node:');

/** kube's ValidateKubeletClientCSR */
export function kubeletClientRefusal(req: CertificateRequest, usages: readonly string[]): string {
  return (
    fromNodes(req) ||
    (req.dnsNames.length ? 'DNS subjectAltNames are not allowed' : '') ||
    (req.emailAddresses.length ? 'Email subjectAltNames are not allowed' : '') ||
    (req.ipAddresses.length ? 'IP subjectAltNames are not allowed' : '') ||
    (req.uris.length ? 'URI subjectAltNames are not allowed' : '') ||
    nodeName(req) ||
    sameUsages(usages, KUBELET_CLIENT_USAGES)
  );
}

/** kube's ValidateKubeletServingCSR */
function kubeletServingRefusal(req: CertificateRequest, usages: readonly string[]): string {
  return (
    fromNodes(req) ||
    (req.dnsNames.length === 0 && req.ipAddresses.length === 0 ? 'DNS or IP subjectAltName is required' : '') ||
    (req.emailAddresses.length ? 'Email subjectAltNames are not allowed' : '') ||
    (req.uris.length ? 'URI subjectAltNames are not allowed' : '') ||
    sameUsages(usages, KUBELET_SERVING_USAGES) ||
    nodeName(req)
  );
}

/** kube's validAPIServerClientUsages: digital signature and key encipherment optional, client auth required */
function apiServerClientRefusal(usages: readonly string[]): string {
  const bad = usages.find((u) => u !== 'digital signature' && u !== 'key encipherment' && u !== 'client auth');
  if (bad !== undefined) return `invalid usage for client certificate: ${bad}`;
  return usages.includes('client auth') ? '' : 'missing required usage for client certificate: client auth';
}

/** '' when `signerName` signs this request; its refusal otherwise (legacy-unknown refuses nothing) */
export function signerRefusal(signerName: string, req: CertificateRequest, usages: readonly string[]): string {
  switch (signerName) {
    case KUBE_APISERVER_CLIENT:
      return apiServerClientRefusal(usages);
    case KUBELET_CLIENT:
      return kubeletClientRefusal(req, usages);
    case KUBELET_SERVING:
      return kubeletServingRefusal(req, usages);
    default:
      return '';
  }
}
