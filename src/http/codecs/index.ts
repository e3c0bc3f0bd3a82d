/**
 * The codecs served, in kube's preference order (the first is the default for bodies without a
 * Content-Type and for an Accept of any type). Protobuf (application/vnd.kubernetes.protobuf) joins here.
 */
import type { Codec } from './codec';
import { jsonCodec } from './json';
import { protobufCodec } from './protobuf';
import { yamlCodec } from './yaml';

export type { Codec, DecodeContext, EncodeOptions } from './codec';

export const codecs: readonly Codec[] = Object.freeze([jsonCodec, yamlCodec, protobufCodec]);

export function codecFor(mediaType: string): Codec | undefined {
  return codecs.find((c) => c.mediaType === mediaType);
}

export function mediaTypesServed(): string[] {
  return codecs.map((c) => c.mediaType);
}
