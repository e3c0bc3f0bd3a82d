/** kube's protobuf encoding of API objects: schema loading, the codec, and the envelope helpers. */
export { ProtobufBodyError, ProtobufCodec } from './codec';
export type { ProtobufCodecOptions, TypeMetaValue, WatchEventValue } from './codec';
export { ProtobufDecodeError } from './decode';
export { ProtobufEncodeError } from './encode';
export { MAGIC, hasMagic, readEnvelope, splitFrames, writeEnvelope } from './envelope';
export type { Envelope } from './envelope';
export { defaultProtoDir, loadProtoSchema } from './schema';
export type { FieldPlan, MessagePlan, ProtoSchema } from './schema';
