/**
 * What a proxied request looks like on its way to an extension server, as kube's proxy handler and
 * Go's reverse proxy rewrite it: the path as received, the query re-encoded (url.Values.Encode:
 * keys sorted), hop-by-hop headers dropped (kept for upgrades, which need Connection and Upgrade),
 * the caller's credentials replaced by the front-proxy headers, X-Forwarded-For appended and Host
 * set to the backend.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { FrontProxyHeaderNames, UserIdentity } from './front-proxy-headers';
import { withFrontProxyHeaders } from './front-proxy-headers';

/** RFC 7230 hop-by-hop headers, as Go's ReverseProxy removes them */
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Go's url.QueryEscape */
function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** kube's `req.URL.Query().Encode()`: the query parsed, keys sorted (values in their order), re-encoded */
export function reencodeQuery(raw: string): string {
  const params = new URLSearchParams(raw);
  const keys = [...new Set([...params.keys()])].sort();
  return keys.flatMap((k) => params.getAll(k).map((v) => `${queryEscape(k)}=${queryEscape(v)}`)).join('&');
}

/** the path and query to request from the backend */
export function backendPath(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : reencodeQuery(url.slice(q + 1));
  return query ? `${path}?${query}` : path;
}

/** the request's headers with their names as the client wrote them (rawHeaders), repeated ones gathered */
export function rawHeaderMap(req: IncomingMessage): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const nameOf = new Map<string, string>();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const [name, value] = [req.rawHeaders[i], req.rawHeaders[i + 1]];
    const lower = name.toLowerCase();
    const key = nameOf.get(lower) ?? name;
    nameOf.set(lower, key);
    const prev = out[key];
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [String(prev), value];
  }
  return out;
}

export interface OutgoingOptions {
  user: UserIdentity;
  names: FrontProxyHeaderNames;
  /** the backend's host:port, for the Host header */
  host: string;
  /** keep Connection and Upgrade (a protocol upgrade) */
  upgrade: boolean;
}

/** the headers sent to the backend */
export function outgoingHeaders(req: IncomingMessage, o: OutgoingOptions): OutgoingHttpHeaders {
  const given = rawHeaderMap(req);
  const connectionTokens = new Set(
    String(req.headers.connection ?? '')
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== ''),
  );
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(given)) {
    const lower = name.toLowerCase();
    // HTTP/2 pseudo-headers (:method, :path, :authority, :scheme) are not HTTP/1.1 headers
    if (lower === 'host' || lower.startsWith(':')) continue;
    const hop = HOP_BY_HOP.has(lower) || connectionTokens.has(lower);
    if (hop && !(o.upgrade && (lower === 'connection' || lower === 'upgrade'))) continue;
    kept[name] = value;
  }
  const headers = withFrontProxyHeaders(kept, o.user, o.names);
  const client = req.socket.remoteAddress;
  if (client) {
    const prior = req.headers['x-forwarded-for'];
    const forwardedKey = Object.keys(headers).find((k) => k.toLowerCase() === 'x-forwarded-for') ?? 'X-Forwarded-For';
    headers[forwardedKey] = prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${client}` : client;
  }
  return { Host: o.host, ...headers };
}

/** the backend response's headers without hop-by-hop ones (Node frames the body itself) */
export function responseHeaders(headers: IncomingHttpHeaders, rawHeaders: string[]): OutgoingHttpHeaders {
  const connectionTokens = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((t) => t.trim().toLowerCase()),
  );
  const out: OutgoingHttpHeaders = {};
  const nameOf = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const [name, value] = [rawHeaders[i], rawHeaders[i + 1]];
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || connectionTokens.has(lower)) continue;
    const key = nameOf.get(lower) ?? name;
    nameOf.set(lower, key);
    const prev = out[key];
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [String(prev), value];
  }
  return out;
}
