/**
 * A runtime's streaming server (kubelet's pkg/kubelet/cri/streaming Server, as containerd runs
 * one): GetExec, GetAttach and GetPortForward check a request, keep it under a one-time token and
 * answer `http://<host>:<port>/{exec,attach,portforward}/<token>`; the node agent relays the
 * client's upgrade there. exec and attach speak SPDY/3.1 (remotecommand v2-v4) and WebSocket
 * (channel.k8s.io, base64, v4, v5); port-forward speaks SPDY (portforward.k8s.io). What runs is the
 * backend's: the server only speaks the protocols.
 */
import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { writeRawStatus } from './http-answers';
import type { CommandResult, CommandStreams } from './remotecommand';
import { RequestCache } from './request-cache';
import { serveSpdyPortForward, type PortForwarder } from './spdy-portforward';
import { serveSpdyRemoteCommand, type RemoteCommandOptions } from './spdy-remotecommand';
import { serveWebSocketRemoteCommand } from './websocket-remotecommand';

export interface ExecStreamRequest {
  containerId: string;
  cmd: string[];
  tty: boolean;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
}

export type AttachStreamRequest = Omit<ExecStreamRequest, 'cmd'>;

export interface PortForwardStreamRequest {
  podSandboxId: string;
  ports: number[];
}

/** what runs behind the protocols (kubelet's streaming Runtime) */
export interface StreamingBackend {
  exec(request: ExecStreamRequest, streams: CommandStreams): Promise<CommandResult>;
  attach(request: AttachStreamRequest, streams: CommandStreams): Promise<CommandResult>;
  /** connects the data stream to the sandbox's port; rejects when it cannot */
  portForward(podSandboxId: string, port: number, data: Duplex): Promise<void>;
  /** names for port-forward's error messages */
  describeSandbox?(podSandboxId: string): { name: string; uid: string };
}

export interface StreamingServerOptions {
  backend: StreamingBackend;
  /** the address to listen on; 127.0.0.1 by default (only the node agent connects) */
  host?: string;
  /** 0 (any free port) by default */
  port?: number;
  /** how long a client may take to open its streams (kubelet: 30 s) */
  streamCreationTimeoutMs?: number;
  /** how long a token stays valid (kubelet: 1 minute) */
  tokenTtlMs?: number;
}

/** an invalid request (kubelet answers gRPC InvalidArgument) */
export class StreamingRequestError extends Error {
  override readonly name = 'StreamingRequestError';
}

type Cached =
  | { kind: 'exec'; request: ExecStreamRequest }
  | { kind: 'attach'; request: AttachStreamRequest }
  | { kind: 'portforward'; request: PortForwardStreamRequest };

export class StreamingServer {
  readonly #options: StreamingServerOptions;
  readonly #cache: RequestCache<Cached>;
  readonly #server: http.Server;
  readonly #sockets = new Set<Duplex>();
  #baseUrl = '';

  constructor(options: StreamingServerOptions) {
    this.#options = options;
    this.#cache = new RequestCache({ ttlMs: options.tokenTtlMs });
    this.#server = http.createServer((req, res) => {
      // streaming needs an upgrade (kube: "unable to upgrade: missing upgrade headers in request")
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`unable to upgrade: missing upgrade headers in request: ${req.url ?? ''}\n`);
    });
    this.#server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      void this.#serve(req, socket, head).catch(() => socket.destroy());
    });
  }

  async start(): Promise<void> {
    if (this.#baseUrl !== '') return;
    const host = this.#options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#options.port ?? 0, host, () => resolve());
    });
    // the agent's exit is not held up by a server nobody uses
    this.#server.unref();
    const { port } = this.#server.address() as AddressInfo;
    this.#baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  /** http://host:port, once started */
  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** kubelet's validateExecRequest, then the URL to upgrade at */
  getExec(request: ExecStreamRequest): string {
    if (request.containerId === '') throw new StreamingRequestError('missing required container_id');
    checkStreams(request);
    return this.#url('exec', { kind: 'exec', request });
  }

  getAttach(request: AttachStreamRequest): string {
    if (request.containerId === '') throw new StreamingRequestError('missing required container_id');
    checkStreams(request);
    return this.#url('attach', { kind: 'attach', request });
  }

  getPortForward(request: PortForwardStreamRequest): string {
    if (request.podSandboxId === '') throw new StreamingRequestError('missing required pod_sandbox_id');
    return this.#url('portforward', { kind: 'portforward', request });
  }

  /** stops listening and cuts every open streaming connection */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    if (!this.#server.listening) return;
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #url(kind: string, cached: Cached): string {
    if (this.#baseUrl === '') throw new Error('the streaming server is not started');
    return `${this.#baseUrl}/${kind}/${this.#cache.insert(cached)}`;
  }

  async #serve(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const [, kind, token] = new URL(req.url ?? '/', 'http://streaming').pathname.split('/');
    const cached = token === undefined ? undefined : this.#cache.consume(token);
    if (cached === undefined || cached.kind !== kind) {
      writeRawStatus(socket, 404, `invalid or expired streaming token for ${kind ?? ''}`);
      return;
    }
    const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
    const streamCreationTimeoutMs = this.#options.streamCreationTimeoutMs ?? 30_000;
    const backend = this.#options.backend;
    if (cached.kind === 'portforward') {
      if (!upgrade.startsWith('spdy/')) {
        writeRawStatus(socket, 400, 'port-forward is served over SPDY/3.1 only');
        return;
      }
      const sandbox = cached.request.podSandboxId;
      const names = backend.describeSandbox?.(sandbox) ?? { name: sandbox, uid: '' };
      const forward: PortForwarder = (port, data) => backend.portForward(sandbox, port, data);
      await serveSpdyPortForward({ req, socket, head, podName: names.name, podUid: names.uid, streamCreationTimeoutMs, forward });
      return;
    }
    const r = cached.request;
    const command: RemoteCommandOptions = { stdin: r.stdin, stdout: r.stdout, stderr: r.stderr, tty: r.tty, command: cached.kind === 'exec' ? cached.request.cmd : [] };
    const run = (streams: CommandStreams) => (cached.kind === 'exec' ? backend.exec(cached.request, streams) : backend.attach(cached.request, streams));
    if (upgrade === 'websocket') await serveWebSocketRemoteCommand({ req, socket, head, command, run });
    else if (upgrade.startsWith('spdy/')) await serveSpdyRemoteCommand({ req, socket, head, command, streamCreationTimeoutMs, run });
    else writeRawStatus(socket, 400, `unsupported upgrade "${upgrade}": SPDY/3.1 or websocket`);
  }
}

function checkStreams(r: { tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean }): void {
  if (r.tty && r.stderr) throw new StreamingRequestError('tty and stderr cannot both be true');
  if (!r.stdin && !r.stdout && !r.stderr) throw new StreamingRequestError('one of stdin, stdout, or stderr must be set');
}
