/**
 * CertificateSigningRequest in certificates.k8s.io v1 and v1beta1 (stored as v1), with kube's
 * strategies: create clears the status (no pre-approved requests); main-resource updates keep the
 * stored spec and status; /status writes set the certificate and non-approval conditions;
 * /approval (./approval.ts) sets Approved and Denied. v1beta1 defaults usages and, from the request
 * itself, the signer name.
 *
 * On create the requester is whoever sent the request: spec.username, uid, groups and extra are the
 * authenticated user's whatever the body says (kube's PrepareForCreate), since approvers such as the
 * csrapproving controller decide on them.
 */
import type { KindDefinition, KubeObject } from '../../kind';
import { age, ageColumn, column, humanDuration, nameColumn } from '../table-format';
import { arrAt, clone, ensureObj, isObj, num, objAt, str } from '../util';
import { populateConditionTimestamps, preserveConditionInstances } from './conditions';
import type { CsrVersion } from './csr-validation';
import { validateCSR } from './csr-validation';
import { defaultSignerName } from './signer-name';

const GROUP = 'certificates.k8s.io';

function defaults(obj: KubeObject, version: CsrVersion): void {
  if (version !== 'v1beta1') return;
  const spec = ensureObj(obj, 'spec');
  if (spec.usages === undefined || spec.usages === null) spec.usages = ['digital signature', 'key encipherment'];
  if (spec.signerName === undefined || spec.signerName === null) {
    spec.signerName = defaultSignerName(Buffer.from(str(spec.request), 'base64'), arrAt(spec, 'usages').map(str));
  }
}

/** kube's extractCSRStatus: Denied or Approved or Pending, then Failed and Issued */
function conditionCell(obj: KubeObject): string {
  const types = new Set(arrAt(objAt(obj, 'status'), 'conditions').map((c) => (isObj(c) ? str(c.type) : '')));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (str(objAt(obj, 'status')?.certificate) !== '') status += ',Issued';
  return status;
}

function cells(obj: KubeObject, now: Date): unknown[] {
  const spec = objAt(obj, 'spec') ?? {};
  const expiration = num(spec.expirationSeconds);
  return [
    str(obj.metadata?.name),
    age(obj, now),
    str(spec.signerName) || '<none>',
    str(spec.username),
    expiration === undefined ? '<none>' : humanDuration(expiration * 1000),
    conditionCell(obj),
  ];
}

function withApiVersion(obj: KubeObject, version: CsrVersion): KubeObject {
  const out = clone(obj);
  out.apiVersion = `${GROUP}/${version}`;
  return out;
}

export function csrKind(version: CsrVersion): KindDefinition {
  return {
    group: GROUP,
    version,
    kind: 'CertificateSigningRequest',
    listKind: 'CertificateSigningRequestList',
    resource: 'certificatesigningrequests',
    singular: 'certificatesigningrequest',
    namespaced: false,
    // kube's ValidateCertificateRequestName accepts any name: kubelet's node-csr-<base64url> has capitals and '_'
    nameValidation: 'pathSegment',
    shortNames: ['csr'],
    categories: [],
    storage: { group: GROUP, resource: 'certificatesigningrequests' },
    storageVersion: 'v1',
    fromStorage: (obj) => withApiVersion(obj, version),
    toStorage: (obj) => withApiVersion(obj, 'v1'),
    schemaName: `io.k8s.api.certificates.${version}.CertificateSigningRequest`,
    tracksGeneration: false,
    statusSubresource: true,
    subresources: [{ name: 'approval', type: 'partial', verbs: ['get', 'patch', 'update'] }],
    strategy: {
      defaults: (obj) => defaults(obj, version),
      prepareForCreate(obj, requester) {
        // users cannot create pre-approved (or pre-issued) requests
        obj.status = {};
        // nor speak for someone else: the requester is the authenticated user (empty in-process)
        const spec = ensureObj(obj, 'spec');
        delete spec.username;
        delete spec.uid;
        delete spec.groups;
        delete spec.extra;
        if (requester) {
          spec.username = requester.name;
          if (requester.uid) spec.uid = requester.uid;
          if (requester.groups.length) spec.groups = [...requester.groups];
          if (requester.extra && Object.keys(requester.extra).length) spec.extra = clone(requester.extra);
        }
      },
      prepareForUpdate(obj, old) {
        obj.spec = clone(old.spec);
        obj.status = clone(old.status);
      },
      validate: (obj, old) => validateCSR(version, obj, old),
      validateStatus(obj, old) {
        // kube's csrStatusStrategy.PrepareForUpdate, which the registry has no separate hook for
        preserveConditionInstances(obj, old, 'Approved');
        preserveConditionInstances(obj, old, 'Denied');
        populateConditionTimestamps(obj, old);
        return validateCSR(version, obj, old, 'status');
      },
    },
    table: {
      columns: [
        nameColumn(),
        ageColumn(),
        column('SignerName', 'string', 'The signer asked to sign the request.'),
        column('Requestor', 'string', 'The user who created the request.'),
        column('RequestedDuration', 'string', 'The lifetime asked for the certificate.'),
        column('Condition', 'string', 'Whether the request is approved, denied, failed or issued.'),
      ],
      cells,
    },
  };
}
