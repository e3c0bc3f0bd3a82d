/** application/json: the default request and response format */
import { errors } from '../../api/errors';
import type { Codec } from './codec';
import { jsonDuplicateFields, withStrictDecodingErrors } from './duplicate-fields';
import { rejectFloatLiteralsInIntegerFields } from './integer-literals';
import type { IntegralFloatLiteral } from './integer-literals';
import { Readable } from 'node:stream';
import { listItemSources, listJsonBytes, listJsonChunks } from '../../cache/encoded';

/** lists longer than this are streamed, in chunks of about STREAM_CHUNK_BYTES */
const STREAM_MIN_ITEMS = 500;
const STREAM_CHUNK_BYTES = 256 * 1024;

export const jsonCodec: Codec = {
  mediaType: 'application/json',
  decode(body, ctx) {
    const text = body.toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      // kube's decoder reports the JSON syntax error of the body as a 400
      throw errors.badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
    // one scan finds repeated keys and float literals that JSON.parse turned into integers
    const literals: IntegralFloatLiteral[] = [];
    const duplicates = jsonDuplicateFields(text, (segments, literal) => {
      if (Number.isInteger(Number(literal))) literals.push({ segments, literal });
    });
    if (ctx?.kind && literals.length) rejectFloatLiteralsInIntegerFields(ctx.kind, value, literals);
    // JSON.parse keeps the last of repeated keys, as Go's decoder does; fieldValidation decides the rest
    return withStrictDecodingErrors(value, duplicates.map((p) => `duplicate field ${JSON.stringify(p)}`));
  },
  encode(value, opts) {
    // kube's pretty serializer indents two spaces; the compact one ends with a newline
    // compact: the watch cache's objects bring their JSON bytes (encoded once)
    return opts.pretty ? Buffer.from(JSON.stringify(value, null, 2) + '\n') : listJsonBytes(value, '\n');
  },
  encodeStream(value, opts) {
    if (opts.pretty) return undefined;
    const list = listItemSources(value);
    if (!list || list.sources.length <= STREAM_MIN_ITEMS) return undefined;
    return Readable.from(listJsonChunks(list, '\n', STREAM_CHUNK_BYTES), { objectMode: false });
  },
  encodeFrame(value) {
    // newline-delimited frames, one watch event per line
    return Buffer.from(JSON.stringify(value) + '\n');
  },
};
