/**
 * The bearer token of a request, as kube's bearertoken and websocket-protocol authenticators find
 * it: `Authorization: Bearer <token>`, or for WebSocket clients (browsers cannot set headers) a
 * `Sec-WebSocket-Protocol` entry `base64url.bearer.authorization.k8s.io.<base64url token>`.
 * An empty token is a bad credential, as in kube.
 */
import type { TokenAuthentication, TokenAuthenticator } from '../../api/reviews/authenticator';
import type { AuthenticationRequest, AuthenticationResult, RequestAuthenticator } from '../authenticator';
import { AuthenticationError } from '../authenticator';

const WS_PREFIX = 'base64url.bearer.authorization.k8s.io.';

export function bearerToken(req: AuthenticationRequest): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth !== '') {
    const m = /^\s*bearer\s+(.*)$/i.exec(auth);
    if (!m) return undefined;
    const token = m[1].trim();
    if (token === '') throw new AuthenticationError('invalid bearer token');
    return token;
  }
  const protocols = req.headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') {
    for (const p of protocols.split(',').map((s) => s.trim())) {
      if (!p.startsWith(WS_PREFIX)) continue;
      const token = Buffer.from(p.slice(WS_PREFIX.length), 'base64url').toString('utf8');
      if (token === '') throw new AuthenticationError('invalid bearer token');
      return token;
    }
  }
  return undefined;
}

/**
 * kube's token authenticator union behind the bearer-token authenticator: the token authenticators
 * in order, the first that recognizes the token wins. A token that none recognizes is a bad
 * credential (401), not an anonymous request, as in kube.
 */
export class BearerTokenAuthenticator implements RequestAuthenticator, TokenAuthenticator {
  readonly #tokens: readonly TokenAuthenticator[];
  readonly #apiAudiences: string[];

  constructor(tokens: readonly TokenAuthenticator[], opts: { apiAudiences?: string[] } = {}) {
    this.#tokens = tokens;
    this.#apiAudiences = opts.apiAudiences ?? [];
  }

  /** the union: undefined when no authenticator recognizes the token; errors only when none does */
  async authenticateToken(token: string, audiences: string[]): Promise<TokenAuthentication | undefined> {
    const errors: string[] = [];
    for (const a of this.#tokens) {
      try {
        const r = await a.authenticateToken(token, audiences);
        if (r) return r;
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (errors.length > 0) throw new AuthenticationError(errors.join(', '));
    return undefined;
  }

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | undefined> {
    const token = bearerToken(req);
    if (token === undefined) return undefined;
    const result = await this.authenticateToken(token, this.#apiAudiences);
    if (!result) throw new AuthenticationError('invalid bearer token');
    return result;
  }
}
