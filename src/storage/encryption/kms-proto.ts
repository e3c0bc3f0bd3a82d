/**
 * kube's KMS v1 plugin API (k8s.io/apiserver .../envelope/v1beta1/service.proto), package
 * `v1beta1`, as a protobufjs descriptor so that nothing has to be found on disk at run time:
 *
 *   service KeyManagementService {
 *     rpc Version(VersionRequest) returns (VersionResponse);
 *     rpc Decrypt(DecryptRequest) returns (DecryptResponse);
 *     rpc Encrypt(EncryptRequest) returns (EncryptResponse);
 *   }
 *   message VersionRequest  { string version = 1; }
 *   message VersionResponse { string version = 1; string runtime_name = 2; string runtime_version = 3; }
 *   message DecryptRequest  { string version = 1; bytes cipher = 2; }
 *   message DecryptResponse { bytes plain = 1; }
 *   message EncryptRequest  { string version = 1; bytes plain = 2; }
 *   message EncryptResponse { bytes cipher = 1; }
 */
import type { INamespace } from 'protobufjs';

const field = (type: string, id: number) => ({ type, id });

export const KMS_V1BETA1: INamespace = {
  nested: {
    v1beta1: {
      nested: {
        KeyManagementService: {
          methods: {
            Version: { requestType: 'VersionRequest', responseType: 'VersionResponse' },
            Decrypt: { requestType: 'DecryptRequest', responseType: 'DecryptResponse' },
            Encrypt: { requestType: 'EncryptRequest', responseType: 'EncryptResponse' },
          },
        },
        VersionRequest: { fields: { version: field('string', 1) } },
        VersionResponse: { fields: { version: field('string', 1), runtime_name: field('string', 2), runtime_version: field('string', 3) } },
        DecryptRequest: { fields: { version: field('string', 1), cipher: field('bytes', 2) } },
        DecryptResponse: { fields: { plain: field('bytes', 1) } },
        EncryptRequest: { fields: { version: field('string', 1), plain: field('bytes', 2) } },
        EncryptResponse: { fields: { cipher: field('bytes', 1) } },
      },
    },
  },
};
