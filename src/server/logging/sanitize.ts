/**
 * --experimental-logging-sanitization: fields whose names say they hold a secret are replaced by
 * `[redacted]` (pino's redact option), at the top level of an entry and two levels down
 * (`{ headers: { authorization } }`, `{ req: { headers: { authorization } } }`).
 */
export const SENSITIVE_FIELDS: readonly string[] = Object.freeze([
  'password', 'passwd', 'token', 'bearer', 'bearerToken', 'accessToken', 'refreshToken', 'idToken', 'secret',
  'clientSecret', 'key', 'privateKey', 'apiKey', 'clientKey', 'authorization', 'Authorization', 'cookie', 'Cookie',
]);

export const REDACTED = '[redacted]';

/** the redact paths for pino */
export function sensitivePaths(): string[] {
  const paths: string[] = [];
  for (const name of SENSITIVE_FIELDS) paths.push(name, `*.${name}`, `*.*.${name}`);
  return paths;
}
