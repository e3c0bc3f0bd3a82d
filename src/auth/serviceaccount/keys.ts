/**
 * Service account keys: the public keys that verify tokens (--service-account-key-file, repeatable:
 * PEM public keys, private keys or certificates, RSA or ECDSA) and the private key that signs them
 * (--service-account-signing-key-file). A key's `kid` is kube's: the unpadded base64url SHA-256 of
 * its DER (PKIX) public key, so tokens and the JWKS document name keys as kube-apiserver does.
 */
import { readFlagFile } from '../../util/files';
import crypto from 'node:crypto';
import fs from 'node:fs';

export class ServiceAccountKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServiceAccountKeyError';
  }
}

/** a verifying key, with the JWS algorithm its type implies */
export interface VerifyingKey {
  readonly key: crypto.KeyObject;
  readonly kid: string;
  readonly alg: string;
}

export interface SigningKey extends VerifyingKey {
  readonly privateKey: crypto.KeyObject;
}

/** the JWS algorithm of an RSA or ECDSA key (ECDSA: by curve); undefined for any other key type */
export function algorithmOf(key: crypto.KeyObject): string | undefined {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
  }
  return undefined;
}

/** kube's key id: base64url (no padding) of SHA-256 over the DER-encoded public key */
export function keyId(publicKey: crypto.KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return crypto.createHash('sha256').update(der).digest('base64url');
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function publicKeyOfBlock(type: string, pem: string): crypto.KeyObject | undefined {
  if (type === 'CERTIFICATE') return new crypto.X509Certificate(pem).publicKey;
  if (type.endsWith('PUBLIC KEY')) return crypto.createPublicKey(pem);
  if (type.endsWith('PRIVATE KEY')) return crypto.createPublicKey(crypto.createPrivateKey(pem));
  return undefined;
}

function readKeyFile(file: string, flag: string): string {
  return readFlagFile(file, flag, (m) => new ServiceAccountKeyError(m));
}

function verifyingKey(key: crypto.KeyObject): VerifyingKey | undefined {
  const alg = algorithmOf(key);
  return alg ? Object.freeze({ key, kid: keyId(key), alg }) : undefined;
}

/** parse PEM text into its RSA and ECDSA public keys (private keys and certificates give theirs) */
export function parseVerifyingKeys(pem: string, where: string): VerifyingKey[] {
  const keys: VerifyingKey[] = [];
  for (const m of pem.matchAll(PEM_BLOCK)) {
    let key: crypto.KeyObject | undefined;
    try {
      key = publicKeyOfBlock(m[1], m[0]);
    } catch (err) {
      throw new ServiceAccountKeyError(`${where}: invalid ${m[1]} block: ${(err as Error).message}`);
    }
    const vk = key && verifyingKey(key);
    if (vk) keys.push(vk);
  }
  // kube's keyutil wording when nothing usable is found
  if (keys.length === 0) throw new ServiceAccountKeyError(`${where}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

/** the keys of every --service-account-key-file */
export function loadVerifyingKeys(files: readonly string[]): VerifyingKey[] {
  return files.flatMap((file) => parseVerifyingKeys(readKeyFile(file, '--service-account-key-file'), `--service-account-key-file ${file}`));
}

/** the private key of --service-account-signing-key-file (RSA or ECDSA, PEM) */
export function loadSigningKey(file: string): SigningKey {
  const pem = readKeyFile(file, '--service-account-signing-key-file');
  const where = `--service-account-signing-key-file ${file}`;
  const block = [...pem.matchAll(PEM_BLOCK)].find((m) => m[1].endsWith('PRIVATE KEY'));
  if (!block) throw new ServiceAccountKeyError(`${where}: no PEM private key found`);
  let privateKey: crypto.KeyObject;
  try {
    privateKey = crypto.createPrivateKey(block[0]);
  } catch (err) {
    throw new ServiceAccountKeyError(`${where}: invalid ${block[1]} block: ${(err as Error).message}`);
  }
  return signingKeyOf(privateKey, where);
}

export function signingKeyOf(privateKey: crypto.KeyObject, where = 'service account signing key'): SigningKey {
  const vk = verifyingKey(crypto.createPublicKey(privateKey));
  if (!vk) throw new ServiceAccountKeyError(`${where}: the key must be RSA or ECDSA (P-256, P-384, P-521)`);
  return Object.freeze({ ...vk, privateKey });
}
