/**
 * A codec is one media type the API reads and writes. Adding a format (protobuf) is one more file in
 * this folder plus one line in index.ts; nothing else in the HTTP layer names a media type's syntax.
 */
import type { Readable } from 'node:stream';
import type { KindDefinition } from '../../api/kind';

export interface DecodeContext {
  /** the kind the request addresses (protobuf needs it to decode the envelope's raw bytes) */
  kind?: KindDefinition;
}

export interface EncodeOptions {
  pretty: boolean;
}

export interface Codec {
  /** the media type without parameters: `application/json` */
  readonly mediaType: string;
  /** decode one request body into a plain value; throws ApiError 400 (kube's decode messages) */
  decode(body: Buffer, ctx: DecodeContext): unknown;
  /** encode one response object */
  encode(value: unknown, opts: EncodeOptions): Buffer;
  /**
   * a large response object (a long list) as a stream of chunks encoded as the client reads them,
   * or undefined to encode it whole with encode(); absent = always whole
   */
  encodeStream?(value: unknown, opts: EncodeOptions): Readable | undefined;
  /** whether this object has a form in this type (protobuf has none for Table or /version); absent = always */
  canEncode?(value: unknown): boolean;
  /** encode a watch event as one frame of a watch stream; undefined = this type cannot stream */
  encodeFrame?(value: unknown): Buffer;
}
