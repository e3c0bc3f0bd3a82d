import os from 'node:os';
import path from 'node:path';
import { admissionOptions, authenticationOptions, authorizationOptions } from './apiserver-auth';
import { auditOptions } from './apiserver-audit';
import { limitOptions, versioningOptions } from './apiserver-limits';
import { apiServerNetworkOptions, etcdOptions } from './apiserver-storage';
import { option } from './define';
import { generalOptions, globalOptions, loggingOptions } from './logging';
import { secureServingOptions } from './serving';
import { FlagError } from './types';
import { parseWatchCacheSizes } from '../cache/watch-caches';
import { parseNamedCertKey, tlsCipherList } from '../server/tls-options';
import type { NamedCertKey } from '../server/tls-options';
import type { ParsedOptions } from './parse';
import type { OptionGroup } from './types';

/** options that exist only in Ballast */
const ballastOptions: OptionGroup = Object.freeze({
  title: 'Ballast flags',
  options: [
    option('data-dir', 'string', 'directory for the embedded database, the generated certificates (pki/) and admin.kubeconfig', {
      defaultText: '$XDG_DATA_HOME/ballast or ~/.local/share/ballast',
      supported: true,
    }),
  ],
});

/** every option of `ballast apiserver`, in --help order */
export const apiServerOptionGroups: readonly OptionGroup[] = Object.freeze([
  globalOptions,
  ballastOptions,
  secureServingOptions({ securePort: '6443', certDirText: '<data-dir>/pki' }),
  apiServerNetworkOptions,
  etcdOptions,
  limitOptions,
  authenticationOptions,
  authorizationOptions,
  admissionOptions,
  auditOptions,
  versioningOptions,
  loggingOptions,
  generalOptions,
]);

/** the settings `ballast apiserver` acts on, resolved from the command line and environment */
export interface ApiServerConfig {
  readonly dataDir: string;
  readonly bindAddress: string;
  readonly securePort: number;
  readonly certDir: string;
  readonly tlsCertFile?: string;
  readonly tlsPrivateKeyFile?: string;
  /** --tls-min-version (Go's name, e.g. VersionTLS12); unset keeps the default */
  readonly tlsMinVersion?: string;
  /** --tls-cipher-suites (IANA names, checked); empty keeps the defaults */
  readonly tlsCipherSuites: readonly string[];
  /** --tls-sni-cert-key, in flag order */
  readonly tlsSniCertKeys: readonly NamedCertKey[];
  /** --http2-max-streams-per-connection; 0 is Go's default (250) */
  readonly http2MaxStreamsPerConnection: number;
  /** --goaway-chance (0 to 0.02) */
  readonly goawayChance: number;
  /** storage URL (sqlite:///... or postgres://...) */
  readonly storageUrl: string;
  /** --encryption-provider-config */
  readonly encryptionProviderConfig?: string;
  /** 0 = compaction off */
  readonly compactionIntervalMs: number;
  readonly requestTimeoutMs: number;
  readonly minRequestTimeoutSeconds: number;
  readonly maxRequestsInflight: number;
  readonly maxMutatingRequestsInflight: number;
  readonly shutdownDelayMs: number;
  /** --watch-cache, --default-watch-cache-size, --watch-cache-sizes (resource[.group] -> size) */
  readonly watchCache: { readonly enabled: boolean; readonly defaultSize: number; readonly sizes: ReadonlyMap<string, number> };
  /** --proxy-client-cert-file and --proxy-client-key-file (both or neither) */
  readonly proxyClientCertFile?: string;
  readonly proxyClientKeyFile?: string;
  /** --enable-aggregator-routing */
  readonly enableAggregatorRouting: boolean;
  /** the front-proxy header names sent to extension servers (the first of each --requestheader-* flag, kube's X-Remote-* by default) */
  readonly requestHeaders: { readonly user: string; readonly group: string; readonly extraPrefix: string };
  /** who callers are (spec 2, part 5) */
  readonly authentication: {
    /** --anonymous-auth */
    readonly anonymous: boolean;
    /** --client-ca-file; unset = the generated CA when Ballast generates its serving certificate */
    readonly clientCaFile?: string;
    /** --token-auth-file */
    readonly tokenAuthFile?: string;
  };
  readonly verbosity: number;
  readonly loggingFormat: 'text' | 'json';
  /** --runtime-config as given (key -> value); resolved against the built-in kinds at start (src/api/runtime-config.ts) */
  readonly runtimeConfig: Readonly<Record<string, string>>;
  /** flags given on the command line that Ballast parses but does not act on yet */
  readonly ignoredFlags: readonly string[];
}

function resolvedFile(value: string | undefined): string | undefined {
  return value ? path.resolve(value) : undefined;
}

/** the per-user data folder: $XDG_DATA_HOME/ballast, else ~/.local/share/ballast */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const xdg = env.XDG_DATA_HOME;
  // The XDG base directory spec says relative values are to be ignored.
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'ballast');
  return path.join(home, '.local', 'share', 'ballast');
}

/** resolve parsed options into the server's settings; throws FlagError on inconsistent flags */
export function apiServerConfig(parsed: ParsedOptions, env: NodeJS.ProcessEnv = process.env): ApiServerConfig {
  if (parsed.args.length > 0) {
    // kube-apiserver refuses positional arguments the same way
    throw new FlagError(`"ballast apiserver" does not take any arguments, got ${JSON.stringify(parsed.args)}`);
  }
  const dataDir = path.resolve(parsed.string('data-dir') || defaultDataDir(env));
  const certFile = parsed.string('tls-cert-file') || undefined;
  const keyFile = parsed.string('tls-private-key-file') || undefined;
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  }
  const cipherSuites = parsed.list('tls-cipher-suites').filter((c) => c.trim() !== '');
  // unknown names stop start-up here, with kube's message
  tlsCipherList(cipherSuites);
  const proxyCert = parsed.string('proxy-client-cert-file') || undefined;
  const proxyKey = parsed.string('proxy-client-key-file') || undefined;
  if (Boolean(proxyCert) !== Boolean(proxyKey)) {
    throw new FlagError('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  }
  const firstOf = (flag: string, fallback: string): string => parsed.list(flag).find((h) => h !== '') ?? fallback;
  const servers = parsed.list('etcd-servers').filter((s) => s !== '');
  if (servers.length > 1) {
    // Several etcd members make sense for etcd; one SQL database is one URL.
    throw new FlagError(`--etcd-servers takes one storage URL in Ballast, got ${servers.length}`);
  }
  return Object.freeze({
    dataDir,
    bindAddress: parsed.string('bind-address') || '0.0.0.0',
    securePort: parsed.number('secure-port') ?? 6443,
    certDir: path.resolve(parsed.string('cert-dir') || path.join(dataDir, 'pki')),
    tlsCertFile: certFile && path.resolve(certFile),
    tlsPrivateKeyFile: keyFile && path.resolve(keyFile),
    tlsMinVersion: parsed.string('tls-min-version') || undefined,
    tlsCipherSuites: Object.freeze(cipherSuites),
    tlsSniCertKeys: Object.freeze(
      parsed.list('tls-sni-cert-key').filter((v) => v !== '').map((v) => {
        const n = parseNamedCertKey(v);
        return Object.freeze({ ...n, certFile: path.resolve(n.certFile), keyFile: path.resolve(n.keyFile) });
      }),
    ),
    http2MaxStreamsPerConnection: parsed.number('http2-max-streams-per-connection') ?? 0,
    goawayChance: parsed.number('goaway-chance') ?? 0,
    storageUrl: servers[0] ?? `sqlite://${path.join(dataDir, 'state.db')}`,
    encryptionProviderConfig: resolvedFile(parsed.string('encryption-provider-config')),
    compactionIntervalMs: parsed.number('etcd-compaction-interval') ?? 300_000,
    requestTimeoutMs: parsed.number('request-timeout') ?? 60_000,
    minRequestTimeoutSeconds: parsed.number('min-request-timeout') ?? 1800,
    maxRequestsInflight: parsed.number('max-requests-inflight') ?? 400,
    maxMutatingRequestsInflight: parsed.number('max-mutating-requests-inflight') ?? 200,
    shutdownDelayMs: parsed.number('shutdown-delay-duration') ?? 0,
    watchCache: Object.freeze({
      enabled: parsed.bool('watch-cache'),
      defaultSize: parsed.number('default-watch-cache-size') ?? 100,
      sizes: parseWatchCacheSizes(parsed.list('watch-cache-sizes')),
    }),
    proxyClientCertFile: proxyCert && path.resolve(proxyCert),
    proxyClientKeyFile: proxyKey && path.resolve(proxyKey),
    enableAggregatorRouting: parsed.bool('enable-aggregator-routing'),
    requestHeaders: Object.freeze({
      user: firstOf('requestheader-username-headers', 'X-Remote-User'),
      group: firstOf('requestheader-group-headers', 'X-Remote-Group'),
      extraPrefix: firstOf('requestheader-extra-headers-prefix', 'X-Remote-Extra-'),
    }),
    authentication: Object.freeze({
      anonymous: parsed.bool('anonymous-auth'),
      clientCaFile: resolvedFile(parsed.string('client-ca-file')),
      tokenAuthFile: resolvedFile(parsed.string('token-auth-file')),
    }),
    verbosity: parsed.number('v') ?? 0,
    loggingFormat: parsed.string('logging-format') === 'json' ? 'json' : 'text',
    runtimeConfig: Object.freeze({ ...((parsed.value('runtime-config') as Record<string, string> | undefined) ?? {}) }),
    ignoredFlags: Object.freeze(parsed.acceptedButIgnored()),
  });
}
