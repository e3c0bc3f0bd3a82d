/**
 * kube's static token file (--token-auth-file): CSV lines `token,user,uid[,"group1,group2"]`.
 * A line with fewer than three columns stops the start naming the file and line; an empty token
 * is skipped and a repeated token keeps the later line, each with a warning, as kube does.
 */
import fs from 'node:fs';
import type { parse as parseCsv } from 'csv-parse/sync';
import type { UserInfo } from '../../api/reviews/authorizer';
import type { TokenAuthentication, TokenAuthenticator } from '../../api/reviews/authenticator';

export class TokenFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenFileError';
  }
}

/** read and parse a token file; throws TokenFileError (one line naming file and line) */
export function loadTokenFile(file: string, warn: (message: string) => void = () => {}): Map<string, UserInfo> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new TokenFileError(`--token-auth-file ${file}: ${(err as Error).message}`);
  }
  let records: string[][];
  try {
    const { parse } = require('csv-parse/sync') as { parse: typeof parseCsv };
    records = parse(text.replace(/^\uFEFF/, ''), { relax_column_count: true, skip_empty_lines: true, trim: false });
  } catch (err) {
    throw new TokenFileError(`--token-auth-file ${file}: ${(err as Error).message}`);
  }
  const tokens = new Map<string, UserInfo>();
  records.forEach((record, i) => {
    const line = i + 1;
    if (record.length < 3) {
      throw new TokenFileError(`--token-auth-file ${file}, line ${line}: must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    }
    const [token, name, uid, groups] = record;
    if (token === '') {
      warn(`--token-auth-file ${file}, line ${line}: empty token, skipped`);
      return;
    }
    if (tokens.has(token)) warn(`--token-auth-file ${file}, line ${line}: duplicate token, this line wins`);
    const user: UserInfo = { name, uid, groups: [] };
    if (groups !== undefined && groups !== '') user.groups = groups.split(',').map((g) => g.trim()).filter((g) => g !== '');
    tokens.set(token, user);
  });
  return tokens;
}

export class TokenFileAuthenticator implements TokenAuthenticator {
  readonly #tokens: Map<string, UserInfo>;

  constructor(tokens: Map<string, UserInfo>) {
    this.#tokens = tokens;
  }

  /** kube's tokenfile.TokenAuthenticator: an unknown token is no opinion (another authenticator may know it) */
  async authenticateToken(token: string, audiences: string[]): Promise<TokenAuthentication | undefined> {
    const user = this.#tokens.get(token);
    // static tokens are valid for any audience (kube's audience-agnostic wrapper): the asked ones
    return user ? { user: structuredClone(user), audiences: [...audiences] } : undefined;
  }
}
