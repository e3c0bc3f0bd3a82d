/**
 * SPDY/3.1 framing (draft-mbelshe-httpbis-spdy-00 with the 3.1 session window), the part a client
 * of kube's streaming servers needs: control frames (SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS,
 * PING, GOAWAY, HEADERS, WINDOW_UPDATE) and data frames, read from a byte stream and written.
 *
 * Header blocks are zlib streams primed with SPDY/3's dictionary, one stream per direction for the
 * whole session. We write ours as stored (uncompressed) deflate blocks, each header block closed
 * with an empty stored block as a sync flush closes it: valid for any zlib reader, with no state to keep but the
 * stream header sent once. The peer's header blocks are not inflated: kube's streaming protocols
 * carry nothing the client needs in the replies (stream identity is in the frame, errors in data).
 */

export const SPDY_VERSION = 3;

export const FrameType = {
  SynStream: 1,
  SynReply: 2,
  RstStream: 3,
  Settings: 4,
  Ping: 6,
  GoAway: 7,
  Headers: 8,
  WindowUpdate: 9,
} as const;

export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;

/** RST_STREAM status codes */
export const RstStatus = { ProtocolError: 1, InvalidStream: 2, RefusedStream: 3, Cancel: 5, InternalError: 6 } as const;

/** the largest payload of one frame (24-bit length) */
export const MAX_FRAME_PAYLOAD = 0xffffff;

/** Adler-32 of SPDY/3's header compression dictionary (the spec's section 2.6.10.1), the zlib stream's dictionary id */
const SPDY3_DICTIONARY_ADLER32 = 0xe3c6a7c2;

export type SpdyFrame =
  | { control: false; streamId: number; flags: number; data: Buffer }
  | { control: true; type: number; flags: number; payload: Buffer };

/** reads frames from chunks as they arrive */
export class SpdyFrameReader {
  #buffer: Buffer = Buffer.alloc(0);

  /** the frames completed by `chunk`, in order */
  push(chunk: Buffer): SpdyFrame[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const out: SpdyFrame[] = [];
    while (this.#buffer.length >= 8) {
      const b = this.#buffer;
      const length = b.readUIntBE(5, 3);
      if (b.length < 8 + length) break;
      const flags = b[4];
      const payload = b.subarray(8, 8 + length);
      if (b[0] & 0x80) out.push({ control: true, type: b.readUInt16BE(2), flags, payload });
      else out.push({ control: false, streamId: b.readUInt32BE(0) & 0x7fffffff, flags, data: payload });
      this.#buffer = b.subarray(8 + length);
    }
    return out;
  }
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  head[4] = flags;
  head.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([head, payload]);
}

export function dataFrame(streamId: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head[4] = flags;
  head.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([head, data]);
}

/**
 * The compressor of our header blocks: the first block opens the zlib stream (header with the
 * dictionary id), every block is stored deflate blocks of at most 65535 bytes, never final.
 */
export class HeaderBlockWriter {
  #started = false;

  encode(headers: Record<string, string>): Buffer {
    const plain = plainHeaderBlock(headers);
    const parts: Buffer[] = [];
    if (!this.#started) {
      this.#started = true;
      // CMF 0x78 (deflate, 32 KiB window); FLG with FDICT set and a check making CMF*256+FLG a multiple of 31
      const cmf = 0x78;
      let flg = 0x20;
      flg += (31 - ((cmf * 256 + flg) % 31)) % 31;
      const dictId = Buffer.alloc(4);
      dictId.writeUInt32BE(SPDY3_DICTIONARY_ADLER32, 0);
      parts.push(Buffer.from([cmf, flg]), dictId);
    }
    for (let at = 0; at < plain.length; at += 0xffff) parts.push(storedBlock(plain.subarray(at, at + 0xffff)));
    // an empty stored block ends it, as a sync flush does: an inflater hands out a stored block's
    // bytes only when the next block starts (Go's flate does), so without it the block's tail
    // would wait for the next frame's header block
    parts.push(storedBlock(Buffer.alloc(0)));
    return Buffer.concat(parts);
  }
}

/** a non-final stored deflate block (header byte, LEN, NLEN, the bytes), byte aligned */
function storedBlock(piece: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = 0; // BFINAL 0, BTYPE 00 (stored), padding to the byte boundary
  head.writeUInt16LE(piece.length, 1);
  head.writeUInt16LE(~piece.length & 0xffff, 3);
  return Buffer.concat([head, piece]);
}

/** SPDY/3's uncompressed name/value block: 32-bit count, then length-prefixed lowercase names and values */
export function plainHeaderBlock(headers: Record<string, string>): Buffer {
  const entries = Object.entries(headers);
  const parts: Buffer[] = [u32(entries.length)];
  for (const [name, value] of entries) {
    const n = Buffer.from(name.toLowerCase());
    const v = Buffer.from(value);
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0, 0);
  return b;
}

export function synStreamFrame(streamId: number, flags: number, headerBlock: Buffer): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt32BE(streamId & 0x7fffffff, 0);
  fixed.writeUInt32BE(0, 4); // associated-to stream: none
  fixed[8] = 0; // priority 0 (highest), unused bits
  fixed[9] = 0; // slot
  return controlFrame(FrameType.SynStream, flags, Buffer.concat([fixed, headerBlock]));
}

export function rstStreamFrame(streamId: number, status: number): Buffer {
  return controlFrame(FrameType.RstStream, 0, Buffer.concat([u32(streamId & 0x7fffffff), u32(status)]));
}

export function pingFrame(id: number): Buffer {
  return controlFrame(FrameType.Ping, 0, u32(id));
}

export function goAwayFrame(lastGoodStreamId: number, status = 0): Buffer {
  return controlFrame(FrameType.GoAway, 0, Buffer.concat([u32(lastGoodStreamId & 0x7fffffff), u32(status)]));
}

/** the stream id a control frame names (SYN_REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE), 0 for session frames */
export function controlStreamId(f: Extract<SpdyFrame, { control: true }>): number {
  if (f.payload.length < 4) return 0;
  switch (f.type) {
    case FrameType.SynStream:
    case FrameType.SynReply:
    case FrameType.RstStream:
    case FrameType.Headers:
    case FrameType.WindowUpdate:
      return f.payload.readUInt32BE(0) & 0x7fffffff;
    default:
      return 0;
  }
}
