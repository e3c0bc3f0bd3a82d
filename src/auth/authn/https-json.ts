/**
 * Small HTTPS JSON calls for the authenticators that ask remote services (OIDC discovery and keys,
 * the token webhook): a bounded time, a bounded body, and one worded error for every failure.
 */
import http from 'node:http';
import https from 'node:https';

export interface HttpsCallOptions {
  /** PEM bundle trusted for the server (else the system roots) */
  ca?: string | Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  insecureSkipTLSVerify?: boolean;
  timeoutMs?: number;
}

type Obj = Record<string, unknown>;

const MAX_BODY = 4 * 1024 * 1024;

export function getJson(url: string, opts: HttpsCallOptions = {}): Promise<Obj> {
  return call('GET', url, undefined, opts);
}

export function postJson(url: string, body: unknown, opts: HttpsCallOptions = {}): Promise<Obj> {
  return call('POST', url, JSON.stringify(body), opts);
}

function call(method: string, url: string, body: string | undefined, opts: HttpsCallOptions): Promise<Obj> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const options: https.RequestOptions = { method, headers, timeout: opts.timeoutMs ?? 10_000 };
    const onResponse = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) req.destroy(new Error('response body too large'));
        else chunks.push(c);
      });
      res.on('error', (err) => reject(new Error(`${method} ${url}: ${err.message}`)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) > 299) {
          reject(new Error(`${method} ${url}: ${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
          return;
        }
        try {
          const v: unknown = JSON.parse(text);
          if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
          resolve(v as Obj);
        } catch (err) {
          reject(new Error(`${method} ${url}: decoding the response: ${(err as Error).message}`));
        }
      });
    };
    let req: http.ClientRequest;
    try {
      req = url.startsWith('http:')
        ? http.request(url, options, onResponse)
        : https.request(url, { ...options, ca: opts.ca, cert: opts.cert, key: opts.key, rejectUnauthorized: !opts.insecureSkipTLSVerify }, onResponse);
    } catch (err) {
      reject(new Error(`${method} ${url}: ${(err as Error).message}`));
      return;
    }
    req.on('timeout', () => req.destroy(new Error('timeout awaiting response headers')));
    req.on('error', (err) => reject(new Error(`${method} ${url}: ${err.message}`)));
    req.end(body);
  });
}
