/**
 * Issue an X.509 certificate for a certificate request, as kube's local CA (authority.Sign with a
 * PermissiveSigningPolicy) does: the request's subject, public key and subject alternative names,
 * the usages of the CSR object, not a CA, backdated five minutes, valid for the TTL but never past
 * the CA's own expiry (long lifetimes end five minutes early, as kube's PermissiveSigningPolicy). Signed with Node's crypto so RSA and ECDSA CAs both work.
 */
import crypto from 'node:crypto';
import { children, readNode } from '../../api/kinds/certificates/der';
import { bitString, bool, integer, nullValue, octets, oid, seq, time, tlv } from './der-writer';

export interface SigningPair {
  certPem: string;
  keyPem: string;
}

const KEY_USAGE_BITS: Record<string, number> = {
  signing: 0,
  'digital signature': 0,
  'content commitment': 1,
  'key encipherment': 2,
  'data encipherment': 3,
  'key agreement': 4,
  'cert sign': 5,
  'crl sign': 6,
  'encipher only': 7,
  'decipher only': 8,
};

const EXT_KEY_USAGES: Record<string, string> = {
  any: '2.5.29.37.0',
  'server auth': '1.3.6.1.5.5.7.3.1',
  'client auth': '1.3.6.1.5.5.7.3.2',
  'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4',
  's/mime': '1.3.6.1.5.5.7.3.4',
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9',
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
};

const BACKDATE_MS = 5 * 60_000;
/** shorter lifetimes are not shortened by the backdating */
const SHORT_MS = 8 * 3600_000;

/** kube's KeyUsagesFromStrings: throws on a usage it does not know */
export function parseUsages(usages: readonly string[]): { keyUsageBits: number[]; extKeyUsages: string[] } {
  const bits = new Set<number>();
  const ext = new Set<string>();
  for (const u of usages) {
    if (u in KEY_USAGE_BITS) bits.add(KEY_USAGE_BITS[u]);
    else if (u in EXT_KEY_USAGES) ext.add(EXT_KEY_USAGES[u]);
    else throw new Error(`unrecognized usage: ${u}`);
  }
  return { keyUsageBits: [...bits].sort((a, b) => a - b), extKeyUsages: [...ext] };
}

function keyUsageBitString(bits: number[]): Buffer {
  const last = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(last / 8) + 1);
  for (const b of bits) bytes[Math.floor(b / 8)] |= 0x80 >> b % 8;
  return bitString(bytes, 7 - (last % 8));
}

const extension = (id: string, critical: boolean, value: Buffer) => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

function signatureAlgorithm(key: crypto.KeyObject): { der: Buffer; hash: string } {
  if (key.asymmetricKeyType === 'rsa') return { der: seq(oid('1.2.840.113549.1.1.11'), nullValue()), hash: 'sha256' };
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'secp384r1') return { der: seq(oid('1.2.840.10045.4.3.3')), hash: 'sha384' };
    if (curve === 'secp521r1') return { der: seq(oid('1.2.840.10045.4.3.4')), hash: 'sha512' };
    return { der: seq(oid('1.2.840.10045.4.3.2')), hash: 'sha256' };
  }
  throw new Error(`unsupported signing key type ${key.asymmetricKeyType}`);
}

/** the parts of a request the certificate copies: subject Name, SPKI and the SAN extension's value */
function requestParts(csrDer: Buffer): { subject: Buffer; spki: Buffer; san?: Buffer } {
  const [info] = children(readNode(csrDer));
  const [, subject, spki, attributes] = children(info);
  let san: Buffer | undefined;
  if (attributes && attributes.tag === 0xa0) {
    for (const attr of children(attributes)) {
      const [type, values] = children(attr);
      if (type.value.toString('hex') !== '2a864886f70d01090e') continue; // extensionRequest
      for (const exts of children(values)) {
        for (const ext of children(exts)) {
          const parts = children(ext);
          if (parts[0].value.toString('hex') === '551d11') san = parts[parts.length - 1].value; // subjectAltName
        }
      }
    }
  }
  return { subject: subject.raw, spki: spki.raw, san };
}

export interface IssueOptions {
  csrDer: Buffer;
  usages: readonly string[];
  ttlMs: number;
  signer: SigningPair;
  now?: number;
}

/** a PEM certificate for the request, signed by the pair */
export function issueCertificate(o: IssueOptions): string {
  const now = o.now ?? Date.now();
  const ca = new crypto.X509Certificate(o.signer.certPem);
  const caKey = crypto.createPrivateKey(o.signer.keyPem);
  const { subject, spki, san } = requestParts(o.csrDer);
  const caTbs = children(children(readNode(ca.raw))[0]);
  // with an explicit version [0] the issuer's subject is the sixth field of the CA's TBS
  const caSubject = (caTbs[0].tag === 0xa0 ? caTbs[5] : caTbs[4]).raw;
  const caNotAfter = Date.parse(ca.validTo);
  if (now >= caNotAfter) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${ca.validTo}`);
  const notAfter = Math.min(o.ttlMs < SHORT_MS ? now + o.ttlMs : now + o.ttlMs - BACKDATE_MS, caNotAfter);
  const { keyUsageBits, extKeyUsages } = parseUsages(o.usages);
  const extensions: Buffer[] = [];
  if (keyUsageBits.length) extensions.push(extension('2.5.29.15', true, keyUsageBitString(keyUsageBits)));
  if (extKeyUsages.length) extensions.push(extension('2.5.29.37', false, seq(...extKeyUsages.map(oid))));
  extensions.push(extension('2.5.29.19', true, seq()));
  const caSki = subjectKeyId(ca);
  if (caSki) extensions.push(extension('2.5.29.35', false, seq(tlv(0x80, caSki))));
  if (san) extensions.push(extension('2.5.29.17', false, san));
  const serial = crypto.randomBytes(16);
  serial[0] &= 0x7f;
  const alg = signatureAlgorithm(caKey);
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    alg.der,
    caSubject,
    seq(time(new Date(now - BACKDATE_MS)), time(new Date(notAfter))),
    subject,
    spki,
    tlv(0xa3, seq(...extensions)),
  );
  const signature = crypto.sign(alg.hash, tbs, caKey);
  const der = seq(tbs, alg.der, bitString(signature));
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

/** the CA's subject key identifier, for the authority key identifier of what it signs */
function subjectKeyId(ca: crypto.X509Certificate): Buffer | undefined {
  const tbs = children(children(readNode(ca.raw))[0]);
  const exts = tbs.find((n) => n.tag === 0xa3);
  if (!exts) return undefined;
  for (const ext of children(children(exts)[0])) {
    const parts = children(ext);
    if (parts[0].value.toString('hex') === '551d0e') return readNode(parts[parts.length - 1].value).value;
  }
  return undefined;
}
