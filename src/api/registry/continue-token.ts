/**
 * Continue tokens, encoded as kube's etcd3 store does: base64url (no padding) of
 * `{"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<next key, relative to the list prefix>"}`.
 * rv -1 means "continue at the newest revision" (the fresh token handed out with a 410 Expired).
 */
import { errors } from '../errors';

export interface ContinuePosition {
  /** the revision of the first page; -1 = newest */
  revision: number;
  /** the absolute key to start at (inclusive) */
  startKey: string;
}

const VERSION = 'meta.k8s.io/v1';

export function encodeContinue(nextKey: string, prefix: string, revision: number): string {
  if (!nextKey.startsWith(prefix)) throw errors.internal('unable to encode next field: the key and key prefix do not match');
  const json = JSON.stringify({ v: VERSION, rv: revision, start: nextKey.slice(prefix.length) });
  return Buffer.from(json, 'utf8').toString('base64url');
}

function invalid(detail: string): never {
  throw errors.badRequest(`invalid continue token: ${detail}`);
}

/** decode a token for a list under prefix; malformed tokens are 400 with kube's wording */
export function decodeContinue(token: string, prefix: string): ContinuePosition {
  if (!/^[A-Za-z0-9_-]*$/.test(token)) invalid('continue key is not valid: illegal base64 data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (err) {
    invalid(`continue key is not valid: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null) invalid('continue key is not valid');
  const c = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (c.v !== VERSION) invalid(`continue key is not valid: server does not recognize this encoded version ${String(c.v ?? '')}`);
  if (typeof c.rv !== 'number' || !Number.isSafeInteger(c.rv) || c.rv === 0) {
    invalid('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof c.start !== 'string' || c.start.length === 0) invalid('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  // kube cleans the start key as a path and refuses one that changes: a token can never reach
  // keys outside the list's prefix (`../`, `./`, `//`)
  const key = c.start.startsWith('/') ? c.start : '/' + c.start;
  if (cleanPath(key) !== key) invalid(`continue key is not valid: ${c.start}`);
  return { revision: c.rv < 0 ? -1 : c.rv, startKey: prefix + key.slice(1) };
}

/** Go's path.Clean for absolute paths */
function cleanPath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}
