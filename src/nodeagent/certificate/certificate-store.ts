/**
 * Where the node agent keeps the certificates it asked for (client-go's certificate fileStore):
 * each issued pair is one file `<prefix>-<YYYY-MM-DD-HH-MM-SS>.pem` under the cert dir holding the
 * certificate chain then the key (mode 0600), and `<prefix>-current.pem` is a symbolic link to the
 * newest, swapped atomically (a `<prefix>-updated.pem` link renamed over it). A kubeconfig names the
 * current link for both its client certificate and key, so it follows every rotation.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** a certificate and its key as the store holds them */
export interface StoredPair {
  /** the certificate chain and the key, PEM */
  certPem: string;
  keyPem: string;
  /** the first (leaf) certificate */
  leaf: crypto.X509Certificate;
}

/** the PEM blocks of `text` whose type is `type` */
function blocks(text: string, type: RegExp): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----\r?\n?/g)) {
    if (type.test(m[1])) out.push(m[0].endsWith('\n') ? m[0] : `${m[0]}\n`);
  }
  return out;
}

/** a pair from PEM text holding certificates and a private key; throws when either is missing or they do not match */
export function parsePair(certText: string, keyText: string = certText): StoredPair {
  const certs = blocks(certText, /^CERTIFICATE$/);
  const keys = blocks(keyText, /PRIVATE KEY$/);
  if (certs.length === 0) throw new Error('no certificate found');
  if (keys.length === 0) throw new Error('no private key found');
  const leaf = new crypto.X509Certificate(certs[0]);
  if (!leaf.checkPrivateKey(crypto.createPrivateKey(keys[0]))) throw new Error('the private key does not match the certificate');
  return { certPem: certs.join(''), keyPem: keys[0], leaf };
}

/** Go's time layout 2006-01-02-15-04-05, in local time as kubelet writes it */
function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}-${p(d.getHours())}-${p(d.getMinutes())}-${p(d.getSeconds())}`;
}

export class CertificateStore {
  readonly #dir: string;
  readonly #prefix: string;
  readonly #now: () => number;

  /** `prefix`: kubelet-client or kubelet-server */
  constructor(opts: { dir: string; prefix: string; now?: () => number }) {
    this.#dir = opts.dir;
    this.#prefix = opts.prefix;
    this.#now = opts.now ?? Date.now;
  }

  /** the link a kubeconfig names */
  get currentPath(): string {
    return path.join(this.#dir, `${this.#prefix}-current.pem`);
  }

  /** the current pair, or undefined when there is none or it cannot be read */
  current(): StoredPair | undefined {
    let text: string;
    try {
      text = fs.readFileSync(this.currentPath, 'utf8');
    } catch {
      return undefined;
    }
    try {
      return parsePair(text);
    } catch {
      return undefined;
    }
  }

  /** keep a newly issued pair and make it the current one; returns it */
  update(certPem: string, keyPem: string): StoredPair {
    const pair = parsePair(certPem, keyPem);
    fs.mkdirSync(this.#dir, { recursive: true, mode: 0o755 });
    const file = path.join(this.#dir, `${this.#prefix}-${stamp(new Date(this.#now()))}.pem`);
    fs.writeFileSync(file, pair.certPem + pair.keyPem, { mode: 0o600 });
    const current = this.currentPath;
    try {
      if (!fs.lstatSync(current).isSymbolicLink()) throw new Error(`${current} exists and is not a symbolic link: not replacing it`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const updated = path.join(this.#dir, `${this.#prefix}-updated.pem`);
    fs.rmSync(updated, { force: true });
    fs.symlinkSync(file, updated);
    fs.renameSync(updated, current);
    return pair;
  }
}

/** whether the certificate is inside its validity period at `now` */
export function isValidAt(leaf: crypto.X509Certificate, now: number): boolean {
  return Date.parse(leaf.validFrom) <= now && now < Date.parse(leaf.validTo);
}
