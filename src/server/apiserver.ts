import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtinKinds } from '../api/kinds/index';
import { createAggregator } from '../aggregator/aggregator';
import type { Aggregator } from '../aggregator/aggregator';
import { builtinBootstrapObjects } from '../api/kinds/bootstrap';
import { createRegistry } from '../api/registry/index';
import { customResources } from '../api/crd/index';
import type { CustomResources } from '../api/crd/index';
import { AlwaysAllowAuthorizer, accessReviewKinds, withAccessReviews } from '../api/reviews/index';
import { Scheme } from '../api/scheme';
import { withVirtualKinds } from '../api/virtual/index';
import { RuntimeConfigError, filterByRuntimeConfig } from '../api/runtime-config';
import { FlagError } from '../options/types';
import { createApiServerApp } from '../http/app';
import { authenticatorChain } from '../auth/authenticator';
import type { RequestAuthenticator } from '../auth/authenticator';
import { X509Authenticator } from '../auth/authn/x509';
import { TokenFileAuthenticator, loadTokenFile } from '../auth/authn/token-file';
import { BearerTokenAuthenticator } from '../auth/authn/bearer';
import type { TokenAuthenticator } from '../api/reviews/authenticator';
import { startServer } from '../http/server';
import type { ApiListener } from '../http/server';
import { servingTlsPolicy } from './tls-options';
import type { ServingTlsPolicy } from './tls-options';
import { definitions } from '../schema/index';
import { startCompactor } from '../storage/compactor';
import { lockStore, openStore } from '../storage/open';
import { loadEncryptionConfig } from '../storage/encryption/config';
import { EncryptingStore } from '../storage/encryption/encrypting-store';
import { defaultComponentProbes } from './component-probes';
import { isUnspecified, serverUrl, writeKubeconfig } from './kubeconfig';
import { ensureAdminClientPki, ensureServingPki } from './pki';
import { versionInfo } from './version';
import type { Logger } from 'pino';
import type { Store } from '../storage/store';
import type { ApiServerConfig } from '../options/apiserver';
import type { ServingPki } from './pki';

export interface StartApiServerOptions {
  config: ApiServerConfig;
  logger: Logger;
}

export interface RunningApiServer {
  /** the https URL clients use */
  readonly url: string;
  readonly kubeconfigPath: string;
  /**
   * Graceful shutdown, in kube-apiserver's order: /readyz starts failing at once, the server keeps
   * serving for --shutdown-delay-duration, then stops accepting connections, lets in-flight
   * requests finish (watches are ended), and closes the store. Idempotent.
   */
  shutdown(): Promise<void>;
}

/** the file name of the admin kubeconfig inside the data dir */
export const ADMIN_KUBECONFIG = 'admin.kubeconfig';

/**
 * Assemble and start the API server: the only place that chooses implementations (storage from
 * --etcd-servers, the built-in kinds and schemas, the Koa app, the HTTPS listener).
 */
export async function startApiServer(opts: StartApiServerOptions): Promise<RunningApiServer> {
  const { config, logger } = opts;
  const kinds = servedBuiltinKinds(config);
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // One process per database, decided before anything is written: a second server on the same
  // database would rewrite admin.kubeconfig and its writes would never reach this one's watch cache.
  const lock = lockStore(config.storageUrl, { dataDir: config.dataDir });
  logger.info({ dataDir: config.dataDir, database: lock.database }, `Using data dir ${config.dataDir}`);

  let store: Store;
  let tls: ServingPki;
  let tlsPolicy: ServingTlsPolicy;
  let adminClient: ReturnType<typeof ensureAdminClientPki>;
  let authn: ReturnType<typeof authentication>;
  try {
    tls = loadTls(config, logger);
    tlsPolicy = servingTlsPolicy(config, (m) => logger.warn(m));
    adminClient = ensureAdminClientPki({ certDir: config.certDir, logger });
    authn = authentication(config, adminClient.caCert, logger);
    const encryption = config.encryptionProviderConfig ? loadEncryptionConfig(config.encryptionProviderConfig) : undefined;
    store = await openStore(config.storageUrl, { logger: logger.child({ component: 'storage' }), synchronous: 'FULL' });
    // values of the resources the encryption configuration names are sealed before they reach the database
    if (encryption) store = new EncryptingStore(store, encryption);
  } catch (err) {
    lock.release();
    throw err;
  }
  // an interval of 0 gives a compactor that never runs
  const compactor = startCompactor({ store, intervalMs: config.compactionIntervalMs, logger: logger.child({ component: 'compactor' }) });
  let registry: ReturnType<typeof createRegistry> | undefined;
  let crs: CustomResources | undefined;
  let aggregator: Aggregator | undefined;
  try {
    const scheme = new Scheme(kinds);
    // access reviews are answered in memory by the authorizer (kube's AlwaysAllow mode for now)
    // componentstatuses and bindings are answered without storage (the probes are kube's defaults)
    registry = withVirtualKinds(withAccessReviews(createRegistry({
        store,
        scheme,
        definitions,
        logger: logger.child({ component: 'registry' }),
        // the SQLite store delivers watch events inside each commit, so a caught-up cache is as fresh as the store
        watchCache: { ...config.watchCache, deliversAtCommit: true },
        bootstrapObjects: builtinBootstrapObjects,
      }), {
      authorizer: new AlwaysAllowAuthorizer(),
      tokenAuthenticator: authn.tokens,
      definitions,
    }), { scheme, componentProbes: defaultComponentProbes(() => store.ping()) });
    await registry.bootstrap();
    // custom resources: the CRD controllers serve the stored definitions before the server is ready
    crs = customResources({ registry, scheme, logger: logger.child({ component: 'apiextensions' }) });
    await crs.start();
    // the aggregation layer: local APIServices (built-in and custom groups), availability, proxying
    // to extension servers
    aggregator = createAggregator({
      registry: crs.registry,
      scheme,
      builtinGroupVersions: new Set(kinds.map((k) => (k.group ? `${k.group}/${k.version}` : k.version))),
      logger: logger.child({ component: 'aggregator' }),
      enableAggregatorRouting: config.enableAggregatorRouting,
      proxyClientCert: config.proxyClientCertFile && config.proxyClientKeyFile
        ? { cert: fs.readFileSync(config.proxyClientCertFile), key: fs.readFileSync(config.proxyClientKeyFile) }
        : undefined,
      headerNames: config.requestHeaders,
    });
    await aggregator?.start();

    const api = createApiServerApp({
      scheme,
      registry: crs.registry,
      logger,
      health: [
        { name: 'etcd', check: () => store.ping() },
        // kube's readyz-only storage check; here it also fails while commits cannot be made (full
        // disk, read-only file system), so traffic moves away until the cause is gone
        { name: 'etcd-readiness', readyOnly: true, check: () => store.writable?.() ?? Promise.resolve() },
        ...(aggregator ? [aggregator.healthCheck()] : []),
      ],
      version: versionInfo(),
      aggregated: aggregator,
      authenticator: authn.chain,
      options: {
        requestTimeoutSeconds: config.requestTimeoutMs / 1000,
        minRequestTimeoutSeconds: config.minRequestTimeoutSeconds,
        maxRequestsInflight: config.maxRequestsInflight,
        maxMutatingRequestsInflight: config.maxMutatingRequestsInflight,
      },
    });
    const upgrade = aggregator ? aggregator.upgrade.bind(aggregator) : undefined;
    const server = await startServer({
      app: api.app, bindAddress: config.bindAddress, port: config.securePort, cert: tls.certChain, key: tls.key, clientCa: authn.clientCa, upgrade,
      ...tlsPolicy,
      http2MaxStreamsPerConnection: config.http2MaxStreamsPerConnection,
      goawayChance: config.goawayChance,
    });

    const url = serverUrl(config.bindAddress, config.securePort);
    const kubeconfigPath = path.join(config.dataDir, ADMIN_KUBECONFIG);
    writeKubeconfig(kubeconfigPath, { server: url, caCert: tls.caCert, client: adminClient });
    logger.info(
      { address: `${config.bindAddress}:${config.securePort}`, url, dataDir: config.dataDir, kubeconfig: kubeconfigPath },
      `Serving on ${url} (data dir ${config.dataDir}); use kubectl --kubeconfig ${kubeconfigPath}`,
    );

    const running = registry;
    const runningCrs = crs;
    const runningAggregator = aggregator;
    let stopping: Promise<void> | undefined;
    const shutdown = (): Promise<void> =>
      (stopping ??= (async () => {
        // /readyz fails from now on and open watches end, so clients move elsewhere
        api.shutdown();
        if (config.shutdownDelayMs > 0) {
          logger.info({ delayMs: config.shutdownDelayMs }, 'Not ready; still serving during --shutdown-delay-duration');
          await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
        }
        await closeGracefully(server, config.requestTimeoutMs);
        runningAggregator?.stop();
        runningCrs.close();
        await running.close();
        await running.idle();
        compactor.stop();
        await store.close();
        lock.release();
        logger.info('Shutdown complete');
      })());
    return { url, kubeconfigPath, shutdown };
  } catch (err) {
    aggregator?.stop();
    crs?.close();
    await registry?.close();
    compactor.stop();
    await store.close();
    lock.release();
    throw err;
  }
}

/**
 * The built-in kinds --runtime-config leaves on (routes, discovery and OpenAPI follow the Scheme).
 * Resolved before anything is opened, so a bad value stops the start at once as a flag error.
 */
function servedBuiltinKinds(config: ApiServerConfig) {
  try {
    return filterByRuntimeConfig([...builtinKinds(), ...accessReviewKinds()], config.runtimeConfig);
  } catch (err) {
    if (err instanceof RuntimeConfigError) throw new FlagError(`invalid argument for "--runtime-config" flag: ${err.message}`);
    throw err;
  }
}

/**
 * The authenticator chain of the flags, in kube's order (client certificates, then bearer tokens),
 * and the client CA bundle the listener verifies certificates against: --client-ca-file, plus the
 * CA Ballast generated in --cert-dir, which signs the admin kubeconfig's certificate.
 */
function authentication(config: ApiServerConfig, generatedCa: string, logger: Logger) {
  const a = config.authentication;
  const authenticators: RequestAuthenticator[] = [];
  const bundles = [generatedCa];
  if (a.clientCaFile) bundles.unshift(readFlagFile(a.clientCaFile, '--client-ca-file'));
  authenticators.push(new X509Authenticator());
  const tokens: TokenAuthenticator[] = [];
  if (a.tokenAuthFile) tokens.push(new TokenFileAuthenticator(loadTokenFile(a.tokenAuthFile, (m) => logger.warn(m))));
  const bearer = new BearerTokenAuthenticator(tokens);
  authenticators.push(bearer);
  return { chain: authenticatorChain(authenticators, { anonymous: a.anonymous }), clientCa: bundles.join('\n'), tokens: bearer };
}

function readFlagFile(file: string, flag: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const why = /^[A-Z]+: ([^,]+)/.exec((err as Error).message)?.[1] ?? (err as Error).message;
    throw new FlagError(`${flag} ${file}: ${why}`);
  }
}

/**
 * Stop accepting connections and let in-flight requests finish; idle keep-alive connections are
 * closed at once, and whatever is still open after graceMs is cut.
 */
function closeGracefully(server: ApiListener, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** the serving certificate: the given files, or our generated CA and certificate in --cert-dir */
function loadTls(config: ApiServerConfig, logger: Logger): ServingPki {
  if (config.tlsCertFile && config.tlsPrivateKeyFile) {
    const certChain = readServingFile(config.tlsCertFile, 'certificate', '--tls-cert-file');
    // Clients trust the chain as given (its CA is appended after the serving certificate).
    return { certChain, key: readServingFile(config.tlsPrivateKeyFile, 'key', '--tls-private-key-file'), caCert: certChain };
  }
  const ips = ['127.0.0.1', '::1'];
  const host = os.hostname().toLowerCase();
  const dnsNames = ['localhost', ...(/^[a-z0-9.-]+$/.test(host) ? [host] : []), 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'];
  if (!isUnspecified(config.bindAddress) && !ips.includes(config.bindAddress)) ips.push(config.bindAddress);
  return ensureServingPki({ certDir: config.certDir, dnsNames: [...new Set(dnsNames)], ips, logger });
}

/** a file named by a flag; an unreadable one is a start-up error of one line (kube: "unable to load server certificate") */
function readServingFile(file: string, what: string, flag: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // Node's message is "ENOENT: no such file or directory, open '/x'"; keep the plain words
    const why = /^[A-Z]+: ([^,]+)/.exec(e.message)?.[1] ?? e.message;
    throw new Error(`unable to load server ${what} from ${flag} ${file}: ${why}`, { cause: err });
  }
}
