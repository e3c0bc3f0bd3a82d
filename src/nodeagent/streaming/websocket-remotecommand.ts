/**
 * exec and attach over WebSocket (kubelet's remotecommand with wsstream, plus client-go's v5):
 * every message starts with its channel, 0 stdin, 1 stdout, 2 stderr, 3 error (the exit status),
 * 4 resize; the base64 protocols send text messages whose first character is the channel's digit
 * and whose rest is base64. v5 adds 255: the client's close signal for a channel (its stdin's end).
 * As kubelet, the server sends an empty message on the first output channel once it is ready.
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough, Writable } from 'node:stream';
import { writeRawResponse } from './http-answers';
import { ResizeDecoder, ResizeEvents, STREAM_PROTOCOL_V4, STREAM_PROTOCOL_V5, statusBytes, type CommandResult, type CommandStreams } from './remotecommand';
import type { RemoteCommandOptions } from './spdy-remotecommand';
import { WebSocketConnection, acceptWebSocket, offeredProtocols } from './websocket/websocket-connection';
import type { Duplex } from 'node:stream';

export const Channel = { STDIN: 0, STDOUT: 1, STDERR: 2, ERROR: 3, RESIZE: 4, CLOSE: 255 } as const;

/** subprotocol -> (base64 text or binary, the remotecommand version its status follows) */
const CHANNEL_PROTOCOLS: Record<string, { base64: boolean; version: string }> = {
  [STREAM_PROTOCOL_V5]: { base64: false, version: STREAM_PROTOCOL_V5 },
  [STREAM_PROTOCOL_V4]: { base64: false, version: STREAM_PROTOCOL_V4 },
  'v4.base64.channel.k8s.io': { base64: true, version: STREAM_PROTOCOL_V4 },
  'channel.k8s.io': { base64: false, version: 'channel.k8s.io' },
  'base64.channel.k8s.io': { base64: true, version: 'channel.k8s.io' },
};

export const WEBSOCKET_REMOTECOMMAND_PROTOCOLS = Object.keys(CHANNEL_PROTOCOLS);

/** the channel protocol a client offers first, '' for none offered, undefined when none is known */
export function chooseChannelProtocol(offered: string[]): string | undefined {
  if (offered.length === 0) return '';
  return offered.find((p) => p in CHANNEL_PROTOCOLS);
}

/** the connection as channels: messages in by channel, writers out per channel */
export class ChannelConnection {
  readonly ws: WebSocketConnection;
  readonly #base64: boolean;

  constructor(ws: WebSocketConnection, base64: boolean) {
    this.ws = ws;
    this.#base64 = base64;
  }

  send(channel: number, data: Buffer, callback?: () => void): void {
    if (this.#base64) this.ws.send(Buffer.from(String.fromCharCode(48 + channel) + data.toString('base64')), false, callback);
    else this.ws.send(Buffer.concat([Buffer.from([channel]), data]), true, callback);
  }

  /** decodes a message into its channel and data, undefined for an empty one */
  decode(message: Buffer, binary: boolean): { channel: number; data: Buffer } | undefined {
    if (message.length === 0) return undefined;
    if (this.#base64 || !binary) {
      const text = message.toString();
      return { channel: text.charCodeAt(0) - 48, data: Buffer.from(text.slice(1), 'base64') };
    }
    return { channel: message[0], data: message.subarray(1) };
  }

  writer(channel: number): Writable {
    return new Writable({
      write: (chunk: Buffer, _encoding, callback) => this.send(channel, chunk, () => callback()),
    });
  }
}

/** serves one exec or attach connection over WebSocket; resolves when it is closed */
export async function serveWebSocketRemoteCommand(options: {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  command: RemoteCommandOptions;
  run: (streams: CommandStreams) => Promise<CommandResult>;
}): Promise<void> {
  const { req, socket, head, command } = options;
  const offered = offeredProtocols(req);
  const protocol = chooseChannelProtocol(offered);
  if (protocol === undefined) {
    const message = `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${WEBSOCKET_REMOTECOMMAND_PROTOCOLS.join(' ')}]`;
    writeRawResponse(socket, 403, 'text/plain; charset=utf-8', `${message}\n`);
    return;
  }
  if (!acceptWebSocket(req, socket, protocol)) return;
  const { base64, version } = CHANNEL_PROTOCOLS[protocol] ?? { base64: false, version: 'channel.k8s.io' };
  const ws = new WebSocketConnection({ socket, role: 'server', head });
  const channels = new ChannelConnection(ws, base64);
  const stdin = command.stdin ? new PassThrough() : undefined;
  const resize = new ResizeEvents();
  const resizeDecoder = new ResizeDecoder(resize);
  const gone = new AbortController();
  ws.on('message', (message: Buffer, binary: boolean) => {
    const decoded = channels.decode(message, binary);
    if (decoded === undefined) return;
    if (decoded.channel === Channel.STDIN) stdin?.write(decoded.data);
    else if (decoded.channel === Channel.RESIZE) resizeDecoder.write(decoded.data);
    else if (decoded.channel === Channel.CLOSE && decoded.data[0] === Channel.STDIN) stdin?.end();
  });
  ws.once('close', () => {
    stdin?.end();
    gone.abort();
  });
  const stdout = command.stdout ? channels.writer(Channel.STDOUT) : undefined;
  const stderr = command.stderr ? channels.writer(Channel.STDERR) : undefined;
  channels.send(command.stdout ? Channel.STDOUT : command.stderr ? Channel.STDERR : Channel.ERROR, Buffer.alloc(0));
  const result = await options
    .run({ stdin, stdout, stderr, tty: command.tty, resize, signal: gone.signal })
    .catch((err: Error): CommandResult => ({ error: err.message }));
  await Promise.all([stdout, stderr].map((w) => (w === undefined ? undefined : new Promise<void>((resolve) => w.end(resolve)))));
  const status = statusBytes(version, result, command.command);
  if (status.length > 0 && !ws.closed) await new Promise<void>((resolve) => channels.send(Channel.ERROR, status, resolve));
  ws.close(1000);
  if (!ws.closed) await new Promise<void>((resolve) => ws.once('close', () => resolve()));
}
