import { isIP } from 'node:net';
import yaml from 'js-yaml';
import { writeAtomically } from './pki';

export const KUBECONFIG_CONTEXT = 'ballast';

export interface KubeconfigOptions {
  /** https URL of the API server */
  server: string;
  /** PEM of the CA that signed the serving certificate */
  caCert: string;
}

/**
 * A kubeconfig for the admin: one cluster trusting our CA, one user without credentials (requests
 * are anonymous; every request is allowed until authentication exists), context `ballast` current.
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
          'certificate-authority-data': Buffer.from(opts.caCert, 'utf8').toString('base64'),
        },
      },
    ],
    users: [{ name: 'ballast-admin', user: {} }],
    contexts: [{ name: KUBECONFIG_CONTEXT, context: { cluster: KUBECONFIG_CONTEXT, user: 'ballast-admin' } }],
    'current-context': KUBECONFIG_CONTEXT,
    preferences: {},
  };
  return yaml.dump(config, { lineWidth: -1 });
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
