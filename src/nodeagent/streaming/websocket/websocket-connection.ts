/**
 * A WebSocket connection (RFC 6455) over an upgraded socket, just what kube's channel protocols
 * need: whole messages in (fragments joined, pings answered, close echoed) and whole messages out,
 * text or binary. A server's frames go unmasked, a client's masked, as the RFC requires.
 */
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** a message larger than this closes the connection (1009) */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export const Opcode = { CONTINUATION: 0x0, TEXT: 0x1, BINARY: 0x2, CLOSE: 0x8, PING: 0x9, PONG: 0xa } as const;

/** Sec-WebSocket-Accept for a client's Sec-WebSocket-Key */
export function acceptKey(key: string): string {
  return crypto.createHash('sha1').update(key + ACCEPT_GUID).digest('base64');
}

/** the client's offered subprotocols (Sec-WebSocket-Protocol, comma-separated) */
export function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  return (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
}

/** the 101 answer; false (and the socket ended with 400) when the request is no WebSocket handshake */
export function acceptWebSocket(req: IncomingMessage, socket: Duplex, protocol: string): boolean {
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || req.headers['sec-websocket-version'] !== '13') {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    return false;
  }
  const lines = ['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Accept: ${acceptKey(key)}`];
  if (protocol !== '') lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  return true;
}

export function encodeFrame(opcode: number, payload: Buffer, mask: boolean, fin = true): Buffer {
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length < 0x10000 ? 2 : 8;
  const head = Buffer.alloc(2 + lengthBytes + (mask ? 4 : 0));
  head[0] = (fin ? 0x80 : 0) | opcode;
  head[1] = (mask ? 0x80 : 0) | (lengthBytes === 0 ? length : lengthBytes === 2 ? 126 : 127);
  if (lengthBytes === 2) head.writeUInt16BE(length, 2);
  if (lengthBytes === 8) head.writeBigUInt64BE(BigInt(length), 2);
  if (!mask) return Buffer.concat([head, payload]);
  const key = crypto.randomBytes(4);
  key.copy(head, 2 + lengthBytes);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = payload[i] ^ key[i & 3];
  return Buffer.concat([head, masked]);
}

/**
 * Events: 'message' (data: Buffer, binary: boolean), 'close' (code: number, reason: string) once
 * the connection is gone for whatever cause.
 */
export class WebSocketConnection extends EventEmitter {
  readonly #socket: Duplex;
  readonly #mask: boolean;
  #pending: Buffer = Buffer.alloc(0);
  #fragments: Buffer[] = [];
  #fragmentOpcode = 0;
  #closeSent = false;
  #closed = false;
  #closeCode = 1006;
  #closeReason = '';

  constructor(options: { socket: Duplex; role: 'server' | 'client'; head?: Buffer }) {
    super();
    this.#socket = options.socket;
    this.#mask = options.role === 'client';
    this.#socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.#socket.on('close', () => this.#onClosed());
    this.#socket.on('end', () => this.#onClosed());
    this.#socket.on('error', () => this.#onClosed());
    // bytes that came with the 101 are handled once the caller has its listeners on
    const head = options.head;
    if (head && head.length > 0) process.nextTick(() => this.#onData(head));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** sends one message; the callback runs once the socket can take more */
  send(data: Buffer, binary: boolean, callback?: () => void): void {
    if (this.#closeSent || this.#closed) {
      callback?.();
      return;
    }
    const flushed = this.#socket.write(encodeFrame(binary ? Opcode.BINARY : Opcode.TEXT, data, this.#mask));
    if (callback === undefined) return;
    if (flushed) callback();
    else this.#socket.once('drain', callback);
  }

  /** a close frame; the socket ends when the peer answers, or after 5 s */
  close(code = 1000, reason = ''): void {
    if (this.#closeSent || this.#closed) return;
    this.#closeSent = true;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.#socket.write(encodeFrame(Opcode.CLOSE, payload, this.#mask));
    setTimeout(() => this.#socket.destroy(), 5000).unref();
  }

  destroy(): void {
    this.#socket.destroy();
    this.#onClosed();
  }

  #onData(chunk: Buffer): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    while (!this.#closed) {
      const frame = this.#takeFrame();
      if (frame === undefined) return;
      this.#onFrame(frame.fin, frame.opcode, frame.payload);
    }
  }

  #takeFrame(): { fin: boolean; opcode: number; payload: Buffer } | undefined {
    const b = this.#pending;
    if (b.length < 2) return undefined;
    const masked = (b[1] & 0x80) !== 0;
    let length = b[1] & 0x7f;
    let at = 2;
    if (length === 126) {
      if (b.length < 4) return undefined;
      length = b.readUInt16BE(2);
      at = 4;
    } else if (length === 127) {
      if (b.length < 10) return undefined;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(MAX_MESSAGE_BYTES)) {
        this.#fail(1009, 'message too big');
        return undefined;
      }
      length = Number(big);
      at = 10;
    }
    const keyAt = at;
    if (masked) at += 4;
    if (b.length < at + length) return undefined;
    const payload = Buffer.from(b.subarray(at, at + length));
    if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= b[keyAt + (i & 3)];
    this.#pending = b.subarray(at + length);
    return { fin: (b[0] & 0x80) !== 0, opcode: b[0] & 0x0f, payload };
  }

  #onFrame(fin: boolean, opcode: number, payload: Buffer): void {
    switch (opcode) {
      case Opcode.PING:
        if (!this.#closeSent) this.#socket.write(encodeFrame(Opcode.PONG, payload, this.#mask));
        return;
      case Opcode.PONG:
        return;
      case Opcode.CLOSE: {
        this.#closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        this.#closeReason = payload.subarray(2).toString();
        if (!this.#closeSent) {
          this.#closeSent = true;
          this.#socket.write(encodeFrame(Opcode.CLOSE, payload.subarray(0, 2), this.#mask));
        }
        this.#socket.end();
        this.#onClosed();
        return;
      }
      case Opcode.TEXT:
      case Opcode.BINARY:
      case Opcode.CONTINUATION: {
        if (opcode !== Opcode.CONTINUATION) {
          this.#fragments = [];
          this.#fragmentOpcode = opcode;
        }
        this.#fragments.push(payload);
        if (!fin) return;
        const message = Buffer.concat(this.#fragments);
        this.#fragments = [];
        this.emit('message', message, this.#fragmentOpcode === Opcode.BINARY);
        return;
      }
      default:
        this.#fail(1002, `unknown opcode ${opcode}`);
    }
  }

  #fail(code: number, reason: string): void {
    this.close(code, reason);
    this.#socket.end();
    this.#onClosed();
  }

  #onClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.emit('close', this.#closeCode, this.#closeReason);
  }
}
