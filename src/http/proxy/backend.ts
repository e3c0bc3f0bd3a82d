/**
 * The upgrade-aware proxy of connect subresources (kube's UpgradeAwareHandler): one request to a
 * backend (a node agent, a pod, a service endpoint) whose answer is either a plain response,
 * streamed back as it arrives, or a protocol switch (101), after which the client's and the
 * backend's sockets are joined byte for byte (SPDY, WebSocket).
 */
import http from 'node:http';
import https from 'node:https';
import type { Duplex, Readable } from 'node:stream';
import type tls from 'node:tls';

const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

export type BackendAnswer =
  | { kind: 'response'; res: http.IncomingMessage }
  | { kind: 'upgrade'; res: http.IncomingMessage; socket: Duplex; head: Buffer };

export interface BackendRequest {
  target: URL;
  method: string;
  /** the client's headers; hop-by-hop ones and Authorization are dropped (kept: Upgrade/Connection on upgrades) */
  headers: http.IncomingHttpHeaders;
  upgrade: boolean;
  tls?: tls.ConnectionOptions;
  /** time limit until the backend answers (not of the stream after) */
  timeoutMs?: number;
  body?: Readable;
}

/** the client's headers as a backend gets them */
export function backendHeaders(h: http.IncomingHttpHeaders, upgrade: boolean, host: string): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  const named = new Set(String(h.connection ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
  for (const [name, value] of Object.entries(h)) {
    if (value === undefined || name === 'authorization' || name === 'host' || name.startsWith(':')) continue;
    const keep = upgrade && (name === 'connection' || name === 'upgrade');
    if (!keep && (HOP_BY_HOP.has(name) || named.has(name))) continue;
    out[name] = value;
  }
  out.host = host;
  return out;
}

/** sends the request and resolves with the backend's answer; rejects when it cannot be reached */
export function openBackend(r: BackendRequest): Promise<BackendAnswer> {
  return new Promise((resolve, reject) => {
    const secure = r.target.protocol === 'https:';
    const options: https.RequestOptions = {
      method: r.method,
      hostname: r.target.hostname.replace(/^\[|\]$/g, ''),
      port: r.target.port || (secure ? 443 : 80),
      path: r.target.pathname + r.target.search,
      headers: backendHeaders(r.headers, r.upgrade, r.target.host),
      agent: false,
      ...(secure ? r.tls : {}),
    };
    if (secure && options.servername === undefined && !/^[\d.:[\]]+$/.test(r.target.hostname)) options.servername = r.target.hostname;
    const req = (secure ? https : http).request(options);
    let timer: NodeJS.Timeout | undefined;
    const done = () => timer && clearTimeout(timer);
    if (r.timeoutMs) {
      timer = setTimeout(() => req.destroy(new Error(`timeout awaiting response headers after ${r.timeoutMs}ms`)), r.timeoutMs);
    }
    req.once('error', (err) => {
      done();
      reject(err);
    });
    req.once('response', (res) => {
      done();
      resolve({ kind: 'response', res });
    });
    req.once('upgrade', (res, socket, head) => {
      done();
      resolve({ kind: 'upgrade', res, socket, head });
    });
    if (r.body && !r.upgrade) r.body.pipe(req);
    else req.end();
  });
}

/** writes the backend's 101 to the client's socket and joins the two sockets */
export function joinUpgrade(client: Duplex, answer: Extract<BackendAnswer, { kind: 'upgrade' }>): void {
  const { res, socket, head } = answer;
  let text = `HTTP/1.1 ${res.statusCode ?? 101} ${res.statusMessage || 'Switching Protocols'}\r\n`;
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) text += `${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`;
  client.write(`${text}\r\n`);
  if (head.length > 0) client.write(head);
  const close = () => {
    client.destroy();
    socket.destroy();
  };
  client.once('error', close);
  socket.once('error', close);
  client.once('close', close);
  socket.once('close', close);
  socket.pipe(client);
  client.pipe(socket);
}

/** the backend's response headers a client gets (hop-by-hop ones dropped) */
export function responseHeaders(res: http.IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'content-length') continue;
    out[name] = value;
  }
  return out;
}

/** the backend's body as text, at most `limit` bytes (kube reads error bodies up to 50000) */
export async function readText(res: Readable, limit = 50_000): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    const b = chunk as Buffer;
    if (size + b.length > limit) {
      chunks.push(b.subarray(0, limit - size));
      break;
    }
    chunks.push(b);
    size += b.length;
  }
  res.destroy();
  return Buffer.concat(chunks).toString('utf8');
}
