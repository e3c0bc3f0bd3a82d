/**
 * kube's bootstrap token authenticator (--enable-bootstrap-token-auth): a token `<id>.<secret>`
 * (6 and 16 characters of [a-z0-9]) is checked against the secret `bootstrap-token-<id>` in
 * kube-system, read through the registry on each request. The secret must be of type
 * bootstrap.kubernetes.io/token, hold the same token-id and token-secret, allow
 * authentication (usage-bootstrap-authentication: "true") and not have expired. The user is
 * system:bootstrap:<id> in system:bootstrappers plus the secret's auth-extra-groups.
 *
 * As in kube, every failure is "not recognized" (undefined): the bearer authenticator then refuses
 * the token with 401; the reason is logged at debug level.
 */
import crypto from 'node:crypto';
import type { TokenAuthentication, TokenAuthenticator } from '../../api/reviews/authenticator';
import type { ObjectLookup } from './service-account';

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';

export interface BootstrapTokenOptions {
  lookup: ObjectLookup;
  /** why a token was not accepted (debug log) */
  debug?: (message: string) => void;
  now?: () => Date;
}

function secretString(secret: { data?: Record<string, unknown> }, key: string): string {
  const v = secret.data?.[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  readonly #o: BootstrapTokenOptions;

  constructor(opts: BootstrapTokenOptions) {
    this.#o = opts;
  }

  async authenticateToken(token: string, audiences: string[]): Promise<TokenAuthentication | undefined> {
    const m = TOKEN.exec(token);
    if (!m) return undefined;
    const [, id, secretPart] = m;
    const name = `bootstrap-token-${id}`;
    const no = (why: string): undefined => {
      this.#o.debug?.(`bootstrap token ${id}: ${why}`);
      return undefined;
    };
    const secret = (await this.#o.lookup('secrets', 'kube-system', name)) as ({ type?: unknown; data?: Record<string, unknown> } & Record<string, unknown>) | undefined;
    if (!secret) return no(`no secret of name ${name} to match bootstrap bearer token`);
    if ((secret.metadata as { deletionTimestamp?: string } | undefined)?.deletionTimestamp) return no(`secret ${name} is being deleted`);
    if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return no(`secret ${name} has type ${String(secret.type)}, not ${BOOTSTRAP_TOKEN_SECRET_TYPE}`);
    if (!sameSecret(secretString(secret, 'token-secret'), secretPart)) return no('the token secret does not match');
    if (secretString(secret, 'token-id') !== id) return no(`the token-id of ${name} does not match`);
    const expiration = secretString(secret, 'expiration');
    if (expiration !== '') {
      const at = Date.parse(expiration);
      if (Number.isNaN(at) || at <= (this.#o.now?.() ?? new Date()).getTime()) return no(`expired at ${expiration}`);
    }
    if (secretString(secret, 'usage-bootstrap-authentication') !== 'true') return no('not marked usage-bootstrap-authentication=true');
    const extra = secretString(secret, 'auth-extra-groups').split(',').map((g) => g.trim()).filter((g) => g !== '');
    const bad = extra.find((g) => !EXTRA_GROUP.test(g));
    if (bad !== undefined) return no(`auth-extra-groups: ${JSON.stringify(bad)} does not match ${EXTRA_GROUP.source}`);
    return {
      user: { name: `system:bootstrap:${id}`, groups: [BOOTSTRAPPERS_GROUP, ...extra] },
      audiences: [...audiences],
    };
  }
}
