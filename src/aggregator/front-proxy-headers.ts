/**
 * The caller's identity as an extension server receives it: kube's authenticating front-proxy
 * headers (client-go's SetAuthProxyHeaders). The caller's own credentials never go further: kube's
 * authentication filter drops Authorization once it has authenticated a request and the
 * impersonation filter drops the Impersonate-* headers it has acted on; any front-proxy header the
 * caller sent is replaced. Extra keys are escaped as client-go escapes them (percent-encoding every
 * byte that is not an HTTP token character, and '%' itself).
 */
import type { OutgoingHttpHeaders } from 'node:http';

/** who made a request (kube's user.Info) */
export interface UserIdentity {
  name: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** kube's identity of an unauthenticated request */
export const ANONYMOUS: UserIdentity = Object.freeze({ name: 'system:anonymous', groups: ['system:unauthenticated'] });

/** the header names (--requestheader-username-headers and friends; kube's X-Remote-* by default) */
export interface FrontProxyHeaderNames {
  user: string;
  group: string;
  extraPrefix: string;
}

export const DEFAULT_FRONT_PROXY_HEADERS: FrontProxyHeaderNames = Object.freeze({
  user: 'X-Remote-User',
  group: 'X-Remote-Group',
  extraPrefix: 'X-Remote-Extra-',
});

const TOKEN_BYTES = new Set("!#$&'*+-.^_`|~".split('').map((c) => c.charCodeAt(0)));

function isTokenByte(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || TOKEN_BYTES.has(b);
}

/** client-go's headerKeyEscape */
export function escapeExtraKey(key: string): string {
  let out = '';
  for (const b of Buffer.from(key, 'utf8')) {
    out += isTokenByte(b) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** true for the headers that carry the caller's own credentials or a claimed identity */
function isCallerCredential(lower: string, names: FrontProxyHeaderNames): boolean {
  return (
    lower === 'authorization' ||
    lower.startsWith('impersonate-') ||
    lower === names.user.toLowerCase() ||
    lower === names.group.toLowerCase() ||
    lower.startsWith(names.extraPrefix.toLowerCase()) ||
    lower === 'x-remote-uid'
  );
}

/**
 * `headers` without the caller's credentials and with `user` in the front-proxy headers; header
 * names keep the case they are given in (Node sends them as written)
 */
export function withFrontProxyHeaders(headers: OutgoingHttpHeaders, user: UserIdentity, names: FrontProxyHeaderNames = DEFAULT_FRONT_PROXY_HEADERS): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || isCallerCredential(name.toLowerCase(), names)) continue;
    out[name] = value;
  }
  out[names.user] = user.name;
  if (user.groups.length > 0) out[names.group] = [...user.groups];
  for (const key of Object.keys(user.extra ?? {}).sort()) {
    const values = user.extra?.[key] ?? [];
    if (values.length > 0) out[names.extraPrefix + escapeExtraKey(key)] = [...values];
  }
  return out;
}
