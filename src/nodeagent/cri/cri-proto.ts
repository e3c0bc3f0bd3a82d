/**
 * The CRI v1 service definitions, loaded once from proto/cri/api.proto (see its header for where it
 * comes from). Field names are camelCase, 64-bit integers decimal strings (nanosecond timestamps
 * exceed 2^53), enums their names ('CONTAINER_RUNNING'), and absent fields their defaults: the types
 * in generated/ (proto-loader-gen-types, see generated/README.md) describe exactly this shape.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType } from './generated/api';

const PROTO_FILE = path.join('proto', 'cri', 'api.proto');

export const LOADER_OPTIONS: protoLoader.Options = Object.freeze({
  keepCase: false,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
});

/** the repository root holding proto/: found upwards from this file (src/ or dist/src/) */
function protoPath(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, PROTO_FILE);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`cannot find ${PROTO_FILE} above ${__dirname}`);
  }
}

let loaded: ProtoGrpcType['runtime']['v1'] | undefined;

/** the `runtime.v1` package: RuntimeService, ImageService and the message types */
export function criPackage(): ProtoGrpcType['runtime']['v1'] {
  if (loaded === undefined) {
    const definition = protoLoader.loadSync(protoPath(), LOADER_OPTIONS);
    loaded = (grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType).runtime.v1;
  }
  return loaded;
}
