/**
 * The PKCS#10 requests the node agent sends in its CertificateSigningRequests, as client-go's
 * certutil.MakeCSR writes them: the subject (organizations, then the common name), the public key,
 * and for a serving certificate an extensionRequest with the subject alternative names; signed with
 * ECDSA-SHA256 by the new key. Keys are ECDSA P-256 in SEC 1 PEM ("EC PRIVATE KEY"), as client-go's
 * keyutil makes them. Node's crypto signs; the DER is written here.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import { bitString, integer, octets, oid, seq, tlv } from '../../controllers/certificates/der-writer';

/** the subject and names a certificate is asked for (client-go's x509.CertificateRequest template) */
export interface CertificateTemplate {
  commonName: string;
  organizations: readonly string[];
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';
const OID_EC_PUBLIC_KEY_SHA256 = '1.2.840.10045.4.3.2';
const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const OID_SAN = '2.5.29.17';

/** a new ECDSA P-256 private key in PEM (client-go's MakeEllipticPrivateKeyPEM) */
export function newPrivateKeyPem(): string {
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'sec1', format: 'pem' }) as string;
}

/** Go's asn1 writes a string as PrintableString when every character allows it, else UTF8String */
function directoryString(value: string): Buffer {
  const printable = /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(value);
  return tlv(printable ? 0x13 : 0x0c, Buffer.from(value, 'utf8'));
}

function attribute(type: string, value: string): Buffer {
  return tlv(0x31, seq(oid(type), directoryString(value)));
}

/** pkix.Name's RDN order: organizations come before the common name */
function subjectName(t: CertificateTemplate): Buffer {
  const rdns = [...t.organizations.map((o) => attribute(OID_O, o))];
  if (t.commonName) rdns.push(attribute(OID_CN, t.commonName));
  return seq(...rdns);
}

function ipBytes(ip: string): Buffer {
  if (net.isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  // expand :: and write the eight 16-bit groups
  const [head, tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g || '0', 16), i * 2));
  return out;
}

function extensionRequest(t: CertificateTemplate): Buffer {
  const names = [
    ...(t.dnsNames ?? []).map((d) => tlv(0x82, Buffer.from(d, 'latin1'))),
    ...(t.ipAddresses ?? []).map((ip) => tlv(0x87, ipBytes(ip))),
  ];
  if (names.length === 0) return Buffer.alloc(0);
  const san = seq(oid(OID_SAN), octets(seq(...names)));
  return seq(oid(OID_EXTENSION_REQUEST), tlv(0x31, seq(san)));
}

/** a PEM CERTIFICATE REQUEST for the template, signed by `keyPem` */
export function makeCertificateRequest(keyPem: string, template: CertificateTemplate): string {
  const key = crypto.createPrivateKey(keyPem);
  const spki = crypto.createPublicKey(key).export({ type: 'spki', format: 'der' });
  const info = seq(integer(Buffer.from([0])), subjectName(template), spki, tlv(0xa0, extensionRequest(template)));
  const signature = crypto.sign('sha256', info, key);
  const der = seq(info, seq(oid(OID_EC_PUBLIC_KEY_SHA256)), bitString(signature));
  return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE REQUEST-----\n`;
}

/**
 * The name of a node's bootstrap CSR (kubelet's digestedName): a hash of the public key, the subject
 * and the usages, so that an agent restarted with the same key finds its earlier request again.
 */
export function digestedName(keyPem: string, template: CertificateTemplate, usages: readonly string[]): string {
  const spki = crypto.createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
  const hash = crypto.createHash('sha512-256');
  // each part base64url-encoded and closed by '|', a byte outside that alphabet: no two inputs collide
  const write = (data: Buffer): void => void hash.update(`${data.toString('base64url')}|`);
  write(spki);
  write(Buffer.from(template.commonName));
  for (const o of template.organizations) write(Buffer.from(o));
  for (const u of usages) write(Buffer.from(u));
  return `node-csr-${hash.digest().toString('base64url')}`;
}
