import { isIP } from 'node:net';
import yaml from 'js-yaml';
import { writeAtomically } from './pki';

export const KUBECONFIG_CONTEXT = 'ballast';

export interface KubeconfigOptions {
  /** https URL of the API server */
  server: string;
  /** PEM of the CA that signed the serving certificate */
  caCert: string;
  /** the admin's client certificate and key (PEM) */
  client: { cert: string; key: string };
}

/**
 * A kubeconfig for the admin: one cluster trusting our CA, one user holding the admin client
 * certificate, context `ballast` current. (kubectl prompts for a user name when a user has no
 * credential at all. The server does not ask for client certificates yet, so requests are
 * anonymous and every request is allowed until authentication exists.)
 */
export function renderKubeconfig(opts: KubeconfigOptions): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: KUBECONFIG_CONTEXT,
        cluster: {
          server: opts.server,
          'certificate-authority-data': b64(opts.caCert),
        },
      },
    ],
    users: [
      {
        name: 'ballast-admin',
        user: {
          'client-certificate-data': b64(opts.client.cert),
          'client-key-data': b64(opts.client.key),
        },
      },
    ],
    contexts: [{ name: KUBECONFIG_CONTEXT, context: { cluster: KUBECONFIG_CONTEXT, user: 'ballast-admin' } }],
    'current-context': KUBECONFIG_CONTEXT,
    preferences: {},
  };
  return yaml.dump(config, { lineWidth: -1 });
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** write the kubeconfig, readable by its owner only (it will hold credentials once they exist) */
export function writeKubeconfig(file: string, opts: KubeconfigOptions): void {
  writeAtomically(file, renderKubeconfig(opts), 0o600);
}

/** true for addresses meaning "every interface" */
export function isUnspecified(address: string): boolean {
  return address === '' || address === '0.0.0.0' || address === '::' || /^0+(:0+)*$/.test(address);
}

/** the URL clients should use: the bind address when it is specific, else loopback */
export function serverUrl(bindAddress: string, port: number): string {
  const host = isUnspecified(bindAddress) ? '127.0.0.1' : bindAddress;
  return `https://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
