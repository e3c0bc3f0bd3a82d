/**
 * kube 1.30's StreamTranslatorHandler: exec and attach for WebSocket clients that speak
 * v5.channel.k8s.io (kubectl 1.30+), carried to the node agent over SPDY/3.1 with the v4 stream
 * protocol, which the agent passes to the runtime's streaming server.
 *
 * WebSocket side (v5, binary): each message is one channel byte and data. 0 stdin, 1 stdout, 2
 * stderr, 3 error (a metav1.Status once, at the end), 4 resize (TerminalSize JSON); 255 is v5's
 * close signal, `[255, channel]`, which ends that channel's input. The client learns the session is
 * up from an empty message on the lowest channel it reads (stdout, else stderr, else error).
 *
 * SPDY side: one stream per channel (headers `streamType: error|stdin|stdout|stderr|resize`,
 * stderr only without a TTY, resize only with one), the error stream opened first, as client-go
 * opens them. The close signal for stdin becomes FIN on the stdin stream: the half-close the
 * runtime turns into EOF on the process's stdin (what a v4 WebSocket to the runtime cannot say,
 * which is why the agent is reached over SPDY and not over v4 WebSocket).
 *
 * The end: once the error stream and the output streams are finished (or the SPDY connection
 * ends), the runtime's v4 Status is written on channel 3 as it came (Success when the runtime
 * wrote none), then the WebSocket is closed (1000). kube's translator rebuilds the Status from the
 * SPDY executor's error; passing the runtime's own keeps its reason and exit-code cause, which is
 * all client-go reads. A failure to reach the agent, or its refusal, is a Status on channel 3 too
 * (its own Status when it answered with one, else an InternalError), after the 101.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type tls from 'node:tls';
import { type BackendAnswer, openBackend, readText } from './backend';
import { SpdySession, type SpdyStream } from './spdy-session';
import { type WebSocketConnection, acceptWebSocket, pauseUntilDrain } from './websocket';

export const STREAM_PROTOCOL_V5 = 'v5.channel.k8s.io';
export const STREAM_PROTOCOL_V4 = 'v4.channel.k8s.io';

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE_SIGNAL = 255;

export interface RemoteCommandOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface TranslateRequest {
  /** the client's upgrade request and its socket (the HTTP server handed it over) */
  req: http.IncomingMessage;
  socket: Duplex;
  /** the agent's /exec or /attach URL */
  target: URL;
  tls?: tls.ConnectionOptions;
  timeoutMs?: number;
  options: RemoteCommandOptions;
}

/** kube's wsstream.IsWebSocketRequestWithStreamCloseProtocol: the translator serves requests offering v5 */
export function wantsStreamTranslation(offered: string[]): boolean {
  return offered.includes(STREAM_PROTOCOL_V5);
}

/** serves one exec/attach session; resolves when both sides are closed */
export async function translateRemoteCommand(t: TranslateRequest): Promise<void> {
  const ws = acceptWebSocket(t.req, t.socket, STREAM_PROTOCOL_V5);
  const o = t.options;
  ws.send(Buffer.from([o.stdout ? STDOUT : o.stderr ? STDERR : ERROR]));
  const wsClosed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  // what the client sends before the agent answers is held, then replayed in order
  const early: Buffer[] = [];
  const hold = (m: Buffer) => early.push(m);
  ws.on('message', hold);

  let answer: BackendAnswer;
  try {
    answer = await openBackend({
      target: t.target,
      method: 'POST',
      headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': STREAM_PROTOCOL_V4 },
      upgrade: true,
      tls: t.tls,
      timeoutMs: t.timeoutMs,
    });
  } catch (err) {
    return finish(ws, internalError(`error dialing backend: ${(err as Error).message}`), wsClosed);
  }
  if (answer.kind === 'response' || !String(answer.res.headers.upgrade ?? '').toLowerCase().includes('spdy/3.1')) {
    return finish(ws, await refusal(answer), wsClosed);
  }
  const protocol = String(answer.res.headers['x-stream-protocol-version'] ?? '');
  if (protocol !== STREAM_PROTOCOL_V4) {
    answer.socket.destroy();
    return finish(ws, internalError(`unable to upgrade: the agent chose stream protocol ${JSON.stringify(protocol)}, not ${STREAM_PROTOCOL_V4}`), wsClosed);
  }
  if (ws.closed) {
    answer.socket.destroy();
    return;
  }
  const session = new SpdySession(answer.socket, answer.head);
  await relay(ws, session, o, early, hold, wsClosed);
}

async function relay(ws: WebSocketConnection, session: SpdySession, o: RemoteCommandOptions, early: Buffer[], hold: (m: Buffer) => void, wsClosed: Promise<void>): Promise<void> {
  const open = (type: string) => session.openStream({ streamtype: type });
  const error = open('error');
  const inputs = new Map<number, SpdyStream>();
  if (o.stdin) inputs.set(STDIN, open('stdin'));
  const outputs: Array<[number, SpdyStream]> = [];
  if (o.stdout) outputs.push([STDOUT, open('stdout')]);
  if (o.stderr && !o.tty) outputs.push([STDERR, open('stderr')]);
  if (o.tty) inputs.set(RESIZE, open('resize'));

  const fromClient = (m: Buffer, binary: boolean) => {
    if (!binary || m.length === 0) return;
    if (m[0] === CLOSE_SIGNAL) {
      if (m.length >= 2) inputs.get(m[1])?.end();
      return;
    }
    const stream = inputs.get(m[0]);
    // the agent's socket full: the client is not read until it drains
    if (stream && m.length > 1 && !stream.write(m.subarray(1))) pauseUntilDrain(ws, session.socket);
  };
  ws.off('message', hold);
  for (const m of early) fromClient(m, true);
  ws.on('message', fromClient);

  for (const [channel, stream] of outputs) {
    stream.on('data', (d: Buffer) => {
      if (!ws.send(Buffer.concat([Buffer.from([channel]), d]))) pauseUntilDrain(session.socket, ws.socket);
    });
  }
  const errorBytes: Buffer[] = [];
  error.on('data', (d: Buffer) => errorBytes.push(d));

  const ended = (s: SpdyStream) => new Promise<void>((resolve) => (s.remoteDone ? resolve() : s.once('end', () => resolve())));
  const sessionEnded = new Promise<void>((resolve) => (session.closed ? resolve() : session.once('close', () => resolve())));
  const streamsDone = Promise.all([ended(error), ...outputs.map(([, s]) => ended(s))]);
  const outcome = await Promise.race([streamsDone.then(() => 'done' as const), sessionEnded.then(() => 'done' as const), wsClosed.then(() => 'client' as const)]);
  if (outcome === 'client') {
    // the client went away: so does the session (the runtime ends an attach, kills nothing)
    session.destroy();
    return;
  }
  session.close();
  await finish(ws, statusFromAgent(Buffer.concat(errorBytes)), wsClosed);
}

/** the runtime's v4 error-stream bytes as the client gets them on channel 3 */
function statusFromAgent(bytes: Buffer): Buffer {
  if (bytes.length === 0) return Buffer.from(JSON.stringify({ metadata: {}, status: 'Success' }));
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as { status?: unknown };
    if (parsed && typeof parsed === 'object' && typeof parsed.status === 'string') return bytes;
  } catch {
    // not JSON: a pre-v4 plain message; wrapped below
  }
  return internalError(bytes.toString('utf8'));
}

/** the Status for an agent that answered without switching protocols (client-go's SPDY upgrade error) */
async function refusal(answer: BackendAnswer): Promise<Buffer> {
  const code = answer.res.statusCode ?? 500;
  const text = answer.kind === 'response' ? await readText(answer.res).catch(() => '') : '';
  if (answer.kind === 'upgrade') answer.socket.destroy();
  try {
    const s = JSON.parse(text) as { kind?: unknown; status?: unknown };
    if (s && s.kind === 'Status' && typeof s.status === 'string') return Buffer.from(text);
  } catch {
    // plain text: kube reports it in an InternalError
  }
  return internalError(`unable to upgrade connection: ${text.trim() || `the agent answered ${code}`}`);
}

/** kube's apierrors.NewInternalError as JSON */
function internalError(message: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: ${message}`,
      reason: 'InternalError',
      details: { causes: [{ message }] },
      code: 500,
    }),
  );
}

/** kube's conns.finish: the Status on the error channel, the close frame, then wait for the client to close */
async function finish(ws: WebSocketConnection, status: Buffer, wsClosed: Promise<void>): Promise<void> {
  if (!ws.closed) {
    ws.send(Buffer.concat([Buffer.from([ERROR]), status]));
    ws.close(1000);
  }
  await wsClosed;
}
