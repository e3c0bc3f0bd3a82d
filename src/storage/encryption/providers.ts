/**
 * The encryption providers of kube's EncryptionConfiguration, with kube's on-disk layout after the
 * provider prefix `k8s:enc:<provider>:v1:<key name>:`:
 *   aescbc     16-byte IV, then AES-CBC of the PKCS#7-padded value
 *   aesgcm     12-byte nonce, then AES-GCM of the value with the storage key as additional data, tag last
 *   secretbox  24-byte nonce, then NaCl secretbox (XSalsa20-Poly1305) of the value
 *   kms        see kms-provider.ts (envelope encryption through a KMS plugin)
 * Our store keeps text, so the bytes after the prefix are base64.
 */
import crypto from 'node:crypto';
import type nacl from 'tweetnacl';
import { lazy } from '../../util/lazy';

/** tweetnacl only when a secretbox provider is configured */
const naclLib = lazy(() => require('tweetnacl') as typeof nacl);

export interface Provider {
  /** `k8s:enc:aescbc:v1:key1:`; '' for identity */
  readonly prefix: string;
  /** local providers answer at once; KMS providers wait for their plugin */
  seal(plain: Buffer, storageKey: string): Buffer | Promise<Buffer>;
  open(sealed: Buffer, storageKey: string): Buffer | Promise<Buffer>;
  /** release what the provider holds (a KMS plugin connection) */
  close?(): void;
}

export function identityProvider(): Provider {
  return { prefix: '', seal: (p) => p, open: (s) => s };
}

export function aescbcProvider(name: string, key: Buffer): Provider {
  const algorithm = `aes-${key.length * 8}-cbc`;
  return {
    prefix: `k8s:enc:aescbc:v1:${name}:`,
    seal(plain) {
      const iv = crypto.randomBytes(16);
      const c = crypto.createCipheriv(algorithm, key, iv);
      return Buffer.concat([iv, c.update(plain), c.final()]);
    },
    open(sealed) {
      if (sealed.length < 16 || (sealed.length - 16) % 16 !== 0) throw new Error('the stored data is not a whole number of blocks');
      const d = crypto.createDecipheriv(algorithm, key, sealed.subarray(0, 16));
      return Buffer.concat([d.update(sealed.subarray(16)), d.final()]);
    },
  };
}

export function aesgcmProvider(name: string, key: Buffer): Provider {
  const algorithm = `aes-${key.length * 8}-gcm` as crypto.CipherGCMTypes;
  return {
    prefix: `k8s:enc:aesgcm:v1:${name}:`,
    seal(plain, storageKey) {
      const nonce = crypto.randomBytes(12);
      const c = crypto.createCipheriv(algorithm, key, nonce);
      c.setAAD(Buffer.from(storageKey));
      const body = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([nonce, body, c.getAuthTag()]);
    },
    open(sealed, storageKey) {
      if (sealed.length < 12 + 16) throw new Error('the stored data is too short');
      const d = crypto.createDecipheriv(algorithm, key, sealed.subarray(0, 12));
      d.setAAD(Buffer.from(storageKey));
      d.setAuthTag(sealed.subarray(sealed.length - 16));
      return Buffer.concat([d.update(sealed.subarray(12, sealed.length - 16)), d.final()]);
    },
  };
}

export function secretboxProvider(name: string, key: Buffer): Provider {
  const k = new Uint8Array(key);
  return {
    prefix: `k8s:enc:secretbox:v1:${name}:`,
    seal(plain) {
      const box = naclLib();
      const nonce = box.randomBytes(box.secretbox.nonceLength);
      return Buffer.concat([Buffer.from(nonce), Buffer.from(box.secretbox(new Uint8Array(plain), nonce, k))]);
    },
    open(sealed) {
      const box = naclLib();
      const n = box.secretbox.nonceLength;
      const opened = box.secretbox.open(new Uint8Array(sealed.subarray(n)), new Uint8Array(sealed.subarray(0, n)), k);
      if (!opened) throw new Error('failed to decrypt the stored data (wrong key or damaged data)');
      return Buffer.from(opened);
    },
  };
}
