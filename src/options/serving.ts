import { between, oneOf, option } from './define';
import type { OptionGroup } from './types';

const TLS_VERSIONS = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'];

/** HTTPS serving options shared by every component that serves (spec 2, 1.2 and --secure-port) */
export function secureServingOptions(defaults: {
  securePort: string;
  certDirText: string;
  /** a port of 0 switches serving off (the controller manager and scheduler allow it) */
  portZeroDisables?: boolean;
  /** the component's own words for --cert-dir */
  certDirDescription?: string;
}): OptionGroup {
  return Object.freeze({
    title: 'Secure serving flags',
    options: [
      option('bind-address', 'ip', 'address to listen on for HTTPS; 0.0.0.0 or :: (or empty) listens on every interface', {
        default: '0.0.0.0',
        supported: true,
      }),
      option('secure-port', 'int', defaults.portZeroDisables ? 'port to serve HTTPS on; 0 means no HTTPS serving' : 'port to serve HTTPS on; it cannot be switched off', {
        default: defaults.securePort,
        supported: true,
        validate: between(defaults.portZeroDisables ? 0 : 1, 65535),
      }),
      option('cert-dir', 'string', defaults.certDirDescription ?? 'directory holding the TLS certificates; when no certificate and key files are given, a CA and a serving certificate are generated here and reused on later starts', {
        defaultText: defaults.certDirText,
        supported: true,
      }),
      option('tls-cert-file', 'string', 'PEM serving certificate, followed by any intermediate and CA certificates; without it (and its key) a self-signed pair is generated in --cert-dir', {
        supported: true,
      }),
      option('tls-private-key-file', 'string', 'PEM private key of --tls-cert-file', { supported: true }),
      option('tls-sni-cert-key', 'namedCertKey', 'a certificate and key pair served to clients asking (SNI) for the given names, as "cert,key" or "cert,key:*.example.com,example.com"; without names the certificate\'s common name and DNS names decide. Repeatable: exact names beat wildcards, explicit names beat the certificate\'s, earlier flags beat later ones; no match gets the default certificate', {
        default: '',
        supported: true,
      }),
      option('tls-min-version', 'string', `lowest TLS version accepted: ${TLS_VERSIONS.join(', ')}; empty is TLS 1.2`, {
        validate: (v) => (v === '' ? undefined : oneOf(...TLS_VERSIONS)(v)),
        supported: true,
      }),
      option('tls-cipher-suites', 'stringSlice', 'cipher suites allowed for TLS 1.2 and below (IANA names, mapped to OpenSSL\'s); insecure ones are accepted with a warning, unknown ones stop start-up; TLS 1.3 suites are always on; empty keeps the defaults', {
        supported: true,
      }),
    ],
  });
}
