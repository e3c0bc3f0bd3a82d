/**
 * A client of a KMS v1 plugin: kube's `v1beta1.KeyManagementService` gRPC service over a Unix
 * socket (Version, Encrypt, Decrypt). As kube does, the API version is checked before the first
 * Encrypt or Decrypt (and at start-up, see kms-health.ts), every call has the provider's timeout as
 * its deadline, and errors read as Go's gRPC errors (`rpc error: code = Unavailable desc = ...`).
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { KMS_V1BETA1 } from './kms-proto';

/** the only KMS plugin API version kube's v1 provider speaks */
export const KMS_API_VERSION = 'v1beta1';

export interface KmsVersion {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
}

/** what the envelope provider needs from a plugin (tests substitute their own) */
export interface KmsService {
  version(): Promise<KmsVersion>;
  encrypt(plain: Buffer): Promise<Buffer>;
  decrypt(cipher: Buffer): Promise<Buffer>;
  close(): void;
}

export interface GrpcKmsServiceOptions {
  /** `unix:///path/to/socket` */
  endpoint: string;
  /** deadline of each call */
  timeoutMs: number;
}

type Callback<T> = (err: grpc.ServiceError | null, value?: T) => void;
interface KmsClient extends grpc.Client {
  Version(req: { version: string }, options: grpc.CallOptions, cb: Callback<{ version: string; runtime_name: string; runtime_version: string }>): void;
  Encrypt(req: { version: string; plain: Buffer }, options: grpc.CallOptions, cb: Callback<{ cipher: Buffer }>): void;
  Decrypt(req: { version: string; cipher: Buffer }, options: grpc.CallOptions, cb: Callback<{ plain: Buffer }>): void;
}

let clientClass: grpc.ServiceClientConstructor | undefined;

function kmsClientClass(): grpc.ServiceClientConstructor {
  if (!clientClass) {
    const definition = protoLoader.fromJSON(KMS_V1BETA1, { keepCase: true, defaults: true });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { v1beta1: { KeyManagementService: grpc.ServiceClientConstructor } };
    clientClass = pkg.v1beta1.KeyManagementService;
  }
  return clientClass;
}

/** Go's names of the gRPC status codes (codes.Code.String()) */
const CODE_NAMES = [
  'OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied',
  'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated',
];

/** a failed call, worded as grpc-go's status error */
export class KmsCallError extends Error {
  constructor(readonly code: number, details: string) {
    super(`rpc error: code = ${CODE_NAMES[code] ?? `Code(${code})`} desc = ${details}`);
    this.name = 'KmsCallError';
  }
}

export class GrpcKmsService implements KmsService {
  readonly #client: KmsClient;
  readonly #timeoutMs: number;
  #versionChecked = false;

  constructor(opts: GrpcKmsServiceOptions) {
    const Client = kmsClientClass();
    this.#client = new Client(opts.endpoint, grpc.credentials.createInsecure()) as unknown as KmsClient;
    this.#timeoutMs = opts.timeoutMs;
  }

  #call<Req, Res>(method: 'Version' | 'Encrypt' | 'Decrypt', req: Req): Promise<Res> {
    return new Promise((resolve, reject) => {
      const options: grpc.CallOptions = { deadline: Date.now() + this.#timeoutMs };
      const cb: Callback<Res> = (err, value) => (err ? reject(new KmsCallError(err.code, err.details || err.message)) : resolve(value as Res));
      (this.#client[method] as unknown as (r: Req, o: grpc.CallOptions, c: Callback<Res>) => void).call(this.#client, req, options, cb);
    });
  }

  async version(): Promise<KmsVersion> {
    let res: { version: string; runtime_name: string; runtime_version: string };
    try {
      res = await this.#call('Version', { version: KMS_API_VERSION });
    } catch (err) {
      throw new Error(`failed get version from remote KMS provider: ${(err as Error).message}`);
    }
    if (res.version !== KMS_API_VERSION) throw new Error(`KMS provider api version ${res.version} is not supported, only ${KMS_API_VERSION} is supported now`);
    this.#versionChecked = true;
    return { version: res.version, runtimeName: res.runtime_name, runtimeVersion: res.runtime_version };
  }

  async #checked(): Promise<void> {
    if (!this.#versionChecked) await this.version();
  }

  async encrypt(plain: Buffer): Promise<Buffer> {
    await this.#checked();
    const res = await this.#call<unknown, { cipher: Buffer }>('Encrypt', { version: KMS_API_VERSION, plain });
    return Buffer.from(res.cipher);
  }

  async decrypt(cipher: Buffer): Promise<Buffer> {
    await this.#checked();
    const res = await this.#call<unknown, { plain: Buffer }>('Decrypt', { version: KMS_API_VERSION, cipher });
    return Buffer.from(res.plain);
  }

  close(): void {
    this.#client.close();
  }
}
