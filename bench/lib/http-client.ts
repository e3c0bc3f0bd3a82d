/**
 * The benchmark's HTTP client: Node's https/http with keep-alive agents (one connection per
 * concurrent client, reused), measuring each request from send to the last byte of the response.
 */
import http from 'node:http';
import https from 'node:https';

export interface Response {
  status: number;
  body: Buffer;
}

export interface ClientOptions {
  /** https://127.0.0.1:port or http://127.0.0.1:port */
  baseUrl: string;
  /** PEM CA to trust (https) */
  ca?: Buffer | string;
  /** sockets kept open (>= the concurrency used) */
  maxSockets: number;
  /** sent as `Authorization: Bearer <token>` on every request */
  token?: string;
  /** PEM client certificate and key (TLS client authentication) */
  cert?: Buffer | string;
  key?: Buffer | string;
}

export class HttpClient {
  readonly #base: URL;
  readonly #agent: http.Agent;
  readonly #mod: typeof http | typeof https;
  readonly #tls: { ca?: Buffer | string; cert?: Buffer | string; key?: Buffer | string };
  readonly #auth: Record<string, string>;

  constructor(o: ClientOptions) {
    this.#base = new URL(o.baseUrl);
    this.#mod = this.#base.protocol === 'https:' ? https : http;
    this.#tls = { ca: o.ca, cert: o.cert, key: o.key };
    this.#auth = o.token ? { Authorization: `Bearer ${o.token}` } : {};
    this.#agent =
      this.#base.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, maxSockets: o.maxSockets, maxFreeSockets: o.maxSockets, ...this.#tls })
        : new http.Agent({ keepAlive: true, maxSockets: o.maxSockets, maxFreeSockets: o.maxSockets });
  }

  request(method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<Response> {
    return new Promise((resolve, reject) => {
      const h: Record<string, string | number> = { Accept: 'application/json', ...this.#auth, ...headers };
      if (body !== undefined) {
        h['Content-Type'] ??= 'application/json';
        h['Content-Length'] = Buffer.byteLength(body);
      }
      const req = this.#mod.request(
        { host: this.#base.hostname, port: this.#base.port, path, method, headers: h, agent: this.#agent, ...this.#tls },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** JSON request that must answer one of `ok` statuses */
  async json<T = unknown>(method: string, path: string, body?: unknown, ok: number[] = [200, 201]): Promise<T> {
    const res = await this.request(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (!ok.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${res.body.toString().slice(0, 300)}`);
    return JSON.parse(res.body.toString()) as T;
  }

  /**
   * a long-lived streaming request (watch): calls onLine for each newline-delimited chunk of the body;
   * returns a function that ends it
   */
  stream(method: string, path: string, body: string | undefined, onLine: (line: string, at: number) => void, onOpen?: () => void): { close(): void; done: Promise<void> } {
    let req: http.ClientRequest;
    const done = new Promise<void>((resolve) => {
      const h: Record<string, string | number> = { Accept: 'application/json', ...this.#auth };
      if (body !== undefined) {
        h['Content-Type'] = 'application/json';
        h['Content-Length'] = Buffer.byteLength(body);
      }
      // a dedicated socket per stream (an agent would park them in its pool)
      req = this.#mod.request({ host: this.#base.hostname, port: this.#base.port, path, method, headers: h, agent: false, ...this.#tls }, (res) => {
        onOpen?.();
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          const at = Number(process.hrtime.bigint()) / 1e6;
          buf += c;
          let i: number;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim()) onLine(line, at);
          }
        });
        res.on('end', resolve);
        res.on('error', () => resolve());
        res.on('close', resolve);
      });
      req.on('error', () => resolve());
      req.end(body);
    });
    return { close: () => req.destroy(), done };
  }

  close(): void {
    this.#agent.destroy();
  }
}
