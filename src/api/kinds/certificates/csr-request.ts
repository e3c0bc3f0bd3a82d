/**
 * PKCS#10 certificate requests as kube reads them (pkg/apis/certificates ParseCSR and
 * x509.CertificateRequest.CheckSignature): the first PEM block must be a CERTIFICATE REQUEST, its
 * DER must parse, and its signature must verify with its own public key (RSA, ECDSA or Ed25519,
 * checked with node:crypto). Also reads what kube's v1beta1 signer defaulting looks at: subject
 * common name and organizations, and the subject alternative names.
 */
import crypto from 'node:crypto';
import type { DerNode } from './der';
import { DerError, children, oid, readNode, text } from './der';

export interface CertificateRequest {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  emailAddresses: string[];
  ipAddresses: string[];
  uris: string[];
  /** the DER of the signed part, the signature algorithm's OID, the signature, the SPKI */
  tbs: Buffer;
  signatureAlgorithm: string;
  signature: Buffer;
  publicKey: Buffer;
}

const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';
const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const OID_SAN = '2.5.29.17';

/** signature algorithm OID -> hash for crypto.verify (null: the key type decides, Ed25519) */
const SIGNATURE_HASHES: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** the first PEM block of `data`: its type and DER bytes, or undefined (Go's pem.Decode) */
export function firstPemBlock(data: Buffer): { type: string; der: Buffer; headers: boolean } | undefined {
  const m = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(data.toString('latin1'));
  if (!m) return undefined;
  const lines = m[2].split(/\r?\n/);
  const headers = lines.some((l) => l.includes(':'));
  const body = lines.filter((l) => !l.includes(':')).join('');
  if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) return undefined;
  return { type: m[1], der: Buffer.from(body, 'base64'), headers };
}

function readName(node: DerNode): { commonName: string; organizations: string[] } {
  let commonName = '';
  const organizations: string[] = [];
  for (const rdn of children(node)) {
    for (const atv of children(rdn)) {
      const [type, value] = children(atv);
      const id = oid(type);
      if (id === OID_CN) commonName = text(value);
      else if (id === OID_O) organizations.push(text(value));
    }
  }
  return { commonName, organizations };
}



function readSANs(ext: DerNode, out: Pick<CertificateRequest, 'dnsNames' | 'emailAddresses' | 'ipAddresses' | 'uris'>): void {
  const names = readNode(ext.value);
  for (const gn of children(names)) {
    switch (gn.tag & 0x1f) {
      case 1:
        out.emailAddresses.push(gn.value.toString('latin1'));
        break;
      case 2:
        out.dnsNames.push(gn.value.toString('latin1'));
        break;
      case 6:
        out.uris.push(gn.value.toString('latin1'));
        break;
      case 7:
        out.ipAddresses.push(gn.value.length === 4 ? [...gn.value].join('.') : gn.value.toString('hex'));
        break;
    }
  }
}

/** the request of a DER-encoded CertificationRequest; throws DerError when it does not parse */
export function parseCertificateRequest(der: Buffer): CertificateRequest {
  const outer = readNode(der);
  if (outer.tag !== 0x30 || outer.raw.length !== der.length) throw new DerError('trailing data');
  const [info, algorithm, signature] = children(outer);
  if (!info || !algorithm || !signature || info.tag !== 0x30 || signature.tag !== 0x03) throw new DerError('not a certificate request');
  const [version, subject, spki, attributes] = children(info);
  if (!version || version.tag !== 0x02 || !subject || subject.tag !== 0x30 || !spki || spki.tag !== 0x30) throw new DerError('not a certificate request');
  const req: CertificateRequest = {
    ...readName(subject),
    dnsNames: [],
    emailAddresses: [],
    ipAddresses: [],
    uris: [],
    tbs: info.raw,
    signatureAlgorithm: oid(children(algorithm)[0]),
    // a BIT STRING's first octet counts the unused bits
    signature: signature.value.subarray(1),
    publicKey: spki.raw,
  };
  if (attributes && attributes.tag === 0xa0) {
    for (const attr of children(attributes)) {
      const [type, values] = children(attr);
      if (oid(type) !== OID_EXTENSION_REQUEST) continue;
      for (const exts of children(values)) {
        for (const ext of children(exts)) {
          const parts = children(ext);
          if (oid(parts[0]) === OID_SAN) readSANs(parts[parts.length - 1], req);
        }
      }
    }
  }
  return req;
}

/** kube's ParseCSR: the request in PEM `data`, or the error kube reports */
export function parseCSR(data: Buffer): { csr: CertificateRequest } | { error: string } {
  const block = firstPemBlock(data);
  if (!block || block.type !== 'CERTIFICATE REQUEST') return { error: 'PEM block type must be CERTIFICATE REQUEST' };
  try {
    return { csr: parseCertificateRequest(block.der) };
  } catch (err) {
    return { error: `asn1: structure error: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** CheckSignature: '' when the request is signed by its own key, else the error kube reports */
export function checkSignature(csr: CertificateRequest): string {
  if (!Object.hasOwn(SIGNATURE_HASHES, csr.signatureAlgorithm)) return 'x509: cannot verify signature: algorithm unimplemented';
  let key: crypto.KeyObject;
  try {
    key = crypto.createPublicKey({ key: csr.publicKey, format: 'der', type: 'spki' });
  } catch {
    return 'x509: unsupported public key algorithm';
  }
  const ok = (() => {
    try {
      return crypto.verify(SIGNATURE_HASHES[csr.signatureAlgorithm], csr.tbs, key, csr.signature);
    } catch {
      return false;
    }
  })();
  if (ok) return '';
  if (key.asymmetricKeyType === 'ec') return 'x509: ECDSA verification failure';
  if (key.asymmetricKeyType === 'ed25519') return 'x509: Ed25519 verification failure';
  return 'crypto/rsa: verification error';
}
