/**
 * Test clients of the streaming server, written as kubectl behaves: remotecommand over SPDY
 * (client-go's streamProtocolV2-V4: the error stream first, then stdin, stdout, stderr, resize),
 * remotecommand over WebSocket channels, and port-forward over SPDY (an error and a data stream
 * per connection, sharing a requestID).
 */
import http from 'node:http';
import crypto from 'node:crypto';
import type { Duplex } from 'node:stream';
import { SpdySession, type SpdyStream } from '../../src/nodeagent/streaming/spdy';
import { WebSocketConnection } from '../../src/nodeagent/streaming/websocket/websocket-connection';

export interface UpgradeResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket?: Duplex;
  head?: Buffer;
}

/** a GET with upgrade headers: the 101's socket, or the refusal's status and body */
export function upgradeRequest(url: string, headers: http.OutgoingHttpHeaders): Promise<UpgradeResult> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers: { Connection: 'Upgrade', ...headers } });
    req.on('upgrade', (res, socket, head) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '', socket, head }));
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function collect(stream: SpdyStream | undefined): Promise<string> {
  if (stream === undefined) return Promise.resolve('');
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (d: Buffer) => (text += d.toString('latin1')));
    stream.on('end', () => resolve(text));
    stream.on('close', () => resolve(text));
  });
}

export interface ExecOutcome {
  protocol: string;
  stdout: string;
  stderr: string;
  /** what came on the error stream */
  error: string;
}

/** remotecommand over SPDY, as kubectl 1.20 runs `kubectl exec` */
export async function spdyExec(
  url: string,
  options: {
    protocols?: string[];
    stdin?: string | ((stdin: SpdyStream) => void);
    stdout?: boolean;
    stderr?: boolean;
    tty?: boolean;
    size?: { width: number; height: number };
    /** closes the connection this long after the streams are open (attach without stdinOnce) */
    hangUpAfterMs?: number;
    /** sizes sent later, each `afterMs` after the streams are open */
    laterSizes?: { width: number; height: number; afterMs: number }[];
  } = {},
): Promise<ExecOutcome> {
  const up = await upgradeRequest(url, { Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': options.protocols ?? ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io'] });
  if (up.status !== 101 || !up.socket) throw new Error(`upgrade refused: ${up.status} ${up.body}`);
  const protocol = String(up.headers['x-stream-protocol-version'] ?? '');
  const session = new SpdySession({ socket: up.socket, role: 'client', head: up.head });
  const open = (type: string) => session.waitReply(session.openStream({ streamType: type }), 5000);
  const error = await open('error');
  error.end();
  const stdin = options.stdin !== undefined ? await open('stdin') : undefined;
  const stdout = options.stdout !== false ? await open('stdout') : undefined;
  const stderr = options.stderr !== false && !options.tty ? await open('stderr') : undefined;
  for (const s of [stdout, stderr]) s?.end();
  const outputs = Promise.all([collect(stdout), collect(stderr), collect(error)]);
  if (options.tty && protocol !== 'v2.channel.k8s.io') {
    const resize = await open('resize');
    const send = (size: { width: number; height: number }) => resize.write(`${JSON.stringify({ Width: size.width, Height: size.height })}\n`);
    if (options.size) send(options.size);
    for (const later of options.laterSizes ?? []) setTimeout(() => !resize.destroyed && send(later), later.afterMs);
  }
  if (stdin !== undefined) {
    if (typeof options.stdin === 'function') options.stdin(stdin);
    else stdin.end(options.stdin);
  }
  if (options.hangUpAfterMs !== undefined) setTimeout(() => session.destroy(), options.hangUpAfterMs);
  const [out, err, status] = await outputs;
  session.destroy();
  return { protocol, stdout: out, stderr: err, error: status };
}

/** remotecommand over WebSocket channels, as client-go's WebSocket executor */
export async function webSocketExec(url: string, options: { protocols: string[]; stdin?: string; stdout?: boolean; stderr?: boolean; base64?: boolean }): Promise<ExecOutcome & { channels: number[] }> {
  const up = await upgradeRequest(url, {
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': crypto.randomBytes(16).toString('base64'),
    'Sec-WebSocket-Protocol': options.protocols.join(', '),
  });
  if (up.status !== 101 || !up.socket) throw new Error(`upgrade refused: ${up.status} ${up.body}`);
  const protocol = String(up.headers['sec-websocket-protocol'] ?? '');
  const ws = new WebSocketConnection({ socket: up.socket, role: 'client', head: up.head });
  const out: Record<number, string> = { 1: '', 2: '', 3: '' };
  const channels: number[] = [];
  const send = (channel: number, data: Buffer) =>
    options.base64 ? ws.send(Buffer.from(String.fromCharCode(48 + channel) + data.toString('base64')), false) : ws.send(Buffer.concat([Buffer.from([channel]), data]), true);
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  ws.on('message', (message: Buffer, binary: boolean) => {
    if (message.length === 0) return;
    const channel = binary ? message[0] : message.toString().charCodeAt(0) - 48;
    const data = binary ? message.subarray(1) : Buffer.from(message.toString().slice(1), 'base64');
    channels.push(channel);
    out[channel] = (out[channel] ?? '') + data.toString('latin1');
  });
  if (options.stdin !== undefined) {
    send(0, Buffer.from(options.stdin));
    // v5's close signal for stdin
    if (protocol === 'v5.channel.k8s.io') ws.send(Buffer.from([255, 0]), true);
  }
  await closed;
  return { protocol, stdout: out[1], stderr: out[2], error: out[3], channels };
}

/** one port-forward connection over a SPDY session: what the port answered and the error stream */
export async function spdyPortForwardOnce(session: SpdySession, requestId: number, port: number, send: string): Promise<{ data: string; error: string }> {
  const headers = { port: String(port), requestID: String(requestId) };
  const error = await session.waitReply(session.openStream({ streamType: 'error', ...headers }), 5000);
  error.end();
  const data = await session.waitReply(session.openStream({ streamType: 'data', ...headers }), 5000);
  const outputs = Promise.all([collect(data), collect(error)]);
  data.end(send);
  const [received, failure] = await outputs;
  return { data: received, error: failure };
}

export async function spdyPortForwardSession(url: string): Promise<SpdySession> {
  const up = await upgradeRequest(url, { Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'portforward.k8s.io' });
  if (up.status !== 101 || !up.socket) throw new Error(`upgrade refused: ${up.status} ${up.body}`);
  return new SpdySession({ socket: up.socket, role: 'client', head: up.head });
}
