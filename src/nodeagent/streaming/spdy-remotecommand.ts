/**
 * exec and attach over SPDY/3.1 (kubelet's remotecommand ServeExec/ServeAttach with
 * createHttpStreamStreams): after the 101 answer the client opens one stream per channel, each
 * with a `streamType` header (error, stdin, stdout, stderr, resize); once all the request needs
 * have come (within the creation timeout) the command runs, then its result goes on the error
 * stream and the connection closes.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { once } from 'node:events';
import { SpdySession, type SpdyStream } from './spdy';
import {
  HEADER_ACCEPTED_PROTOCOL_VERSIONS,
  HEADER_PROTOCOL_VERSION,
  ResizeDecoder,
  ResizeEvents,
  STREAM_PROTOCOL_V2,
  STREAM_PROTOCOL_V3,
  clientProtocols,
  negotiate,
  statusBytes,
  type CommandResult,
  type CommandStreams,
} from './remotecommand';
import { writeRawResponse } from './http-answers';

export interface RemoteCommandOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  /** the command, for the exit status's message (exec) */
  command: string[];
}

/**
 * Answers the upgrade with 101 and the negotiated protocol, or with 403 naming the accepted ones
 * (kube's httpstream.Handshake). A client that names no protocol gets `fallback`.
 */
export function spdyHandshake(req: IncomingMessage, socket: Duplex, serverProtocols: string[], fallback: string): string | undefined {
  const asked = clientProtocols(req.headers[HEADER_PROTOCOL_VERSION.toLowerCase()]);
  const protocol = asked.length === 0 ? fallback : negotiate(asked, serverProtocols);
  if (protocol === '') {
    const message = `unable to upgrade: unable to negotiate protocol: client supports [${asked.join(' ')}], server accepts [${serverProtocols.join(' ')}]`;
    writeRawResponse(socket, 403, 'text/plain; charset=utf-8', `${message}\n`, serverProtocols.map((p) => [HEADER_ACCEPTED_PROTOCOL_VERSIONS, p]));
    return undefined;
  }
  const lines = ['HTTP/1.1 101 Switching Protocols', 'Connection: Upgrade', 'Upgrade: SPDY/3.1'];
  if (asked.length > 0) lines.push(`${HEADER_PROTOCOL_VERSION}: ${protocol}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  return protocol;
}

/** serves one exec or attach connection; resolves when it is closed */
export async function serveSpdyRemoteCommand(options: {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  command: RemoteCommandOptions;
  streamCreationTimeoutMs: number;
  run: (streams: CommandStreams) => Promise<CommandResult>;
}): Promise<void> {
  const { req, socket, head, command } = options;
  const protocol = spdyHandshake(req, socket, ['v4.channel.k8s.io', STREAM_PROTOCOL_V3, STREAM_PROTOCOL_V2], STREAM_PROTOCOL_V2);
  if (protocol === undefined) return;
  const session = new SpdySession({ socket, role: 'server', head });
  session.on('error', () => {
    // a protocol error closes the session; the command's side sees its streams end
  });
  const wanted = new Set(['error']);
  if (command.stdin) wanted.add('stdin');
  if (command.stdout) wanted.add('stdout');
  if (command.stderr) wanted.add('stderr');
  if (command.tty && protocol !== STREAM_PROTOCOL_V2) wanted.add('resize');
  const streams = new Map<string, SpdyStream>();
  const resize = new ResizeEvents();

  const ready = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), options.streamCreationTimeoutMs);
    session.on('stream', (stream: SpdyStream) => {
      const type = stream.header('streamType');
      if (!wanted.has(type) || streams.has(type)) {
        // kubelet refuses a stream it did not expect
        stream.reset();
        return;
      }
      stream.reply();
      streams.set(type, stream);
      if (type === 'resize') {
        const decoder = new ResizeDecoder(resize);
        stream.on('data', (chunk: Buffer) => decoder.write(chunk));
      }
      if (streams.size === wanted.size) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    session.once('close', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!(await ready)) {
    // kubelet: "timed out waiting for client to create streams"; the client sees the connection end
    session.destroy();
    return;
  }
  const stdout = streams.get('stdout');
  const stderr = streams.get('stderr');
  const gone = new AbortController();
  session.once('close', () => gone.abort());
  const result = await options
    .run({ stdin: streams.get('stdin'), stdout, stderr, tty: command.tty, resize, signal: gone.signal })
    .catch((err: Error): CommandResult => ({ error: err.message }));
  // the output streams end (FIN) before the status goes out, so the client has all output first
  await Promise.all([stdout, stderr].map((s) => endWritable(s)));
  const error = streams.get('error');
  if (error && !session.closed) {
    const bytes = statusBytes(protocol, result, command.command);
    if (bytes.length > 0) error.write(bytes);
    await endWritable(error);
  }
  streams.get('stdin')?.destroy();
  streams.get('resize')?.destroy();
  await closeSession(session);
}

/** GOAWAY and the socket's end; a client that keeps the connection past 5 s is cut off */
export async function closeSession(session: SpdySession): Promise<void> {
  session.close();
  if (session.closed) return;
  const timer = setTimeout(() => session.destroy(), 5000);
  await once(session, 'close');
  clearTimeout(timer);
}

async function endWritable(stream: Duplex | undefined): Promise<void> {
  if (stream === undefined || stream.destroyed || stream.writableFinished) return;
  if (!stream.writableEnded) stream.end();
  await new Promise<void>((resolve) => {
    stream.once('finish', resolve);
    stream.once('close', resolve);
  });
}
