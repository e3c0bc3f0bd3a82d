/**
 * kube's validation of CertificateSigningRequests (pkg/apis/certificates/validation), with the
 * per-version tolerances it keeps: v1beta1 accepts legacy-unknown, unknown and duplicate usages,
 * duplicate and empty condition types, and resetting a certificate; an update tolerates problems
 * the stored object already had. Which fields a write may change depends on the path: the main
 * resource never changes conditions or the certificate, /status sets the certificate, /approval
 * the Approved and Denied conditions.
 */
import type { StatusCause } from '../../errors';
import type { KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { duplicate, forbidden, invalid, notSupported, required } from '../../validation/field-errors';
import { arrAt, isObj, num, objAt, str } from '../util';
import { checkSignature, parseCSR } from './csr-request';
import { validateCertificate } from './certificate';
import { LEGACY_UNKNOWN, validateSignerName } from './signer-name';

export type CsrVersion = 'v1' | 'v1beta1';
/** which write is validated: create or a main-resource update, /status, /approval */
export type CsrWrite = 'main' | 'status' | 'approval';

export const KEY_USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];

const specOf = (o: KubeObject | undefined) => objAt(o, 'spec') ?? {};
const conditionsOf = (o: KubeObject | undefined) => arrAt(objAt(o, 'status'), 'conditions').map((c) => (isObj(c) ? c : {}));
const usagesOf = (o: KubeObject | undefined) => arrAt(specOf(o), 'usages').map(str);
const certificateOf = (o: KubeObject | undefined) => str(objAt(o, 'status')?.certificate);
const hasDuplicates = (xs: string[]) => new Set(xs).size !== xs.length;

/** Go's %#v of a []byte, as kube prints an invalid request */
function formatBytes(b: Buffer): string {
  return `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}`;
}

interface Options {
  legacySigner: boolean;
  unknownUsages: boolean;
  duplicateUsages: boolean;
  duplicateConditionTypes: boolean;
  emptyConditionType: boolean;
  approvedAndDenied: boolean;
  arbitraryCertificate: boolean;
  resettingCertificate: boolean;
}

function options(version: CsrVersion, obj: KubeObject, old?: KubeObject): Options {
  const beta = version === 'v1beta1';
  const oldTypes = conditionsOf(old).map((c) => str(c.type));
  return {
    legacySigner: beta || (old !== undefined && str(specOf(old).signerName) === LEGACY_UNKNOWN),
    unknownUsages: beta || (old !== undefined && usagesOf(old).some((u) => !KEY_USAGES.includes(u))),
    duplicateUsages: beta || (old !== undefined && hasDuplicates(usagesOf(old))),
    duplicateConditionTypes: beta || (old !== undefined && hasDuplicates(oldTypes)),
    emptyConditionType: beta || oldTypes.includes(''),
    approvedAndDenied: oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    arbitraryCertificate: old !== undefined && (certificateOf(obj) === certificateOf(old) || validateCertificate(certificateOf(old)) !== ''),
    resettingCertificate: beta,
  };
}

function validateRequest(spec: Record<string, unknown>): StatusCause[] {
  const request = Buffer.from(str(spec.request), 'base64');
  const parsed = parseCSR(request);
  const error = 'error' in parsed ? parsed.error : checkSignature(parsed.csr);
  return error ? [{ reason: 'FieldValueInvalid', message: `Invalid value: ${formatBytes(request)}: ${error}`, field: 'spec.request' }] : [];
}

function validateConditions(obj: KubeObject, opts: Options): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(obj).forEach((c, i) => {
    const field = `status.conditions[${i}]`;
    const type = str(c.type);
    if (!opts.emptyConditionType && type === '') causes.push(required(`${field}.type`));
    if (!opts.duplicateConditionTypes) {
      if (seen.has(type)) causes.push(duplicate(`${field}.type`, type));
      seen.add(type);
    }
    const status = str(c.status);
    if (status === '') causes.push(required(`${field}.status`));
    else if (!['False', 'True', 'Unknown'].includes(status)) causes.push(notSupported(`${field}.status`, status, ['False', 'True', 'Unknown']));
    if (type === 'Approved' || type === 'Denied') {
      if (type === 'Approved') approved = true;
      else denied = true;
      if (status !== 'True') causes.push(invalid(`${field}.status`, status, `${type} condition may only have a status of True`));
    }
  });
  if (!opts.approvedAndDenied && approved && denied) {
    causes.push(invalid('status.conditions', objAt(obj, 'status')?.conditions, 'Approved and Denied conditions are mutually exclusive'));
  }
  return causes;
}

function validateObject(obj: KubeObject, opts: Options): StatusCause[] {
  const spec = specOf(obj);
  const causes = validateRequest(spec);
  const usages = usagesOf(obj);
  if (usages.length === 0) causes.push(required('spec.usages'));
  if (!opts.unknownUsages) {
    usages.forEach((u, i) => {
      if (!KEY_USAGES.includes(u)) causes.push(notSupported(`spec.usages[${i}]`, u, KEY_USAGES));
    });
  }
  if (!opts.duplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) causes.push(duplicate(`spec.usages[${i}]`, u));
      seen.add(u);
    });
  }
  const signerName = str(spec.signerName);
  if (!opts.legacySigner && signerName === LEGACY_UNKNOWN) causes.push(invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  else causes.push(...validateSignerName(signerName, 'spec.signerName'));
  const expiration = num(spec.expirationSeconds);
  if (expiration !== undefined && expiration < 600) {
    causes.push(invalid('spec.expirationSeconds', expiration, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  causes.push(...validateConditions(obj, opts));
  if (!opts.arbitraryCertificate) {
    const err = validateCertificate(certificateOf(obj));
    if (err) causes.push(invalid('status.certificate', '<certificate data>', err));
  }
  return causes;
}

const byType = (o: KubeObject | undefined, type: string) => conditionsOf(o).filter((c) => str(c.type) === type);

/** kube's ValidateCertificateSigningRequestCreate / ...Update / ...StatusUpdate / ...ApprovalUpdate */
export function validateCSR(version: CsrVersion, obj: KubeObject, old?: KubeObject, write: CsrWrite = 'main'): StatusCause[] {
  const opts = options(version, obj, old);
  const causes = validateObject(obj, opts);
  if (!old) return causes;
  for (const type of ['Approved', 'Denied', 'Failed']) {
    if (byType(obj, type).length < byType(old, type).length) causes.push(forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
  }
  if (write !== 'approval') {
    for (const type of ['Approved', 'Denied']) {
      const before = byType(old, type);
      const after = byType(obj, type);
      if (after.length > before.length) causes.push(forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(type)}`));
      else if (after.length === before.length && !jsonEqual(before, after)) {
        causes.push(forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(type)}`));
      }
    }
  }
  if (certificateOf(obj) !== certificateOf(old)) {
    if (write !== 'status') causes.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (!opts.resettingCertificate && certificateOf(old) !== '') causes.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return causes;
}
