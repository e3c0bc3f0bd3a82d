/**
 * Signer names: kube's ValidateSignerName (`<fully qualified domain>/<path>`, labels DNS-1123,
 * at most 253 characters in all) and kube 1.20's v1beta1 defaulting of an unset signerName from the
 * request (DefaultSignerNameFromSpec): a kubelet client CSR goes to kube-apiserver-client-kubelet,
 * a kubelet serving CSR to kubelet-serving, anything else to legacy-unknown.
 */
import type { StatusCause } from '../../errors';
import { invalid, required, tooLong } from '../../validation/field-errors';
import { isDNS1123Label } from '../../validation/names';
import type { CertificateRequest } from './csr-request';
import { parseCSR } from './csr-request';

export const LEGACY_UNKNOWN = 'kubernetes.io/legacy-unknown';
export const KUBELET_CLIENT = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING = 'kubernetes.io/kubelet-serving';

export function validateSignerName(signerName: string, field: string): StatusCause[] {
  if (signerName === '') return [required(field)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [invalid(field, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, path] = segments;
  const causes: StatusCause[] = [];
  if (domain.length > 253) causes.push(tooLong(field, 253));
  const labels = domain.split('.');
  for (const label of labels) {
    const errs = isDNS1123Label(label);
    if (errs.length) {
      // kube stops at the first bad label: the rest would repeat the same message
      for (const msg of errs) causes.push(invalid(field, domain, `validating label ${JSON.stringify(label)}: ${msg}`));
      break;
    }
  }
  if (labels.length < 2) causes.push(invalid(field, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of path.split('.')) {
    const errs = isDNS1123Label(label);
    if (errs.length) {
      for (const msg of errs) causes.push(invalid(field, path, `validating label ${JSON.stringify(label)}: ${msg}`));
      break;
    }
  }
  const maxPath = 253 - domain.length - 1;
  if (path.length > maxPath) causes.push(tooLong(field, maxPath));
  return causes;
}

const sameSet = (a: string[], b: string[]): boolean => {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
};

const fromNodes = (csr: CertificateRequest): boolean => csr.organizations.length === 1 && csr.organizations[0] === 'system:nodes';

/** kube's ValidateKubeletClientCSR == nil */
function isKubeletClient(csr: CertificateRequest, usages: string[]): boolean {
  return (
    fromNodes(csr) &&
    csr.dnsNames.length === 0 &&
    csr.emailAddresses.length === 0 &&
    csr.ipAddresses.length === 0 &&
    csr.uris.length === 0 &&
    csr.commonName.startsWith('system:node:') &&
    sameSet(usages, ['digital signature', 'key encipherment', 'client auth'])
  );
}

/** kube's ValidateKubeletServingCSR == nil */
function isKubeletServing(csr: CertificateRequest, usages: string[]): boolean {
  return (
    fromNodes(csr) &&
    (csr.dnsNames.length > 0 || csr.ipAddresses.length > 0) &&
    csr.emailAddresses.length === 0 &&
    csr.uris.length === 0 &&
    sameSet(usages, ['digital signature', 'key encipherment', 'server auth']) &&
    csr.commonName.startsWith('system:node:')
  );
}

/** the signer a v1beta1 request without one is given */
export function defaultSignerName(request: Buffer, usages: string[]): string {
  const parsed = parseCSR(request);
  if ('error' in parsed) return LEGACY_UNKNOWN;
  if (isKubeletClient(parsed.csr, usages)) return KUBELET_CLIENT;
  if (isKubeletServing(parsed.csr, usages)) return KUBELET_SERVING;
  return LEGACY_UNKNOWN;
}
