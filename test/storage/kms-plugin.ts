/**
 * A KMS v1 plugin for tests: kube's v1beta1 KeyManagementService on a Unix socket, "encrypting"
 * DEKs with a local AES-GCM key and counting its calls. stop() takes it down (to test a plugin
 * that is gone); start() brings it back on the same socket.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { KMS_V1BETA1 } from '../../src/storage/encryption/kms-proto';

export interface TestKmsPlugin {
  endpoint: string;
  calls: { version: number; encrypt: number; decrypt: number };
  start(): Promise<void>;
  stop(): Promise<void>;
}

type Handler = (call: { request: Record<string, unknown> }, cb: (err: grpc.ServiceError | null, res?: unknown) => void) => void;

export function testKmsPlugin(socket: string, opts: { version?: string } = {}): TestKmsPlugin {
  const key = crypto.randomBytes(32);
  const calls = { version: 0, encrypt: 0, decrypt: 0 };
  const pkg = grpc.loadPackageDefinition(protoLoader.fromJSON(KMS_V1BETA1, { keepCase: true, defaults: true })) as unknown as {
    v1beta1: { KeyManagementService: grpc.ServiceClientConstructor };
  };
  const handlers: Record<string, Handler> = {
    Version: (_call, cb) => {
      calls.version++;
      cb(null, { version: opts.version ?? 'v1beta1', runtime_name: 'test-kms', runtime_version: '0.1.0' });
    },
    Encrypt: (call, cb) => {
      calls.encrypt++;
      const iv = crypto.randomBytes(12);
      const c = crypto.createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(call.request.plain as Buffer), c.final()]);
      cb(null, { cipher: Buffer.concat([iv, body, c.getAuthTag()]) });
    },
    Decrypt: (call, cb) => {
      calls.decrypt++;
      try {
        const data = call.request.cipher as Buffer;
        const d = crypto.createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
        d.setAuthTag(data.subarray(data.length - 16));
        cb(null, { plain: Buffer.concat([d.update(data.subarray(12, data.length - 16)), d.final()]) });
      } catch {
        cb({ name: 'Error', message: 'bad cipher', code: grpc.status.INVALID_ARGUMENT, details: 'cannot decrypt', metadata: new grpc.Metadata() });
      }
    },
  };
  let server: grpc.Server | undefined;
  const plugin: TestKmsPlugin = {
    endpoint: `unix://${socket}`,
    calls,
    start: () =>
      new Promise((resolve, reject) => {
        fs.rmSync(socket, { force: true });
        server = new grpc.Server();
        server.addService(pkg.v1beta1.KeyManagementService.service, handlers as unknown as grpc.UntypedServiceImplementation);
        server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
      }),
    stop: async () => {
      server?.forceShutdown();
      server = undefined;
      fs.rmSync(socket, { force: true });
    },
  };
  return plugin;
}
