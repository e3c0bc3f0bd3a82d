/**
 * Signs service account tokens with the --service-account-signing-key-file key: kube's JWT token
 * generator (header `alg` from the key type, `kid` the key's id, `iss` the first issuer).
 */
import { SignJWT } from 'jose';
import type { TokenClaims } from './claims';
import type { SigningKey } from './keys';

export class TokenIssuer {
  readonly #key: SigningKey;
  readonly issuer: string;

  constructor(opts: { key: SigningKey; issuer: string }) {
    this.#key = opts.key;
    this.issuer = opts.issuer;
  }

  /** a signed compact JWS of `claims` with our issuer */
  async sign(claims: TokenClaims): Promise<string> {
    return new SignJWT({ ...claims, iss: this.issuer })
      .setProtectedHeader({ alg: this.#key.alg, kid: this.#key.kid })
      .sign(this.#key.privateKey);
  }
}
