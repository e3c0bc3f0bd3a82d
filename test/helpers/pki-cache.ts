/**
 * A fresh data dir costs `ballast apiserver` about 1.5 s of CPU at its first start: seven RSA keys
 * and as many certificates (CA, serving, admin, three components, service accounts). The test suite
 * starts about a hundred servers on 2 cores, so the tests share one set: the first server that
 * generated its own PKI gives a copy to a cache directory, and later data dirs start with that copy
 * (the server then finds its files and reuses them, as it does on any restart).
 *
 * The cache is keyed by the content of the built PKI code and the host name (the serving certificate
 * names the host), so a change of either generates a new set. Tests about generation itself pass
 * `freshPki` to the harness and never see the cache.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const PKI_CODE = path.join(REPO_ROOT, 'dist', 'src', 'server', 'pki.js');

function cacheDir(): string | undefined {
  let code: Buffer;
  try {
    code = fs.readFileSync(PKI_CODE);
  } catch {
    return undefined;
  }
  const key = crypto.createHash('sha256').update(code).update(os.hostname()).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `ballast-test-pki-${key}`);
}

/** the server generates its PKI only when none of it is there: flags that point elsewhere opt out */
function usesDefaultCertDir(args: readonly string[]): boolean {
  return !args.some((a) => a === '--cert-dir' || a.startsWith('--cert-dir='));
}

/**
 * Before a start: when the data dir has no pki/ yet and the cache has a set, copy it in.
 * Returns true when the server is expected to generate its own (so `rememberPki` should keep it).
 */
export function seedPki(dataDir: string, args: readonly string[]): boolean {
  const target = path.join(dataDir, 'pki');
  if (!usesDefaultCertDir(args) || fs.existsSync(target)) return false;
  const cache = cacheDir();
  if (!cache || !fs.existsSync(cache)) return true;
  fs.mkdirSync(dataDir, { recursive: true });
  fs.cpSync(cache, target, { recursive: true });
  return false;
}

/** flags such as --tls-cert-file or --service-account-key-file leave part of the set ungenerated */
const COMPLETE_SET = ['ca.crt', 'ca.key', 'apiserver.crt', 'admin.crt', 'kubelet.crt', 'sa.key', 'sa.pub'];

/** after a successful first start that generated the PKI: offer it to the cache (first one wins) */
export function rememberPki(dataDir: string): void {
  const cache = cacheDir();
  const source = path.join(dataDir, 'pki');
  if (!cache || fs.existsSync(cache)) return;
  if (!COMPLETE_SET.every((f) => fs.existsSync(path.join(source, f)))) return;
  const staging = `${cache}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  try {
    fs.cpSync(source, staging, { recursive: true });
    fs.renameSync(staging, cache);
  } catch {
    // another test process won the race (rename onto a non-empty directory fails): theirs is as good
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
