import os from 'node:os';
import path from 'node:path';
import { validateOidcFlags } from '../auth/authn/oidc';
import type { OidcFlags } from '../auth/authn/oidc';
import { admissionOptions, authenticationOptions, authorizationOptions } from './apiserver-auth';
import { auditConfig, auditOptions } from './apiserver-audit';
import type { AuditConfig } from '../audit/config';
import { limitOptions, versioningOptions } from './apiserver-limits';
import { apiServerNetworkOptions, etcdOptions } from './apiserver-storage';
import { option } from './define';
import { generalOptions, globalOptions, loggingConfig, loggingOptions } from './logging';
import type { LoggingConfig } from '../server/logging/config';
import { FeatureGates } from './feature-gates';
import { secureServingOptions } from './serving';
import { FlagError } from './types';
import { parseWatchCacheSizes } from '../cache/watch-caches';
import { normalizeStoragePrefix } from '../storage/prefixed-store';
import { parseServersOverrides } from '../storage/servers-overrides';
import type { ServersOverride } from '../storage/servers-overrides';
import { enabledAdmissionPlugins } from '../admission/plugins';
import { parseNamedCertKey, tlsCipherList } from '../server/tls-options';
import type { NamedCertKey } from '../server/tls-options';
import type { ParsedOptions } from './parse';
import type { OptionGroup } from './types';
import type { StorageMediaType } from '../storage/codec/storage-codec';

/** options that exist only in Ballast */
const ballastOptions: OptionGroup = Object.freeze({
  title: 'Ballast flags',
  options: [
    option('data-dir', 'string', 'directory for the embedded database, the generated certificates (pki/) and admin.kubeconfig', {
      defaultText: '$XDG_DATA_HOME/ballast or ~/.local/share/ballast',
      supported: true,
    }),
    option('inprocess-namespace-controller', 'bool', 'the API server finishes terminating namespaces itself (deletes their content, then removes the kubernetes finalizer): a stand-in for the namespace controller until the controller manager runs beside the API server; false leaves namespaces to the controller manager', {
      default: 'true',
      supported: true,
      hidden: true,
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
  /** the other storage flags of spec 2, 1.3 */
  readonly storage: StorageConfig;
  /** --service-cluster-ip-range (validated when the server starts) */
  readonly serviceClusterIPRange: string;
  /** --service-node-port-range */
  readonly serviceNodePortRange: { readonly min: number; readonly max: number };
  /** --encryption-provider-config */
  readonly encryptionProviderConfig?: string;
  /** --storage-media-type: the form new writes are stored in */
  readonly storageMediaType: StorageMediaType;
  /** 0 = compaction off */
  readonly compactionIntervalMs: number;
  readonly requestTimeoutMs: number;
  readonly minRequestTimeoutSeconds: number;
  readonly maxRequestsInflight: number;
  readonly maxMutatingRequestsInflight: number;
  /** --enable-priority-and-fairness: APF in place of the plain in-flight limits */
  readonly enablePriorityAndFairness: boolean;
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
    /** --api-audiences (default: the first issuer) */
    readonly apiAudiences: readonly string[];
    /** --enable-bootstrap-token-auth */
    readonly bootstrapTokens: boolean;
    /** the --service-account-* flags */
    readonly serviceAccounts: {
      /** --service-account-issuer: the first issues, all are accepted */
      readonly issuers: readonly string[];
      /** --service-account-key-file */
      readonly keyFiles: readonly string[];
      /** --service-account-signing-key-file; with no key files either, Ballast generates sa.key/sa.pub in --cert-dir */
      readonly signingKeyFile?: string;
      readonly jwksUri?: string;
      readonly lookup: boolean;
      /** 0 = no cap */
      readonly maxTokenExpirationSeconds: number;
      readonly extendTokenExpiration: boolean;
    };
    /** the --oidc-* flags as given (checked and defaulted by src/auth/authn/oidc.ts) */
    readonly oidc: OidcFlags;
    /** --authentication-token-webhook-config-file, -version, -cache-ttl */
    readonly tokenWebhook: { readonly configFile?: string; readonly version: 'v1' | 'v1beta1'; readonly cacheTtlMs: number };
    /** the --requestheader-* flags (front-proxy authentication); the lists as given, empty when unset */
    readonly requestHeader: {
      readonly clientCaFile?: string;
      readonly allowedNames: readonly string[];
      readonly usernameHeaders: readonly string[];
      readonly groupHeaders: readonly string[];
      readonly extraHeadersPrefix: readonly string[];
    };
  };
  /** --audit-* (spec 2, part 6) */
  readonly audit: AuditConfig;
  /** what callers may do (spec 2, part 5); checked against each other when the server starts */
  readonly authorization: {
    /** --authorization-mode, in order */
    readonly modes: readonly string[];
    /** --authorization-policy-file (ABAC) */
    readonly policyFile?: string;
    /** --authorization-webhook-config-file */
    readonly webhookConfigFile?: string;
    /** --authorization-webhook-version */
    readonly webhookVersion: 'v1' | 'v1beta1';
    /** --authorization-webhook-cache-authorized-ttl and -unauthorized-ttl, in milliseconds */
    readonly webhookAuthorizedTtlMs: number;
    readonly webhookUnauthorizedTtlMs: number;
  };
  /** admission (spec 2, 1.3) */
  readonly admission: {
    /** the plugins that run: the default set + --enable-admission-plugins - --disable-admission-plugins, in kube's order */
    readonly plugins: readonly string[];
    /** --admission-control-config-file */
    readonly configFile?: string;
    /** --default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds */
    readonly defaultNotReadyTolerationSeconds: number;
    readonly defaultUnreachableTolerationSeconds: number;
  };
  /** --allow-privileged: containers may ask for securityContext.privileged */
  readonly allowPrivileged: boolean;
  /** --profiling: /debug/pprof/ is served */
  readonly profiling: boolean;
  /** --etcd-count-metric-poll-period; 0 = off */
  readonly countMetricPollPeriodMs: number;
  /** --etcd-db-metric-poll-interval; 0 = off */
  readonly dbMetricPollIntervalMs: number;
  readonly verbosity: number;
  readonly loggingFormat: 'text' | 'json';
  /** -v, --vmodule, --logging-format and the klog file and header flags */
  readonly logging: LoggingConfig;
  /** --feature-gates resolved against kube's defaults (`featureGates.enabled('Name')`) */
  readonly featureGates: FeatureGates;
  /** --runtime-config as given (key -> value); resolved against the built-in kinds at start (src/api/runtime-config.ts) */
  readonly runtimeConfig: Readonly<Record<string, string>>;
  /** --advertise-address as given; unset = resolved at start from the bind address (src/server/master-service.ts) */
  readonly advertiseAddress?: string;
  /** --external-hostname; unset = the advertise address */
  readonly externalHostname?: string;
  /** --cors-allowed-origins (regular expressions, checked); empty = CORS off */
  readonly corsAllowedOrigins: readonly string[];
  /** --max-connection-bytes-per-sec; 0 = no limit */
  readonly maxConnectionBytesPerSec: number;
  /** --livez-grace-period */
  readonly livezGracePeriodMs: number;
  /** the APIServerIdentity lease: --identity-lease-duration-seconds, --identity-lease-renew-interval-seconds, and the gate */
  readonly identityLease: { readonly enabled: boolean; readonly durationSeconds: number; readonly renewIntervalSeconds: number };
  /** --enable-garbage-collector */
  readonly enableGarbageCollector: boolean;
  /** --inprocess-namespace-controller (Ballast): the registry's namespace finalizer stands in for the controller */
  readonly inprocessNamespaceController: boolean;
  /** the `kubernetes` service: --master-service-namespace, --endpoint-reconciler-type, --apiserver-count, --kubernetes-service-node-port */
  readonly masterService: {
    readonly namespace: string;
    readonly reconciler: 'lease' | 'master-count' | 'none';
    readonly apiServerCount: number;
    readonly nodePort: number;
  };
  /** the --kubelet-* flags: the connection to node agents (src/server/node-agent-client.ts) */
  readonly kubelet: {
    readonly certificateAuthority?: string;
    readonly clientCertificate?: string;
    readonly clientKey?: string;
    readonly preferredAddressTypes: readonly string[];
    readonly timeoutMs: number;
  };
  /** --egress-selector-config-file (only Direct transports are accepted) */
  readonly egressSelectorConfigFile?: string;
  /** flags given on the command line that Ballast parses but does not act on yet */
  readonly ignoredFlags: readonly string[];
}

export interface StorageConfig {
  /** --etcd-prefix, normalised (see normalizeStoragePrefix; '' = keys at the root) */
  readonly prefix: string;
  /** --etcd-servers-overrides */
  readonly overrides: readonly ServersOverride[];
  /** --event-ttl */
  readonly eventTtlMs: number;
  /** --delete-collection-workers (at least 1) */
  readonly deleteCollectionWorkers: number;
  /** --etcd-healthcheck-timeout */
  readonly healthcheckTimeoutMs: number;
  /** --etcd-cafile, --etcd-certfile, --etcd-keyfile: TLS of a postgres:// store, checked at start */
  readonly tls: { readonly caFile?: string; readonly certFile?: string; readonly keyFile?: string };
}

function storageConfig(parsed: ParsedOptions): StorageConfig {
  const certFile = parsed.string('etcd-certfile') || undefined;
  const keyFile = parsed.string('etcd-keyfile') || undefined;
  if (Boolean(certFile) !== Boolean(keyFile)) throw new FlagError('--etcd-certfile and --etcd-keyfile must be given together');
  return Object.freeze({
    prefix: normalizeStoragePrefix(parsed.string('etcd-prefix') ?? '/registry'),
    overrides: Object.freeze(parseServersOverrides(parsed.list('etcd-servers-overrides'))),
    eventTtlMs: parsed.number('event-ttl') ?? 3_600_000,
    deleteCollectionWorkers: Math.max(1, parsed.number('delete-collection-workers') ?? 1),
    healthcheckTimeoutMs: parsed.number('etcd-healthcheck-timeout') ?? 2000,
    tls: Object.freeze({ caFile: resolvedFile(parsed.string('etcd-cafile')), certFile: resolvedFile(certFile), keyFile: resolvedFile(keyFile) }),
  });
}

function portRange(text: string): { min: number; max: number } {
  const [min, max] = text.split('-').map(Number);
  return { min, max };
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

/** the service account and bootstrap token settings */
function serviceAccountConfig(parsed: ParsedOptions) {
  const issuers = parsed.list('service-account-issuer').filter((i) => i !== '');
  if (issuers.length === 0) issuers.push(DEFAULT_SERVICE_ACCOUNT_ISSUER);
  // kube's checks of the issuers: a name with ':' must be a URL, and none twice
  const seen = new Set<string>();
  for (const issuer of issuers) {
    if (issuer.includes(':') && !URL.canParse(issuer)) throw new FlagError(`service-account-issuer "${issuer}" contained a ':' but was not a valid URL`);
    if (seen.has(issuer)) throw new FlagError(`service-account-issuer "${issuer}" is already specified`);
    seen.add(issuer);
  }
  const audiences = parsed.list('api-audiences').filter((a) => a !== '');
  const maxMs = parsed.number('service-account-max-token-expiration') ?? 0;
  // kube's check: between an hour and 2^32 seconds when given
  if (maxMs !== 0 && (maxMs < 3_600_000 || maxMs / 1000 > 2 ** 32)) {
    throw new FlagError('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  }
  const keyFiles = parsed.list('service-account-key-file').filter((f) => f !== '');
  const signingKeyFile = parsed.string('service-account-signing-key-file') || undefined;
  // kube: verifying keys without a signing key cannot serve TokenRequest (Ballast generates both when neither is given)
  if (keyFiles.length > 0 && !signingKeyFile) throw new FlagError('service-account-signing-key-file and service-account-issuer are required flags');
  const jwksUri = parsed.string('service-account-jwks-uri') || undefined;
  if (jwksUri !== undefined && !/^https:\/\/[^/]/.test(jwksUri)) throw new FlagError(`service-account-jwks-uri requires https scheme, parsed as: ${jwksUri}`);
  return {
    apiAudiences: Object.freeze(audiences.length > 0 ? audiences : [issuers[0]]),
    bootstrapTokens: parsed.bool('enable-bootstrap-token-auth'),
    serviceAccounts: Object.freeze({
      issuers: Object.freeze(issuers),
      keyFiles: Object.freeze(keyFiles.map((f) => path.resolve(f))),
      signingKeyFile: resolvedFile(signingKeyFile),
      jwksUri,
      lookup: parsed.bool('service-account-lookup'),
      maxTokenExpirationSeconds: Math.floor(maxMs / 1000),
      extendTokenExpiration: parsed.bool('service-account-extend-token-expiration'),
    }),
  };
}

/** the OIDC, token webhook and request-header flags, as given */
function authenticatorFlags(parsed: ParsedOptions) {
  const list = (flag: string) => Object.freeze(parsed.list(flag).map((v) => v.trim()).filter((v) => v !== ''));
  const oidc: OidcFlags = Object.freeze({
      issuerUrl: parsed.string('oidc-issuer-url') || undefined,
      clientId: parsed.string('oidc-client-id') || undefined,
      caFile: resolvedFile(parsed.string('oidc-ca-file')),
      usernameClaim: parsed.string('oidc-username-claim') ?? 'sub',
      usernamePrefix: parsed.string('oidc-username-prefix') || undefined,
      groupsClaim: parsed.string('oidc-groups-claim') || undefined,
      groupsPrefix: parsed.string('oidc-groups-prefix') || undefined,
      requiredClaims: Object.freeze({ ...((parsed.value('oidc-required-claim') as Record<string, string> | undefined) ?? {}) }),
      signingAlgs: list('oidc-signing-algs'),
  });
  try {
    validateOidcFlags(oidc);
  } catch (err) {
    throw new FlagError((err as Error).message);
  }
  return {
    oidc,
    tokenWebhook: Object.freeze({
      configFile: resolvedFile(parsed.string('authentication-token-webhook-config-file')),
      version: parsed.string('authentication-token-webhook-version') === 'v1' ? ('v1' as const) : ('v1beta1' as const),
      cacheTtlMs: parsed.number('authentication-token-webhook-cache-ttl') ?? 120_000,
    }),
    requestHeader: Object.freeze({
      clientCaFile: resolvedFile(parsed.string('requestheader-client-ca-file')),
      allowedNames: list('requestheader-allowed-names'),
      usernameHeaders: list('requestheader-username-headers'),
      groupHeaders: list('requestheader-group-headers'),
      extraHeadersPrefix: list('requestheader-extra-headers-prefix'),
    }),
  };
}

/** kube's node address types, the values --kubelet-preferred-address-types takes */
export const NODE_ADDRESS_TYPES = Object.freeze(['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']);

/** the serving and network settings of spec 2, 1.3 and 8 beyond secure serving */
function networkConfig(parsed: ParsedOptions) {
  const origins = parsed.list('cors-allowed-origins').filter((o) => o !== '');
  for (const o of origins) {
    try {
      new RegExp(o);
    } catch (err) {
      throw new FlagError(`invalid argument "${o}" for "--cors-allowed-origins" flag: ${(err as Error).message}`);
    }
  }
  const serviceNodePorts = portRange(parsed.string('service-node-port-range') ?? '30000-32767');
  const nodePort = parsed.number('kubernetes-service-node-port') ?? 0;
  // kube's checks of the kubernetes service's node port
  if (nodePort < 0 || nodePort > 65535) {
    throw new FlagError(`--kubernetes-service-node-port ${nodePort} must be between 0 and 65535, inclusive. If 0, the Kubernetes master service will be of type ClusterIP.`);
  }
  if (nodePort > 0 && (nodePort < serviceNodePorts.min || nodePort > serviceNodePorts.max)) {
    throw new FlagError(`kubernetes service node port range ${serviceNodePorts.min}-${serviceNodePorts.max} doesn't contain ${nodePort}`);
  }
  const maxBytes = parsed.number('max-connection-bytes-per-sec') ?? 0;
  if (maxBytes < 0) throw new FlagError('--max-connection-bytes-per-sec must not be negative');
  const livez = parsed.number('livez-grace-period') ?? 0;
  if (livez < 0) throw new FlagError('--livez-grace-period can not be a negative value');
  const addressTypes = parsed.list('kubelet-preferred-address-types').filter((t) => t !== '');
  for (const t of addressTypes) {
    if (!NODE_ADDRESS_TYPES.includes(t)) throw new FlagError(`--kubelet-preferred-address-types: unknown address type "${t}" (known: ${NODE_ADDRESS_TYPES.join(', ')})`);
  }
  const gates = (parsed.value('feature-gates') as Record<string, boolean> | undefined) ?? {};
  const reconciler = parsed.string('endpoint-reconciler-type') || 'lease';
  return {
    advertiseAddress: parsed.string('advertise-address') || undefined,
    externalHostname: parsed.string('external-hostname') || undefined,
    corsAllowedOrigins: Object.freeze(origins),
    maxConnectionBytesPerSec: maxBytes,
    livezGracePeriodMs: livez,
    identityLease: Object.freeze({
      enabled: gates.APIServerIdentity !== false,
      durationSeconds: parsed.number('identity-lease-duration-seconds') ?? 3600,
      renewIntervalSeconds: parsed.number('identity-lease-renew-interval-seconds') ?? 10,
    }),
    enableGarbageCollector: parsed.bool('enable-garbage-collector'),
    inprocessNamespaceController: parsed.bool('inprocess-namespace-controller'),
    masterService: Object.freeze({
      namespace: parsed.string('master-service-namespace') || 'default',
      reconciler: reconciler as 'lease' | 'master-count' | 'none',
      apiServerCount: parsed.number('apiserver-count') ?? 1,
      nodePort,
    }),
    kubelet: Object.freeze({
      certificateAuthority: resolvedFile(parsed.string('kubelet-certificate-authority')),
      clientCertificate: resolvedFile(parsed.string('kubelet-client-certificate')),
      clientKey: resolvedFile(parsed.string('kubelet-client-key')),
      preferredAddressTypes: Object.freeze(addressTypes.length > 0 ? addressTypes : [...NODE_ADDRESS_TYPES]),
      timeoutMs: parsed.number('kubelet-timeout') ?? 5000,
    }),
    egressSelectorConfigFile: resolvedFile(parsed.string('egress-selector-config-file')),
  };
}

/** the issuer of service account tokens when --service-account-issuer is not given */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

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
  const featureGates = new FeatureGates((parsed.value('feature-gates') as Record<string, boolean> | undefined) ?? {});
  // kube serves APF only when both the flag and the APIPriorityAndFairness gate are on
  const enablePriorityAndFairness = parsed.bool('enable-priority-and-fairness') && featureGates.enabled('APIPriorityAndFairness');
  const maxRequestsInflight = parsed.number('max-requests-inflight') ?? 400;
  const maxMutatingRequestsInflight = parsed.number('max-mutating-requests-inflight') ?? 200;
  if (enablePriorityAndFairness && maxRequestsInflight + maxMutatingRequestsInflight <= 0) {
    // APF shares this sum among its priority levels (kube's server run options refuse it the same way)
    throw new FlagError('--max-requests-inflight plus --max-mutating-requests-inflight must be positive when --enable-priority-and-fairness is true');
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
    storage: storageConfig(parsed),
    encryptionProviderConfig: resolvedFile(parsed.string('encryption-provider-config')),
    storageMediaType: (parsed.string('storage-media-type') || 'application/json') as StorageMediaType,
    serviceClusterIPRange: parsed.string('service-cluster-ip-range') || '10.96.0.0/12',
    serviceNodePortRange: Object.freeze(portRange(parsed.string('service-node-port-range') ?? '30000-32767')),
    compactionIntervalMs: parsed.number('etcd-compaction-interval') ?? 300_000,
    requestTimeoutMs: parsed.number('request-timeout') ?? 60_000,
    minRequestTimeoutSeconds: parsed.number('min-request-timeout') ?? 1800,
    maxRequestsInflight,
    maxMutatingRequestsInflight,
    enablePriorityAndFairness,
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
      ...serviceAccountConfig(parsed),
      ...authenticatorFlags(parsed),
    }),
    audit: auditConfig(parsed),
    authorization: Object.freeze({
      modes: Object.freeze(parsed.list('authorization-mode').filter((m) => m !== '')),
      policyFile: resolvedFile(parsed.string('authorization-policy-file')),
      webhookConfigFile: resolvedFile(parsed.string('authorization-webhook-config-file')),
      webhookVersion: parsed.string('authorization-webhook-version') === 'v1' ? ('v1' as const) : ('v1beta1' as const),
      webhookAuthorizedTtlMs: parsed.number('authorization-webhook-cache-authorized-ttl') ?? 300_000,
      webhookUnauthorizedTtlMs: parsed.number('authorization-webhook-cache-unauthorized-ttl') ?? 30_000,
    }),
    admission: Object.freeze({
      plugins: Object.freeze(enabledAdmissionPlugins(
        parsed.list('enable-admission-plugins').filter((p) => p !== ''),
        parsed.list('disable-admission-plugins').filter((p) => p !== ''),
      )),
      configFile: resolvedFile(parsed.string('admission-control-config-file')),
      defaultNotReadyTolerationSeconds: parsed.number('default-not-ready-toleration-seconds') ?? 300,
      defaultUnreachableTolerationSeconds: parsed.number('default-unreachable-toleration-seconds') ?? 300,
    }),
    allowPrivileged: parsed.bool('allow-privileged'),
    profiling: parsed.bool('profiling'),
    countMetricPollPeriodMs: parsed.number('etcd-count-metric-poll-period') ?? 60_000,
    dbMetricPollIntervalMs: parsed.number('etcd-db-metric-poll-interval') ?? 30_000,
    verbosity: parsed.number('v') ?? 0,
    loggingFormat: parsed.string('logging-format') === 'json' ? 'json' : 'text',
    logging: loggingConfig(parsed),
    featureGates,
    runtimeConfig: Object.freeze({ ...((parsed.value('runtime-config') as Record<string, string> | undefined) ?? {}) }),
    ...networkConfig(parsed),
    ignoredFlags: Object.freeze(parsed.acceptedButIgnored()),
  });
}
