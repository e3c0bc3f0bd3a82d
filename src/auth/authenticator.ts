/**
 * The authentication seam (kube's authenticator.Request): each authenticator looks at a request's
 * credentials and either recognizes them (a user), does not find any it knows (undefined), or finds
 * them bad (throws AuthenticationError). The chain is kube's: the authenticators are asked in
 * order and the first user wins; when none recognizes the request and one of them found bad
 * credentials the request is refused (401) even with anonymous access on; with nothing recognized
 * and nothing bad, --anonymous-auth decides between system:anonymous and 401.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from './user';
import { anonymousUser, withAuthenticatedGroup } from './user';

export interface AuthenticationRequest {
  /** the request headers (Node's lower-cased names) */
  headers: IncomingHttpHeaders;
  /** the TLS connection: its peer certificate, when the client sent one */
  socket?: TLSSocket;
  method?: string;
  url?: string;
}

export interface AuthenticationResult {
  user: UserInfo;
  /** the audiences the credential was valid for (tokens with an audience) */
  audiences?: string[];
  /** request headers the authenticator consumed; removed before the request goes on (front-proxy headers) */
  consumedHeaders?: string[];
}

export interface RequestAuthenticator {
  /** the user, undefined when this authenticator finds no credential it knows; throws AuthenticationError for a bad one */
  authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | undefined>;
}

/** a credential that was recognized as one this authenticator checks, and failed */
export class AuthenticationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthenticationError';
  }
}

/**
 * kube's request authenticator chain: the authenticators in order, system:authenticated added to
 * the user they find, then anonymous access when allowed. The result is undefined when the request
 * is refused; `errors` then says why (for the log, never for the client).
 */
export function authenticatorChain(authenticators: readonly RequestAuthenticator[], opts: { anonymous: boolean }): ChainAuthenticator {
  return {
    async authenticate(req) {
      const errors: string[] = [];
      for (const a of authenticators) {
        try {
          const result = await a.authenticate(req);
          if (result) return { ...result, user: withAuthenticatedGroup(result.user) };
        } catch (err) {
          errors.push(err instanceof Error ? err.message : String(err));
        }
      }
      if (errors.length > 0) return { errors };
      if (opts.anonymous) return { user: anonymousUser() };
      return { errors: [] };
    },
  };
}

export type ChainResult = (AuthenticationResult & { errors?: undefined }) | { user?: undefined; errors: string[] };

export interface ChainAuthenticator {
  authenticate(req: AuthenticationRequest): Promise<ChainResult>;
}
