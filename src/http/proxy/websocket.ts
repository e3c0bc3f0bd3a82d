/**
 * The server end of a WebSocket (RFC 6455) on a socket the HTTP server handed over: the handshake
 * answer, message framing (client frames masked, ours not; fragments joined), ping answered with
 * pong, and the closing handshake. No extensions are negotiated, so compressed frames are refused.
 * Written here rather than taken from a package so the API server has no runtime dependency that
 * its package.json does not declare.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { errors } from '../../api/errors';

const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** the largest message we take (the streams send small ones; a bound keeps a client from filling memory) */
const MAX_MESSAGE = 32 * 1024 * 1024;
/** how long a close we sent waits for the peer's before the socket is dropped */
const CLOSE_WAIT_MS = 10_000;

const OP_CONTINUATION = 0x0;
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

const waitingForDrain = new WeakSet<Duplex>();

/**
 * Back-pressure between two ends of a relay: `source` stops reading until `sink` (whose write
 * just returned false) drains; one wait per sink however many writes hit the full buffer.
 */
export function pauseUntilDrain(source: { pause(): void; resume(): void }, sink: Duplex): void {
  source.pause();
  if (waitingForDrain.has(sink)) return;
  waitingForDrain.add(sink);
  const resume = () => {
    waitingForDrain.delete(sink);
    sink.off('close', resume);
    sink.off('drain', resume);
    source.resume();
  };
  sink.once('drain', resume);
  sink.once('close', resume);
}

/** the subprotocols a client offers (Sec-WebSocket-Protocol, comma separated, possibly repeated) */
export function offeredProtocols(req: http.IncomingMessage): string[] {
  const raw = req.headers['sec-websocket-protocol'];
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
}

export function isWebSocketRequest(req: http.IncomingMessage): boolean {
  const connection = String(req.headers.connection ?? '').toLowerCase();
  return String(req.headers.upgrade ?? '').toLowerCase() === 'websocket' && /\bupgrade\b/.test(connection);
}

/** what makes a handshake acceptable; throws a 400 (as gorilla's Upgrader refuses) before anything is written */
export function checkWebSocketRequest(req: http.IncomingMessage): void {
  if (req.method !== 'GET') throw errors.badRequest('websocket: the client is not using the websocket protocol: request method is not GET');
  if (req.headers['sec-websocket-version'] !== '13') throw errors.badRequest('websocket: unsupported version: 13 not found in \'Sec-Websocket-Version\' header');
  const key = String(req.headers['sec-websocket-key'] ?? '');
  if (Buffer.from(key, 'base64').length !== 16) throw errors.badRequest("websocket: not a websocket handshake: 'Sec-WebSocket-Key' header must be Base64 encoded value of 16-byte in length");
}

export interface WebSocketEvents {
  message: [data: Buffer, binary: boolean];
  /** the connection ended; code is the peer's close code when it sent one */
  close: [code: number | undefined];
}

/**
 * An accepted WebSocket. `send` writes one message; `close` starts the closing handshake, after
 * which the socket ends once the peer answers (or after CLOSE_WAIT_MS). `pause`/`resume` stop and
 * restart reading (back-pressure toward the client); `send` returns false when the socket is full
 * and 'drain' follows on the socket as usual.
 */
export class WebSocketConnection extends EventEmitter<WebSocketEvents> {
  readonly protocol: string;
  readonly socket: Duplex;
  #buffer: Buffer = Buffer.alloc(0);
  #fragments: Buffer[] = [];
  #fragmentSize = 0;
  #fragmentBinary = true;
  #closeSent = false;
  #closed = false;
  #closeTimer: NodeJS.Timeout | undefined;
  #peerCode: number | undefined;

  constructor(socket: Duplex, protocol: string) {
    super();
    this.socket = socket;
    this.protocol = protocol;
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('error', () => this.destroy());
    socket.on('close', () => this.#end());
    socket.on('end', () => this.#finish());
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(data: Buffer | string, binary = true): boolean {
    if (this.#closeSent || this.#closed) return false;
    return this.socket.write(frame(binary ? OP_BINARY : OP_TEXT, typeof data === 'string' ? Buffer.from(data) : data));
  }

  close(code = 1000, reason = ''): void {
    if (this.#closeSent || this.#closed) return;
    this.#closeSent = true;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.socket.write(frame(OP_CLOSE, payload));
    // the peer answered first (its close started the handshake): done
    if (this.#peerCode !== undefined) return;
    this.#closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS);
    this.#closeTimer.unref();
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  destroy(): void {
    this.socket.destroy();
    this.#end();
  }

  /** our side is done writing: end the socket gently (what we wrote last still goes out), drop it if the peer lingers */
  #finish(): void {
    this.socket.end();
    if (!this.#closed) setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS).unref();
    this.#end();
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#closeTimer) clearTimeout(this.#closeTimer);
    this.emit('close', this.#peerCode);
  }

  #protocolError(code: number): void {
    this.close(code);
    this.#finish();
  }

  #read(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    while (!this.#closed) {
      const f = parseFrame(this.#buffer);
      if (f === undefined) return;
      if ('error' in f) return this.#protocolError(f.error);
      this.#buffer = this.#buffer.subarray(f.size);
      this.#frame(f.fin, f.opcode, f.payload);
    }
  }

  #frame(fin: boolean, opcode: number, payload: Buffer): void {
    if (opcode >= OP_CLOSE) {
      if (!fin || payload.length > 125) return this.#protocolError(1002);
      if (opcode === OP_PING) {
        if (!this.#closeSent) this.socket.write(frame(OP_PONG, payload));
      } else if (opcode === OP_CLOSE) {
        this.#peerCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        // answer with the peer's code, then the TCP connection ends
        if (!this.#closeSent) this.close(payload.length >= 2 ? this.#peerCode : 1000);
        this.#finish();
      } else if (opcode !== OP_PONG) {
        this.#protocolError(1002);
      }
      return;
    }
    if (opcode === OP_CONTINUATION) {
      if (this.#fragments.length === 0) return this.#protocolError(1002);
    } else if (opcode === OP_TEXT || opcode === OP_BINARY) {
      if (this.#fragments.length > 0) return this.#protocolError(1002);
      this.#fragmentBinary = opcode === OP_BINARY;
    } else {
      return this.#protocolError(1002);
    }
    this.#fragmentSize += payload.length;
    if (this.#fragmentSize > MAX_MESSAGE) return this.#protocolError(1009);
    this.#fragments.push(payload);
    if (!fin) return;
    const message = this.#fragments.length === 1 ? this.#fragments[0] : Buffer.concat(this.#fragments);
    this.#fragments = [];
    this.#fragmentSize = 0;
    this.emit('message', message, this.#fragmentBinary);
  }
}

type ParsedFrame = { fin: boolean; opcode: number; payload: Buffer; size: number } | { error: number };

/** one client frame from the start of `b`, undefined until it is complete */
function parseFrame(b: Buffer): ParsedFrame | undefined {
  if (b.length < 2) return undefined;
  const fin = (b[0] & 0x80) !== 0;
  // RSV bits: no extension was negotiated
  if ((b[0] & 0x70) !== 0) return { error: 1002 };
  const opcode = b[0] & 0x0f;
  const masked = (b[1] & 0x80) !== 0;
  if (!masked) return { error: 1002 };
  let length = b[1] & 0x7f;
  let at = 2;
  if (length === 126) {
    if (b.length < 4) return undefined;
    length = b.readUInt16BE(2);
    at = 4;
  } else if (length === 127) {
    if (b.length < 10) return undefined;
    const big = b.readBigUInt64BE(2);
    if (big > BigInt(MAX_MESSAGE)) return { error: 1009 };
    length = Number(big);
    at = 10;
  }
  if (length > MAX_MESSAGE) return { error: 1009 };
  if (b.length < at + 4 + length) return undefined;
  const mask = b.subarray(at, at + 4);
  const payload = Buffer.allocUnsafe(length);
  const data = b.subarray(at + 4, at + 4 + length);
  for (let i = 0; i < length; i++) payload[i] = data[i] ^ mask[i & 3];
  return { fin, opcode, payload, size: at + 4 + length };
}

/** a whole unmasked server frame */
function frame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? Buffer.alloc(2) : n < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (n < 126) head[1] = n;
  else if (n < 65536) {
    head[1] = 126;
    head.writeUInt16BE(n, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/**
 * Answers the handshake on `socket` (101 with Sec-WebSocket-Accept and, when given, the chosen
 * subprotocol) and returns the connection. Call `checkWebSocketRequest` first.
 */
export function acceptWebSocket(req: http.IncomingMessage, socket: Duplex, protocol: string): WebSocketConnection {
  const accept = createHash('sha1').update(`${String(req.headers['sec-websocket-key'])}${ACCEPT_GUID}`).digest('base64');
  const lines = ['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Accept: ${accept}`];
  if (protocol) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  if ('setNoDelay' in socket && typeof socket.setNoDelay === 'function') socket.setNoDelay(true);
  if ('setTimeout' in socket && typeof socket.setTimeout === 'function') socket.setTimeout(0);
  return new WebSocketConnection(socket, protocol);
}
