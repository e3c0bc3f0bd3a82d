/** A small HTTPS client for the reliability tools: keep-alive, CA pinned, latency measured. */
import http from 'node:http';
import https from 'node:https';

export interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** wall time from sending to the end of the body */
  ms: number;
}

export interface RequestOptions {
  body?: string | Buffer;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export class Client {
  readonly url: string;
  readonly ca: Buffer;
  readonly agent: https.Agent;

  constructor(o: { url: string; ca: Buffer; maxSockets?: number; keepAlive?: boolean }) {
    this.url = o.url;
    this.ca = o.ca;
    this.agent = new https.Agent({ keepAlive: o.keepAlive ?? true, maxSockets: o.maxSockets ?? 64, ca: o.ca });
  }

  request(method: string, path: string, o: RequestOptions = {}): Promise<Response> {
    const started = performance.now();
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
    // Node sends DELETE bodies without framing unless told the length
    if (o.body !== undefined && !Object.keys(headers).some((h) => ['content-length', 'transfer-encoding'].includes(h.toLowerCase()))) headers['Content-Length'] = String(Buffer.byteLength(o.body));
    return new Promise((resolve, reject) => {
      const req = https.request(`${this.url}${path}`, { method, agent: this.agent, headers, timeout: o.timeoutMs ?? 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.end(o.body);
    });
  }

  /** request and parse the JSON body (throws on a non-JSON body) */
  async json<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T; ms: number }> {
    const r = await this.request(method, path, { body: body === undefined ? undefined : JSON.stringify(body), headers });
    return { status: r.status, body: JSON.parse(r.body) as T, ms: r.ms };
  }

  close(): void {
    this.agent.destroy();
  }
}
