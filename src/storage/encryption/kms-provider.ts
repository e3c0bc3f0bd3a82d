/**
 * kube's `kms` provider (KMS v1): envelope encryption. Every write gets a fresh 32-byte data key
 * (DEK); the value is encrypted with AES-CBC under it (16-byte IV, then the PKCS#7-padded data, as
 * aescbc does), and the DEK is encrypted by the KMS plugin. After the prefix
 * `k8s:enc:kms:v1:<name>:` the stored bytes are: the encrypted DEK's length (2 bytes, big-endian),
 * the encrypted DEK, the data ciphertext. Decrypted DEKs are kept in an LRU cache keyed by the
 * encrypted DEK (`cachesize` entries, none when negative), so reading a value written or read
 * before costs no plugin call.
 */
import crypto from 'node:crypto';
import type { Provider } from './providers';
import type { KmsService } from './kms-service';

export interface KmsProviderOptions {
  name: string;
  service: KmsService;
  /** entries of the DEK cache; 0 or less turns the cache off */
  cacheSize: number;
}

export interface KmsProvider extends Provider {
  readonly kmsName: string;
  readonly service: KmsService;
}

const DEK_BYTES = 32;

/** a Map in least-recently-used order: get() moves an entry last, set() drops the first past the limit */
export class LruCache<V> {
  readonly #max: number;
  readonly #map = new Map<string, V>();

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    if (this.#max <= 0) return;
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as string);
  }
}

function cbcEncrypt(dek: Buffer, plain: Buffer): Buffer {
  const iv = crypto.randomBytes(16);
  const c = crypto.createCipheriv('aes-256-cbc', dek, iv);
  return Buffer.concat([iv, c.update(plain), c.final()]);
}

function cbcDecrypt(dek: Buffer, data: Buffer): Buffer {
  if (data.length < 16 || data.length % 16 !== 0) throw new Error('the stored data is not a whole number of blocks');
  const algorithm = `aes-${dek.length * 8}-cbc`;
  const d = crypto.createDecipheriv(algorithm, dek, data.subarray(0, 16));
  return Buffer.concat([d.update(data.subarray(16)), d.final()]);
}

export function kmsProvider(opts: KmsProviderOptions): KmsProvider {
  const cache = new LruCache<Buffer>(opts.cacheSize);
  const { service } = opts;
  return {
    prefix: `k8s:enc:kms:v1:${opts.name}:`,
    kmsName: opts.name,
    service,
    async seal(plain) {
      const dek = crypto.randomBytes(DEK_BYTES);
      let encDek: Buffer;
      try {
        encDek = await service.encrypt(dek);
      } catch (err) {
        throw new Error(`failed to encrypt DEK, error: ${(err as Error).message}`);
      }
      if (encDek.length > 0xffff) throw new Error(`the KMS plugin returned an encrypted DEK of ${encDek.length} bytes; at most 65535 fit the envelope`);
      cache.set(encDek.toString('base64'), dek);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(encDek.length, 0);
      return Buffer.concat([length, encDek, cbcEncrypt(dek, plain)]);
    },
    async open(sealed) {
      if (sealed.length < 2) throw new Error('invalid data encountered by envelope transformer: too short');
      const keyLength = sealed.readUInt16BE(0);
      if (keyLength + 2 > sealed.length) {
        throw new Error(`invalid data encountered by envelope transformer: length longer than available bytes: ${sealed.length}`);
      }
      const encDek = sealed.subarray(2, 2 + keyLength);
      const cacheKey = encDek.toString('base64');
      let dek = cache.get(cacheKey);
      if (!dek) {
        try {
          dek = await service.decrypt(Buffer.from(encDek));
        } catch (err) {
          throw new Error(`failed to decrypt DEK, error: ${(err as Error).message}`);
        }
        if (![16, 24, 32].includes(dek.length)) throw new Error(`the KMS plugin returned a DEK of ${dek.length} bytes, not an AES key`);
        cache.set(cacheKey, dek);
      }
      return cbcDecrypt(dek, sealed.subarray(2 + keyLength));
    },
    close() {
      service.close();
    },
  };
}

export function isKmsProvider(p: Provider): p is KmsProvider {
  return (p as Partial<KmsProvider>).kmsName !== undefined;
}
