/**
 * The --kubelet-* flags are for the API server's connection to node agents (logs, exec, proxy),
 * which a later issue builds. Until then they are checked at start, so a bad value stops the
 * server now rather than later: the files must be readable PEM, the certificate and key given
 * together. The address types are checked while the flags are parsed (src/options/apiserver.ts).
 */
import { readFlagFile } from '../util/files';
import type { ApiServerConfig } from '../options/apiserver';

export function checkKubeletOptions(k: ApiServerConfig['kubelet']): void {
  if (Boolean(k.clientCertificate) !== Boolean(k.clientKey)) {
    throw new Error('--kubelet-client-certificate and --kubelet-client-key must be given together');
  }
  const pem = (file: string | undefined, flag: string, label: RegExp) => {
    if (!file) return;
    const text = readFlagFile(file, flag);
    if (!label.test(text)) throw new Error(`${flag} ${file}: no PEM data found`);
  };
  pem(k.certificateAuthority, '--kubelet-certificate-authority', /-----BEGIN CERTIFICATE-----/);
  pem(k.clientCertificate, '--kubelet-client-certificate', /-----BEGIN CERTIFICATE-----/);
  pem(k.clientKey, '--kubelet-client-key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/);
}
