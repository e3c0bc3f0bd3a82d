/**
 * The REST client every component uses: HTTPS with keep-alive, the credentials of a ClientConfig,
 * a token bucket in front of every request (watches included, as client-go counts them), kube's
 * protobuf for built-in kinds when asked (`--kube-api-content-type`) and JSON for everything else
 * (custom resources, patches), and errors as ApiError carrying the server's Status.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import nodeTls from 'node:tls';
import { ProtobufCodec, splitFrames } from '../codec/protobuf';
import { loadProtoSchema } from '../codec/protobuf/schema';
import { protoPackageOf } from '../codec/protobuf/codec';
import type { ClientConfig } from './kubeconfig';
import { TokenBucket } from './rate-limiter';
import { ApiError, type StatusObject } from './errors';
import type { KubeObject, ObjectList, ResourceRef, WatchEvent } from './types';

export const JSON_TYPE = 'application/json';
export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';
const PATCH_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface RestClientOptions {
  /** requests per second; negative: no limit */
  qps?: number;
  burst?: number;
  /** preferred encoding of built-in kinds (kube's --kube-api-content-type); JSON is always understood */
  contentType?: typeof JSON_TYPE | typeof PROTOBUF_TYPE;
  /** time limit of an ordinary request, in ms (watches excepted) */
  timeoutMs?: number;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  /** an object (encoded as JSON or protobuf) or raw bytes/text with `contentType` */
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  /** ask for protobuf (only when the client prefers it and the resource is a built-in one) */
  protobuf?: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  signal?: AbortSignal;
}

export interface WatchOptions {
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

export interface DeleteOptions {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

/** the path of a collection or of one object (and its subresource) */
export function resourcePath(ref: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
  let p = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  if (ref.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${ref.resource}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

function queryString(q: Query | undefined): string {
  if (!q) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === '') continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

let sharedProtobuf: ProtobufCodec | undefined;
/** the protobuf schema is loaded once per process, on first use */
function protobufCodec(): ProtobufCodec {
  sharedProtobuf ??= new ProtobufCodec({ schema: loadProtoSchema() });
  return sharedProtobuf;
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export class RestClient {
  #config: ClientConfig;
  readonly #limiter: TokenBucket;
  #agent: ConnectionPools;
  readonly #preferProtobuf: boolean;
  readonly #timeoutMs: number;
  #token: { value?: string; readAt: number } = { readAt: 0 };

  constructor(config: ClientConfig, opts: RestClientOptions = {}) {
    this.#config = config;
    this.#limiter = new TokenBucket(opts.qps ?? 20, opts.burst ?? 30);
    this.#preferProtobuf = (opts.contentType ?? JSON_TYPE) === PROTOBUF_TYPE;
    this.#timeoutMs = opts.timeoutMs ?? 60_000;
    this.#agent = connectionPool(config);
  }

  get config(): ClientConfig {
    return this.#config;
  }

  /**
   * Present another client certificate from now on (a rotated one). As client-go's transport does
   * on rotation, every open connection is closed: requests under way fail and watches end, and
   * their callers retry over new connections with the new certificate.
   */
  setClientCertificate(cert: string, key: string): void {
    const old = this.#agent;
    this.#config = { ...this.#config, cert, key };
    this.#agent = connectionPool(this.#config);
    old.requests.destroy();
    old.streams.destroy();
  }

  /** stop keeping connections open */
  close(): void {
    this.#agent.requests.destroy();
    this.#agent.streams.destroy();
  }

  /** whether this resource travels as protobuf */
  usesProtobuf(ref: ResourceRef): boolean {
    return this.#preferProtobuf && protoPackageOf(ref.group, ref.version) !== undefined;
  }

  // ---- typed verbs ---------------------------------------------------------------------------

  async get<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace: string | undefined, name: string, subresource?: string): Promise<T> {
    return (await this.request('GET', resourcePath(ref, namespace, name, subresource), { protobuf: this.usesProtobuf(ref) })) as T;
  }

  async list<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace: string | undefined, opts: ListOptions = {}): Promise<ObjectList<T>> {
    const { signal, ...query } = opts;
    const list = (await this.request('GET', resourcePath(ref, namespace), { query: query as Query, signal, protobuf: this.usesProtobuf(ref) })) as ObjectList<T>;
    list.items ??= [];
    // protobuf lists carry no TypeMeta on their items; JSON lists of built-in kinds do not either
    for (const item of list.items) {
      item.apiVersion ??= ref.group ? `${ref.group}/${ref.version}` : ref.version;
      item.kind ??= ref.kind;
    }
    return list;
  }

  async create<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace: string | undefined, obj: KubeObject, subresource?: string, name?: string): Promise<T> {
    return (await this.request('POST', resourcePath(ref, namespace, name, subresource), { body: obj, protobuf: this.usesProtobuf(ref) })) as T;
  }

  async update<T extends KubeObject = KubeObject>(ref: ResourceRef, obj: KubeObject, subresource?: string): Promise<T> {
    const meta = obj.metadata ?? {};
    return (await this.request('PUT', resourcePath(ref, meta.namespace, meta.name ?? '', subresource), { body: obj, protobuf: this.usesProtobuf(ref) })) as T;
  }

  async patch<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    opts: { subresource?: string; fieldManager?: string; force?: boolean } = {},
  ): Promise<T> {
    const body = typeof patch === 'string' ? patch : JSON.stringify(patch);
    return (await this.request('PATCH', resourcePath(ref, namespace, name, opts.subresource), {
      body,
      contentType: PATCH_TYPES[type],
      query: { fieldManager: opts.fieldManager, force: opts.force },
      protobuf: this.usesProtobuf(ref),
    })) as T;
  }

  async delete(ref: ResourceRef, namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    return (await this.request('DELETE', resourcePath(ref, namespace, name), {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', ...opts, dryRun: opts.dryRun ? ['All'] : undefined },
    })) as KubeObject;
  }

  /** a watch stream: events until the server ends it, the signal aborts it, or it fails */
  async *watch<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace: string | undefined, opts: WatchOptions = {}): AsyncGenerator<WatchEvent<T>> {
    const { signal, ...rest } = opts;
    const protobuf = this.usesProtobuf(ref);
    const res = await this.#send('GET', resourcePath(ref, namespace), {
      query: { ...rest, watch: true } as Query,
      signal,
      accept: protobuf ? `${PROTOBUF_TYPE};stream=watch, ${JSON_TYPE}` : JSON_TYPE,
      stream: true,
    });
    const stream = res.stream!;
    if (res.status >= 300) {
      throw errorOf(res.status, await readAll(stream), String(res.headers['content-type'] ?? ''));
    }
    const isProtobuf = String(res.headers['content-type'] ?? '').startsWith(PROTOBUF_TYPE);
    const apiVersion = ref.group ? `${ref.group}/${ref.version}` : ref.version;
    const fill = (e: WatchEvent<T>): WatchEvent<T> => {
      if (e.type !== 'ERROR' && e.object && typeof e.object === 'object') {
        e.object.apiVersion ??= apiVersion;
        e.object.kind ??= ref.kind;
      }
      return e;
    };
    let pending: Buffer = Buffer.alloc(0);
    try {
      for await (const chunk of stream) {
        pending = pending.length ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
        if (isProtobuf) {
          const { frames, rest: left } = splitFrames(pending);
          pending = left;
          for (const f of frames) yield fill(protobufCodec().decodeWatchEvent(f) as WatchEvent<T>);
        } else {
          let nl: number;
          while ((nl = pending.indexOf(0x0a)) >= 0) {
            const line = pending.subarray(0, nl).toString('utf8').trim();
            pending = pending.subarray(nl + 1);
            if (line) yield fill(JSON.parse(line) as WatchEvent<T>);
          }
        }
      }
      // a JSON stream may end without a final newline
      const last = isProtobuf ? '' : pending.toString('utf8').trim();
      if (last) yield fill(JSON.parse(last) as WatchEvent<T>);
    } finally {
      stream.destroy();
    }
  }

  // ---- raw requests --------------------------------------------------------------------------

  /** one request; the decoded body (JSON or protobuf) of a 2xx answer, ApiError otherwise */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<unknown> {
    const protobuf = !!opts.protobuf;
    let body: Buffer | string | undefined;
    let contentType = opts.contentType;
    if (opts.body !== undefined) {
      if (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) {
        body = opts.body;
        contentType ??= JSON_TYPE;
      } else if (protobuf && protobufCodec().canEncode(opts.body)) {
        body = protobufCodec().encodeObject(opts.body);
        contentType = PROTOBUF_TYPE;
      } else {
        body = JSON.stringify(opts.body);
        contentType ??= JSON_TYPE;
      }
    }
    const res = await this.#send(method, path, {
      query: opts.query,
      body,
      contentType,
      signal: opts.signal,
      accept: protobuf ? `${PROTOBUF_TYPE}, ${JSON_TYPE}` : JSON_TYPE,
    });
    const type = String(res.headers['content-type'] ?? '');
    if (res.status >= 300) throw errorOf(res.status, res.body, type);
    return decodeBody(res.body, type);
  }

  #bearer(): string | undefined {
    if (this.config.token) return this.config.token;
    const file = this.config.tokenFile;
    if (!file) return undefined;
    // client-go re-reads a token file at most once a minute (projected tokens rotate)
    if (Date.now() - this.#token.readAt > 60_000) {
      try {
        this.#token = { value: fs.readFileSync(file, 'utf8').trim(), readAt: Date.now() };
      } catch {
        this.#token = { value: this.#token.value, readAt: Date.now() };
      }
    }
    return this.#token.value;
  }

  async #send(
    method: string,
    path: string,
    o: { query?: Query; body?: Buffer | string; contentType?: string; accept: string; signal?: AbortSignal; stream?: boolean },
  ): Promise<RawResponse & { stream?: http.IncomingMessage }> {
    await this.#limiter.wait(o.signal);
    const url = new URL(this.config.server + path + queryString(o.query));
    const headers: http.OutgoingHttpHeaders = { Accept: o.accept };
    if (this.config.userAgent) headers['User-Agent'] = this.config.userAgent;
    const token = this.#bearer();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (o.body !== undefined) {
      headers['Content-Type'] = o.contentType ?? JSON_TYPE;
      headers['Content-Length'] = Buffer.byteLength(o.body);
    }
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const agent = o.stream ? this.#agent.streams : this.#agent.requests;
      const req = mod.request(url, { method, headers, agent, signal: o.signal }, (res) => {
        if (o.stream) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0), stream: res });
          return;
        }
        readAll(res).then((body) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }), reject);
      });
      if (!o.stream) {
        req.setTimeout(this.#timeoutMs, () => req.destroy(new Error(`${method} ${url.pathname}: no answer within ${this.#timeoutMs} ms`)));
      }
      req.on('error', reject);
      req.end(o.body);
    });
  }
}

/** connections for requests, and apart from them for streams (watches) */
interface ConnectionPools {
  requests: http.Agent;
  streams: http.Agent;
}

/** most connections open at once for ordinary requests; more wait for one (client-go shares one HTTP/2 connection) */
const REQUEST_CONNECTIONS = 32;

/**
 * One TLS context for every connection (built per connection, parsing the key each time, it cost
 * more CPU than the requests). Streams have a pool without a cap: each watch holds a connection for
 * minutes, and a client may watch every resource (the garbage collector's), so a cap would leave
 * requests waiting behind watches. Requests have a pool of their own with a cap: a burst of
 * concurrent requests (a scheduler's bindings) otherwise opened a connection, with its TLS
 * handshake, for each, only for most to be closed idle moments later.
 */
function connectionPool(config: ClientConfig): ConnectionPools {
  const make = (maxSockets: number): http.Agent => {
    if (!config.server.startsWith('https:')) return new http.Agent({ keepAlive: true, maxSockets });
    return new https.Agent({
      keepAlive: true,
      maxSockets,
      secureContext: nodeTls.createSecureContext({ ca: config.ca, cert: config.cert, key: config.key }),
      rejectUnauthorized: !config.insecureSkipTlsVerify,
      servername: config.tlsServerName,
    });
  };
  return { requests: make(REQUEST_CONNECTIONS), streams: make(Infinity) };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function decodeBody(body: Buffer, contentType: string): unknown {
  if (body.length === 0) return undefined;
  if (contentType.startsWith(PROTOBUF_TYPE)) return protobufCodec().decodeObject(body);
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorOf(status: number, body: Buffer, contentType: string): ApiError {
  let decoded: unknown;
  try {
    decoded = decodeBody(body, contentType);
  } catch {
    decoded = body.toString('utf8');
  }
  if (decoded && typeof decoded === 'object' && (decoded as StatusObject).kind === 'Status') return new ApiError(status, decoded as StatusObject);
  const text = typeof decoded === 'string' ? decoded.trim() : '';
  return new ApiError(status, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: status, message: text || `the server answered ${status}`, reason: reasonOfCode(status) });
}

/** kube's reason for a bare HTTP code (client-go's newUnstructuredResponseError) */
function reasonOfCode(code: number): string {
  switch (code) {
    case 400: return 'BadRequest';
    case 401: return 'Unauthorized';
    case 403: return 'Forbidden';
    case 404: return 'NotFound';
    case 405: return 'MethodNotAllowed';
    case 409: return 'Conflict';
    case 410: return 'Expired';
    case 415: return 'UnsupportedMediaType';
    case 422: return 'Invalid';
    case 429: return 'TooManyRequests';
    case 500: return 'InternalError';
    case 503: return 'ServiceUnavailable';
    case 504: return 'Timeout';
    default: return 'Unknown';
  }
}
