/**
 * SPDY/3.1 frames (draft-mbelshe-httpbis-spdy-00 with the 3.1 session flow control), as kube's
 * streaming libraries speak them through moby/spdystream: the encoder turns a frame into bytes, the
 * parser cuts bytes into frames. Header blocks are zlib streams primed with SPDY3_HEADER_DICTIONARY,
 * one per direction per connection, so the parser decodes them in arrival order (asynchronously:
 * Node's zlib has no synchronous streaming call) and hands out frames in the order they came.
 *
 * Wire layout (big-endian):
 *   control: 1 | version(15) | type(16) | flags(8) | length(24) | payload
 *   data:    0 | stream id(31)          | flags(8) | length(24) | payload
 */
import zlib from 'node:zlib';
import { SPDY3_HEADER_DICTIONARY } from './dictionary';

export const SPDY_VERSION = 3;

export const FrameType = {
  SYN_STREAM: 1,
  SYN_REPLY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  HEADERS: 8,
  WINDOW_UPDATE: 9,
} as const;

/** FLAG_FIN on DATA, SYN_STREAM, SYN_REPLY and HEADERS; FLAG_UNIDIRECTIONAL on SYN_STREAM */
export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;

/** RST_STREAM status codes */
export const RstStatus = {
  PROTOCOL_ERROR: 1,
  INVALID_STREAM: 2,
  REFUSED_STREAM: 3,
  UNSUPPORTED_VERSION: 4,
  CANCEL: 5,
  INTERNAL_ERROR: 6,
  FLOW_CONTROL_ERROR: 7,
  STREAM_IN_USE: 8,
  STREAM_ALREADY_CLOSED: 9,
  FRAME_TOO_LARGE: 11,
} as const;

/** names are lower case; several values of one name travel NUL-separated */
export type SpdyHeaders = Record<string, string[]>;

export type SpdyFrame =
  | { type: 'DATA'; streamId: number; flags: number; data: Buffer }
  | { type: 'SYN_STREAM'; streamId: number; associatedToStreamId: number; priority: number; flags: number; headers: SpdyHeaders }
  | { type: 'SYN_REPLY'; streamId: number; flags: number; headers: SpdyHeaders }
  | { type: 'RST_STREAM'; streamId: number; status: number }
  | { type: 'SETTINGS'; flags: number; entries: { flags: number; id: number; value: number }[] }
  | { type: 'PING'; id: number }
  | { type: 'GOAWAY'; lastGoodStreamId: number; status: number }
  | { type: 'HEADERS'; streamId: number; flags: number; headers: SpdyHeaders }
  | { type: 'WINDOW_UPDATE'; streamId: number; deltaWindowSize: number }
  /** a control frame of a type SPDY/3.1 does not define: skipped, as the draft asks */
  | { type: 'UNKNOWN'; frameType: number; flags: number; payload: Buffer };

export class SpdyProtocolError extends Error {
  override readonly name = 'SpdyProtocolError';
}

const MAX_LENGTH = 0xffffff;
const STREAM_ID_MASK = 0x7fffffff;

function adler32(bytes: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** the uncompressed name/value block: count, then (length, name, length, value) per name */
export function encodeHeaderPairs(headers: SpdyHeaders): Buffer {
  const entries = Object.entries(headers);
  const parts: Buffer[] = [u32(entries.length)];
  for (const [name, values] of entries) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(values.join('\0'), 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderPairs(block: Buffer): SpdyHeaders {
  const headers: SpdyHeaders = {};
  let at = 0;
  const take = (n: number): Buffer => {
    if (at + n > block.length) throw new SpdyProtocolError('header block ends inside a name or value');
    const bytes = block.subarray(at, at + n);
    at += n;
    return bytes;
  };
  const count = take(4).readUInt32BE(0);
  for (let i = 0; i < count; i++) {
    const name = take(take(4).readUInt32BE(0)).toString('utf8').toLowerCase();
    const value = take(take(4).readUInt32BE(0)).toString('utf8');
    (headers[name] ??= []).push(...value.split('\0'));
  }
  return headers;
}

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value >>> 0);
  return b;
}

/**
 * Compresses header blocks into one zlib stream. It writes stored (uncompressed) deflate blocks,
 * each followed by an empty one as a sync flush would: every inflater reads them, and they need no
 * stateful compressor (a header block is a few dozen bytes).
 */
export class HeaderCompressor {
  #started = false;

  compress(pairs: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.#started) {
      this.#started = true;
      // CMF 0x78 (deflate, 32 KiB window), FLG 0x20 (a preset dictionary; 0x7820 is a multiple of 31)
      parts.push(Buffer.from([0x78, 0x20]), u32(adler32(SPDY3_HEADER_DICTIONARY)));
    }
    let at = 0;
    do {
      parts.push(storedBlock(pairs.subarray(at, at + 0xffff)));
      at += 0xffff;
    } while (at < pairs.length);
    parts.push(storedBlock(Buffer.alloc(0)));
    return Buffer.concat(parts);
  }
}

function storedBlock(data: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = 0x00; // not final, stored
  head.writeUInt16LE(data.length, 1);
  head.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([head, data]);
}

/** Decompresses one direction's header blocks, in order, each ended by the sender's sync flush */
export class HeaderDecompressor {
  readonly #inflate = zlib.createInflate({ dictionary: SPDY3_HEADER_DICTIONARY });
  #out: Buffer[] = [];
  #failed: Error | undefined;

  constructor() {
    this.#inflate.on('data', (chunk: Buffer) => this.#out.push(chunk));
    this.#inflate.on('error', (err: Error) => (this.#failed = err));
  }

  /** must be called one block at a time (the next after the previous promise settles) */
  decompress(block: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.#failed) return reject(new SpdyProtocolError(`header block: ${this.#failed.message}`));
      this.#inflate.write(block);
      this.#inflate.flush(zlib.constants.Z_SYNC_FLUSH, () => {
        if (this.#failed) return reject(new SpdyProtocolError(`header block: ${this.#failed.message}`));
        const out = Buffer.concat(this.#out);
        this.#out = [];
        resolve(out);
      });
    });
  }

  close(): void {
    this.#inflate.close();
  }
}

function controlHeader(type: number, flags: number, length: number): Buffer {
  if (length > MAX_LENGTH) throw new SpdyProtocolError(`a frame of ${length} bytes is too large`);
  const b = Buffer.alloc(8);
  b.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  b.writeUInt16BE(type, 2);
  b.writeUInt32BE(((flags & 0xff) << 24) | length, 4);
  return b;
}

function control(type: number, flags: number, payload: Buffer): Buffer {
  return Buffer.concat([controlHeader(type, flags, payload.length), payload]);
}

/** turns frames into bytes; owns the connection's outgoing header compressor */
export class FrameEncoder {
  readonly #compressor = new HeaderCompressor();

  encode(frame: SpdyFrame): Buffer {
    switch (frame.type) {
      case 'DATA': {
        if (frame.data.length > MAX_LENGTH) throw new SpdyProtocolError(`a frame of ${frame.data.length} bytes is too large`);
        const head = Buffer.alloc(8);
        head.writeUInt32BE(frame.streamId & STREAM_ID_MASK, 0);
        head.writeUInt32BE(((frame.flags & 0xff) << 24) | frame.data.length, 4);
        return Buffer.concat([head, frame.data]);
      }
      case 'SYN_STREAM': {
        const fixed = Buffer.alloc(10);
        fixed.writeUInt32BE(frame.streamId & STREAM_ID_MASK, 0);
        fixed.writeUInt32BE(frame.associatedToStreamId & STREAM_ID_MASK, 4);
        fixed[8] = (frame.priority & 0x07) << 5;
        fixed[9] = 0; // slot
        return control(FrameType.SYN_STREAM, frame.flags, Buffer.concat([fixed, this.#headers(frame.headers)]));
      }
      case 'SYN_REPLY':
        return control(FrameType.SYN_REPLY, frame.flags, Buffer.concat([u32(frame.streamId & STREAM_ID_MASK), this.#headers(frame.headers)]));
      case 'HEADERS':
        return control(FrameType.HEADERS, frame.flags, Buffer.concat([u32(frame.streamId & STREAM_ID_MASK), this.#headers(frame.headers)]));
      case 'RST_STREAM':
        return control(FrameType.RST_STREAM, 0, Buffer.concat([u32(frame.streamId & STREAM_ID_MASK), u32(frame.status)]));
      case 'SETTINGS': {
        const parts = [u32(frame.entries.length)];
        for (const e of frame.entries) parts.push(u32(((e.flags & 0xff) << 24) | (e.id & 0xffffff)), u32(e.value));
        return control(FrameType.SETTINGS, frame.flags, Buffer.concat(parts));
      }
      case 'PING':
        return control(FrameType.PING, 0, u32(frame.id));
      case 'GOAWAY':
        return control(FrameType.GOAWAY, 0, Buffer.concat([u32(frame.lastGoodStreamId & STREAM_ID_MASK), u32(frame.status)]));
      case 'WINDOW_UPDATE':
        return control(FrameType.WINDOW_UPDATE, 0, Buffer.concat([u32(frame.streamId & STREAM_ID_MASK), u32(frame.deltaWindowSize & STREAM_ID_MASK)]));
      case 'UNKNOWN':
        return control(frame.frameType, frame.flags, frame.payload);
    }
  }

  #headers(headers: SpdyHeaders): Buffer {
    return this.#compressor.compress(encodeHeaderPairs(headers));
  }
}

/**
 * Cuts a byte stream into frames and hands them to `onFrame` in arrival order; header blocks are
 * decompressed on the way. A malformed frame calls `onError` once and stops the parser.
 */
export class FrameParser {
  readonly #decompressor = new HeaderDecompressor();
  readonly #onFrame: (frame: SpdyFrame) => void;
  readonly #onError: (err: Error) => void;
  #pending: Buffer = Buffer.alloc(0);
  #chain: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(onFrame: (frame: SpdyFrame) => void, onError: (err: Error) => void) {
    this.#onFrame = onFrame;
    this.#onError = onError;
  }

  push(chunk: Buffer): void {
    if (this.#stopped) return;
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    while (this.#pending.length >= 8) {
      const length = this.#pending.readUInt32BE(4) & MAX_LENGTH;
      if (this.#pending.length < 8 + length) break;
      const raw = this.#pending.subarray(0, 8 + length);
      this.#pending = this.#pending.subarray(8 + length);
      this.#chain = this.#chain.then(() => this.#deliver(raw));
    }
  }

  /** resolves once every frame pushed so far has been handed out */
  drained(): Promise<void> {
    return this.#chain;
  }

  stop(): void {
    this.#stopped = true;
    this.#decompressor.close();
  }

  async #deliver(raw: Buffer): Promise<void> {
    if (this.#stopped) return;
    try {
      const frame = await this.#decode(raw);
      if (!this.#stopped) this.#onFrame(frame);
    } catch (err) {
      if (this.#stopped) return;
      this.stop();
      this.#onError(err as Error);
    }
  }

  async #decode(raw: Buffer): Promise<SpdyFrame> {
    const first = raw.readUInt32BE(0);
    const flags = raw[4];
    const payload = raw.subarray(8);
    if ((first & 0x80000000) === 0) return { type: 'DATA', streamId: first & STREAM_ID_MASK, flags, data: Buffer.from(payload) };
    const version = (first >>> 16) & 0x7fff;
    if (version !== SPDY_VERSION) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
    const type = first & 0xffff;
    const need = (n: number) => {
      if (payload.length < n) throw new SpdyProtocolError(`control frame ${type} is too short (${payload.length} bytes)`);
    };
    const streamId = () => payload.readUInt32BE(0) & STREAM_ID_MASK;
    switch (type) {
      case FrameType.SYN_STREAM: {
        need(10);
        const headers = decodeHeaderPairs(await this.#decompressor.decompress(payload.subarray(10)));
        return { type: 'SYN_STREAM', streamId: streamId(), associatedToStreamId: payload.readUInt32BE(4) & STREAM_ID_MASK, priority: payload[8] >> 5, flags, headers };
      }
      case FrameType.SYN_REPLY: {
        need(4);
        return { type: 'SYN_REPLY', streamId: streamId(), flags, headers: decodeHeaderPairs(await this.#decompressor.decompress(payload.subarray(4))) };
      }
      case FrameType.HEADERS: {
        need(4);
        return { type: 'HEADERS', streamId: streamId(), flags, headers: decodeHeaderPairs(await this.#decompressor.decompress(payload.subarray(4))) };
      }
      case FrameType.RST_STREAM:
        need(8);
        return { type: 'RST_STREAM', streamId: streamId(), status: payload.readUInt32BE(4) };
      case FrameType.SETTINGS: {
        need(4);
        const count = payload.readUInt32BE(0);
        need(4 + count * 8);
        const entries = [];
        for (let i = 0; i < count; i++) {
          const idWord = payload.readUInt32BE(4 + i * 8);
          entries.push({ flags: idWord >>> 24, id: idWord & 0xffffff, value: payload.readUInt32BE(8 + i * 8) });
        }
        return { type: 'SETTINGS', flags, entries };
      }
      case FrameType.PING:
        need(4);
        return { type: 'PING', id: payload.readUInt32BE(0) };
      case FrameType.GOAWAY:
        need(4);
        return { type: 'GOAWAY', lastGoodStreamId: streamId(), status: payload.length >= 8 ? payload.readUInt32BE(4) : 0 };
      case FrameType.WINDOW_UPDATE:
        need(8);
        return { type: 'WINDOW_UPDATE', streamId: streamId(), deltaWindowSize: payload.readUInt32BE(4) & STREAM_ID_MASK };
      default:
        return { type: 'UNKNOWN', frameType: type, flags, payload: Buffer.from(payload) };
    }
  }
}
