/**
 * kube's request-header (front proxy) authenticator (--requestheader-*): a client certificate that
 * verifies against --requestheader-client-ca-file, and whose CommonName is in
 * --requestheader-allowed-names when that list is not empty, lets the proxy say who the user is:
 * the first non-empty username header names the user, every group header value is a group, and
 * headers starting with an extra prefix carry extra values (the rest of the name, lower-cased and
 * %-unescaped, is the key). All those headers are consumed: the request goes on without them.
 * It runs before the x509 authenticator. A proxy certificate without a username header is no opinion.
 */
import type { X509Certificate } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { UserInfo } from '../../api/reviews/authorizer';
import type { AuthenticationRequest, AuthenticationResult, RequestAuthenticator } from '../authenticator';
import { AuthenticationError } from '../authenticator';
import { certificateIdentifier, commonName, peerChain, verifyChain } from './cert-chain';

export interface RequestHeaderOptions {
  /** the --requestheader-client-ca-file certificates */
  roots: X509Certificate[];
  allowedNames: readonly string[];
  usernameHeaders: readonly string[];
  groupHeaders: readonly string[];
  extraHeaderPrefixes: readonly string[];
}

export class RequestHeaderAuthenticator implements RequestAuthenticator {
  readonly #o: RequestHeaderOptions;
  readonly #user: string[];
  readonly #group: string[];
  readonly #extra: string[];

  constructor(opts: RequestHeaderOptions) {
    this.#o = opts;
    const lower = (l: readonly string[]) => l.map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
    this.#user = lower(opts.usernameHeaders);
    this.#group = lower(opts.groupHeaders);
    this.#extra = lower(opts.extraHeaderPrefixes);
  }

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | undefined> {
    const chain = peerChain(req.socket);
    if (!chain) return undefined;
    const error = verifyChain(chain, this.#o.roots);
    if (error) throw new AuthenticationError(`verifying certificate ${certificateIdentifier(chain[0])} failed: ${error}`);
    const cn = commonName(chain[0]);
    if (this.#o.allowedNames.length > 0 && !this.#o.allowedNames.includes(cn)) {
      throw new AuthenticationError(`x509: subject with cn=${cn} is not in the allowed list`);
    }
    const h = req.headers;
    const name = this.#user.map((n) => values(h, n)[0]).find((v) => v !== undefined);
    if (name === undefined) return undefined;
    const user: UserInfo = { name, groups: this.#group.flatMap((n) => values(h, n)) };
    const extra: Record<string, string[]> = {};
    const consumed = new Set([...this.#user, ...this.#group]);
    for (const header of Object.keys(h)) {
      const prefix = this.#extra.find((p) => header.startsWith(p));
      if (prefix === undefined) continue;
      consumed.add(header);
      const key = unescapeKey(header.slice(prefix.length));
      const v = values(h, header);
      if (v.length > 0) (extra[key] ??= []).push(...v);
    }
    if (Object.keys(extra).length > 0) user.extra = extra;
    return { user, consumedHeaders: [...consumed] };
  }
}

/**
 * The non-empty values of a header. Node joins repeated headers with ", ", so that is split
 * again (kube reads each repeated header as one value).
 */
function values(h: IncomingHttpHeaders, name: string): string[] {
  const v = h[name];
  const all = v === undefined ? [] : Array.isArray(v) ? v : v.split(', ');
  return all.filter((x) => x !== '');
}

/** kube's unescapeExtraKey: %-escapes in extra keys are decoded; a bad escape keeps the key as sent */
function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}
