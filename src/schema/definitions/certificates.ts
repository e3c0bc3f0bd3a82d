/** certificates.k8s.io v1 and v1beta1: CertificateSigningRequest. */
import type { Definitions, SchemaNode } from '../types';
import { addKind, atomic, bytes, int32, list, listMap, map, obj, ref, str, time } from '../dsl';

const GROUP = 'certificates.k8s.io';

function versionDefinitions(version: 'v1' | 'v1beta1'): Definitions {
  const p = `io.k8s.api.certificates.${version}.`;
  const spec: Record<string, SchemaNode> = {
    expirationSeconds: int32('Requested lifetime of the certificate in seconds (at least 600); the signer may ignore it.'),
    extra: map('Extra attributes of the requesting user; set by the server.', list(str(), 'Values.')),
    groups: atomic(str(), 'Groups of the requesting user; set by the server.'),
    request: bytes('PEM-encoded PKCS#10 certificate request.'),
    signerName: str(
      version === 'v1'
        ? 'Signer asked to sign: kubernetes.io/kube-apiserver-client, kubernetes.io/kubelet-serving, ... or a qualified name of your own.'
        : 'Signer asked to sign; defaulted from the request when unset.',
    ),
    uid: str('UID of the requesting user; set by the server.'),
    usages: atomic(str(), 'Key usages requested: digital signature, key encipherment, client auth, server auth, ...'),
    username: str('Name of the requesting user; set by the server.'),
  };
  const required = version === 'v1' ? ['request', 'signerName'] : ['request'];
  const defs: Definitions = {
    [`${p}CertificateSigningRequestSpec`]: obj('What is asked to be signed, and by whom.', spec, { required }),
    [`${p}CertificateSigningRequestCondition`]: obj(
      'An approval, denial or failure of the request.',
      {
        lastTransitionTime: time('When the condition last changed status.'),
        lastUpdateTime: time('When the condition was last updated.'),
        message: str('Human-readable details.'),
        reason: str('Machine-readable, CamelCase reason.'),
        status: str('True, False or Unknown.'),
        type: str('Approved, Denied or Failed.'),
      },
      { required: ['type', 'status'] },
    ),
    [`${p}CertificateSigningRequestStatus`]: obj('Approval state and the issued certificate.', {
      certificate: bytes('PEM-encoded certificate chain, set by the signer once approved.'),
      conditions: listMap(ref(`${p}CertificateSigningRequestCondition`), ['type'], 'Approved, Denied and Failed conditions.'),
    }),
  };
  addKind(
    defs,
    p,
    { group: GROUP, version, kind: 'CertificateSigningRequest' },
    'A request to have a certificate signed by a named signer.',
    {
      spec: ref(`${p}CertificateSigningRequestSpec`, 'The request.'),
      status: ref(`${p}CertificateSigningRequestStatus`, 'Approval and the issued certificate.'),
    },
    ['spec'],
  );
  return defs;
}

export const certificatesDefinitions: Definitions = { ...versionDefinitions('v1'), ...versionDefinitions('v1beta1') };
