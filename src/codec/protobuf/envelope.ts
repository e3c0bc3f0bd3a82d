/**
 * kube's protobuf envelope: the magic bytes `k8s\0` followed by a runtime.Unknown
 * {typeMeta{apiVersion, kind}, raw, contentEncoding, contentType}, raw being the object's message.
 * Watch streams frame each event as a 4-byte big-endian length and the bare WatchEvent message.
 */
import protobuf from 'protobufjs';
import { ProtobufDecodeError } from './decode';

export const MAGIC: Buffer = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

export function hasMagic(data: Uint8Array): boolean {
  return data.length >= MAGIC.length && MAGIC.every((b, i) => data[i] === b);
}

/** magic + Unknown, every field written as Go's runtime.Unknown marshaling does */
export function writeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const w = protobuf.Writer.create();
  w.uint32(0o12).fork().uint32(0o12).string(apiVersion).uint32(0o22).string(kind).ldelim();
  w.uint32(0o22).bytes(raw);
  w.uint32(0o32).string('');
  w.uint32(0o42).string('');
  return Buffer.concat([MAGIC, w.finish()]);
}

function readTypeMeta(r: protobuf.Reader, env: Envelope): void {
  const end = r.uint32() + r.pos;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 0o12) env.apiVersion = r.string();
    else if (tag === 0o22) env.kind = r.string();
    else r.skipType(tag & 7);
  }
}

/**
 * the Unknown after the magic; the caller has checked the magic. Errors carry kube's words for
 * data that is too short to hold anything.
 */
export function readEnvelope(data: Uint8Array): Envelope {
  if (data.length === MAGIC.length) throw new ProtobufDecodeError('empty body');
  const env: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  const r = protobuf.Reader.create(data.subarray(MAGIC.length));
  try {
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag === 0o12) readTypeMeta(r, env);
      else if (tag === 0o22) env.raw = r.bytes();
      else if (tag === 0o32) env.contentEncoding = r.string();
      else if (tag === 0o42) env.contentType = r.string();
      else r.skipType(tag & 7);
    }
  } catch (err) {
    // protobufjs reports truncated input as a RangeError and bad wire types as plain errors
    throw new ProtobufDecodeError(err instanceof RangeError ? 'unexpected EOF' : (err as Error).message);
  }
  return env;
}

/** one watch frame: the 4-byte big-endian length, then the message */
export function frame(message: Uint8Array): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(message.length, 0);
  return Buffer.concat([header, message]);
}

/** split a protobuf watch stream into its messages; a trailing partial frame is returned as `rest` */
export function splitFrames(stream: Buffer): { frames: Buffer[]; rest: Buffer } {
  const frames: Buffer[] = [];
  let pos = 0;
  while (stream.length - pos >= 4) {
    const len = stream.readUInt32BE(pos);
    if (stream.length - pos - 4 < len) break;
    frames.push(stream.subarray(pos + 4, pos + 4 + len));
    pos += 4 + len;
  }
  return { frames, rest: stream.subarray(pos) };
}
