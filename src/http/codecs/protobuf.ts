/**
 * application/vnd.kubernetes.protobuf: kube's binary encoding, for request bodies (create, update,
 * delete options), responses, lists, Status errors and watch streams (`;stream=watch`, length-framed
 * WatchEvents). The messages are loaded from proto/k8s once, when this module loads. Types kube
 * serves only as JSON (Table, discovery documents, /version) report canEncode false.
 */
import { ApiError, errors } from '../../api/errors';
import { apiVersionOf } from '../../api/scheme';
import { loadProtoSchema, ProtobufBodyError, ProtobufCodec } from '../../codec/protobuf';
import type { WatchEventValue } from '../../codec/protobuf';
import type { Codec, DecodeContext } from './codec';
// the codec list imports this module: read it only when a request is decoded
import { mediaTypesServed } from './index';

const MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

function otherMediaTypes(): string[] {
  return mediaTypesServed().filter((t) => t !== MEDIA_TYPE);
}

/** kube's summarizeData: the start of a body in a decode error, as text when it looks like JSON, else hex */
function summarize(body: Buffer, max = 30): string {
  if (body.length === 0) return '<empty>';
  const text = body[0] === 0x7b ? body.subarray(0, max).toString('utf8') : body.subarray(0, max).toString('hex');
  return body.length > max ? `${text} ...` : text;
}

/** the 400 kube's create/update handlers write for a body that does not decode (transformDecodeError) */
function decodeFailure(err: ProtobufBodyError, body: Buffer, ctx: DecodeContext): Error {
  // without a kind from the URL the only body read is DELETE's DeleteOptions
  const into = ctx.kind?.kind ?? 'DeleteOptions';
  if (err.typeMeta) {
    const version = err.typeMeta.apiVersion.split('/').pop();
    return errors.badRequest(`${err.typeMeta.kind} in version "${version}" cannot be handled as a ${into}: ${err.message}`);
  }
  return errors.badRequest(`the object provided is unrecognized (must be of type ${into}): ${err.message} (${summarize(body)})`);
}

export function createProtobufCodec(codec = new ProtobufCodec({ schema: loadProtoSchema() })): Codec {
  return {
    mediaType: MEDIA_TYPE,
    decode(body, ctx) {
      const defaults = ctx.kind ? { apiVersion: apiVersionOf(ctx.kind), kind: ctx.kind.kind } : undefined;
      if (defaults && !codec.messageFor(defaults.apiVersion, defaults.kind)) {
        // kube serves kinds without a protobuf message (custom resources) in JSON and YAML only
        throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${otherMediaTypes().join(', ')}`);
      }
      try {
        return codec.decodeObject(body, defaults);
      } catch (err) {
        if (err instanceof ProtobufBodyError) throw decodeFailure(err, body, ctx);
        throw err;
      }
    },
    canEncode: (value) => codec.canEncode(value),
    encode: (value) => codec.encodeObject(value),
    encodeFrame: (value) => codec.encodeWatchEvent(value as WatchEventValue),
  };
}

export const protobufCodec: Codec = createProtobufCodec();
