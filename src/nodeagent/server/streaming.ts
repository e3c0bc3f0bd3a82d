/**
 * /exec, /attach and /portForward (kubelet's getExec, getAttach, getPortForward with container
 * streaming proxied, not redirected): parse the request, find the container (or the sandbox), ask
 * the runtime for its streaming URL, then hand the client's upgrade request to that URL as it came
 * (request line and headers rewritten for the upstream) and relay bytes both ways, the upstream's
 * 101 answer included. SPDY/3.1 and WebSocket channel protocols both pass through untouched.
 */
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { RuntimeService, RunningPod } from '../types';

export type StreamKind = 'exec' | 'attach' | 'portForward';

export interface StreamRequest {
  kind: StreamKind;
  namespace: string;
  pod: string;
  uid?: string;
  container?: string;
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  ports: number[];
}

export class StreamError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** kubelet's flags: `1` (what the API server sends, as input/output/error) or `true` (stdin/stdout/stderr) */
function flag(q: URLSearchParams, ...names: string[]): boolean {
  return names.some((n) => {
    const v = q.get(n);
    return v === '1' || v === 'true';
  });
}

/** the route's parts and kubelet's remotecommand options, or undefined when the path is not a streaming one */
export function parseStreamRequest(pathname: string, query: URLSearchParams): StreamRequest | undefined {
  const parts = pathname.split('/').slice(1).map(decodeURIComponent);
  const kind = parts[0] as StreamKind;
  if (kind !== 'exec' && kind !== 'attach' && kind !== 'portForward') return undefined;
  const rest = parts.slice(1);
  const base = { kind, command: query.getAll('command'), stdin: flag(query, 'input', 'stdin'), stdout: flag(query, 'output', 'stdout'), stderr: flag(query, 'error', 'stderr'), tty: flag(query, 'tty') };
  if (kind === 'portForward') {
    if (rest.length !== 2 && rest.length !== 3) return undefined;
    const ports = query.getAll('port').flatMap((p) => p.split(',')).filter((p) => p !== '').map(Number);
    return { ...base, namespace: rest[0], pod: rest[1], uid: rest[2], ports };
  }
  if (rest.length === 3) return { ...base, namespace: rest[0], pod: rest[1], container: rest[2], ports: [] };
  if (rest.length === 4) return { ...base, namespace: rest[0], pod: rest[1], uid: rest[2], container: rest[3], ports: [] };
  return undefined;
}

/** what kubelet checks of the options (remotecommand NewOptions, portforward's port list) */
function validate(r: StreamRequest): void {
  if (r.kind === 'portForward') {
    for (const p of r.ports) {
      if (!Number.isInteger(p) || p < 1 || p > 65535) throw new StreamError(400, `port "${p}" must be 1-65535`);
    }
    return;
  }
  if (!r.stdin && !r.stdout && !r.stderr) throw new StreamError(400, 'you must specify at least 1 of stdin, stdout, stderr');
}

/** the runtime's streaming URL for the request (kubelet's GetExec / GetAttach / GetPortForward) */
export async function streamingUrl(r: StreamRequest, pods: RunningPod[], runtime: Pick<RuntimeService, 'exec' | 'attach' | 'portForward'>): Promise<string> {
  validate(r);
  const pod = pods.find((p) => p.namespace === r.namespace && p.name === r.pod && (r.uid === undefined || p.uid === r.uid));
  if (!pod) throw new StreamError(404, 'pod does not exist');
  if (r.kind === 'portForward') {
    const sandbox = pod.sandboxIds[0];
    if (!sandbox) throw new StreamError(404, `pod ${r.pod} not found`);
    return runtime.portForward(sandbox, r.ports);
  }
  const container = pod.containers.find((c) => c.name === r.container && c.state === 'running') ?? pod.containers.find((c) => c.name === r.container);
  if (!container) throw new StreamError(404, `container not found ("${r.container}")`);
  const containerId = container.id.replace(/^[a-z0-9-]+:\/\//, '');
  // a TTY merges stderr into stdout: the runtime refuses both
  const stderr = r.stderr && !r.tty;
  if (r.kind === 'exec') return runtime.exec({ containerId, cmd: r.command, tty: r.tty, stdin: r.stdin, stdout: r.stdout, stderr });
  return runtime.attach({ containerId, tty: r.tty, stdin: r.stdin, stdout: r.stdout, stderr });
}

/**
 * Relays an upgrade request to `target`: the request line and headers go to the upstream as they
 * came (Host and path rewritten), then whatever either side sends goes to the other.
 */
export function proxyUpgrade(req: IncomingMessage, client: Duplex, head: Buffer, target: string): Promise<void> {
  const url = new URL(target);
  if (url.protocol !== 'http:') throw new StreamError(500, `unsupported streaming URL scheme ${url.protocol}`);
  const upstream = net.connect({ host: url.hostname, port: Number(url.port || 80) });
  const lines = [`${req.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1`];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    // the upstream gets its own host; our credentials stay here
    if (name === 'host' || name === 'authorization') continue;
    lines.push(`${raw[i]}: ${raw[i + 1]}`);
  }
  lines.push(`Host: ${url.host}`);
  return new Promise((resolve) => {
    const done = () => {
      upstream.destroy();
      client.destroy();
      resolve();
    };
    upstream.once('connect', () => {
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', () => {
      if (!client.destroyed && client.writable && upstream.bytesRead === 0) {
        writeRawStatus(client, 500, 'error dialing backend: connection refused');
      }
      done();
    });
    upstream.once('close', done);
    client.once('close', done);
    client.once('error', done);
  });
}

/** kube's Status JSON of a failure */
export function statusBody(code: number, message: string): string {
  const reason = code === 400 ? 'BadRequest' : code === 401 ? 'Unauthorized' : code === 403 ? 'Forbidden' : code === 404 ? 'NotFound' : 'InternalError';
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

const REASON_PHRASES: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 500: 'Internal Server Error' };

/** a whole HTTP answer written to a socket that was never handed to an HTTP response */
export function writeRawResponse(socket: Duplex, code: number, contentType: string, body: string): void {
  const bytes = Buffer.from(body);
  socket.end(
    `HTTP/1.1 ${code} ${REASON_PHRASES[code] ?? 'Error'}\r\nContent-Type: ${contentType}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function writeRawStatus(socket: Duplex, code: number, message: string): void {
  writeRawResponse(socket, code, 'application/json', statusBody(code, message));
}
