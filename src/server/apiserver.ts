import fs from 'node:fs';
import { fileErrorWords, readFlagFile } from '../util/files';
import os from 'node:os';
import path from 'node:path';
import { builtinKinds } from '../api/kinds/index';
import { createAggregator } from '../aggregator/aggregator';
import { RegistryInformer } from '../aggregator/registry-informer';
import { LiveServiceAllocator, ServiceRangeError, parseServiceRange } from '../api/service-allocator/live';
import { withAllocationRelease } from '../api/service-allocator/with-release';
import type { Aggregator } from '../aggregator/aggregator';
import { builtinBootstrapObjects } from '../api/kinds/bootstrap';
import { createRegistry } from '../api/registry/index';
import { buildAdmission, builtinAdmissionPlugins, loadAdmissionConfig } from '../admission/index';
import { mutatingWebhookAdmission, validatingWebhookAdmission } from '../admission/webhook/index';
import type { ClosableAdmission } from '../admission/webhook/index';
import type { Authorizer } from '../api/reviews/authorizer';
import { customResources } from '../api/crd/index';
import type { CustomResources } from '../api/crd/index';
import { accessReviewKinds, withAccessReviews } from '../api/reviews/index';
import { buildAuthorizer, validateAuthorizationConfig } from '../auth/authz/config';
import { RbacInformers } from '../auth/authz/rbac-index';
import { AbacAuthorizer, loadPolicyFile } from '../auth/authz/abac';
import { WebhookAuthorizer, loadWebhookKubeconfig } from '../auth/authz/webhook';
import { NodeAuthorizer } from '../auth/authz/node';
import { InformerNodeGraph } from '../auth/authz/node-graph-informers';
import { withTokenRequestAdmission } from '../admission/plugins/token-request-admission';
import { RbacRuleResolver } from '../auth/authz/rbac';
import { withRbacEscalationChecks } from '../auth/rbac-escalation';
import { Scheme } from '../api/scheme';
import { withVirtualKinds } from '../api/virtual/index';
import { RuntimeConfigError, filterByRuntimeConfig } from '../api/runtime-config';
import { FlagError } from '../options/types';
import { createApiServerApp } from '../http/app';
import { setupAudit } from '../audit/setup';
import type { AuditSetup } from '../audit/setup';
import { FlowControl } from '../flowcontrol/flow-control';
import { FlowControlController } from '../flowcontrol/controller';
import { authenticatorChain } from '../auth/authenticator';
import type { RequestAuthenticator } from '../auth/authenticator';
import { X509Authenticator } from '../auth/authn/x509';
import { TokenFileAuthenticator, loadTokenFile } from '../auth/authn/token-file';
import { BearerTokenAuthenticator } from '../auth/authn/bearer';
import { OidcAuthenticator, validateOidcFlags } from '../auth/authn/oidc';
import { WebhookTokenAuthenticator, loadTokenWebhookKubeconfig } from '../auth/authn/webhook-token';
import { RequestHeaderAuthenticator } from '../auth/authn/request-header';
import { onlyCertificatesOf, parseCaBundle } from '../auth/authn/cert-chain';
import { extensionAuthenticationConfigMap } from '../auth/authn/extension-authentication';
import type { TokenAuthenticator } from '../api/reviews/authenticator';
import { serviceAccountAuth, withTokenRequest } from '../auth/serviceaccount/index';
import type { ObjectLookup } from '../auth/serviceaccount/index';
import { isApiError } from '../api/errors';
import type { Registry } from '../api/registry/types';
import { startServer } from '../http/server';
import type { ApiListener } from '../http/server';
import { servingTlsPolicy } from './tls-options';
import type { ServingTlsPolicy } from './tls-options';
import { definitions } from '../schema/index';
import { startCompactor } from '../storage/compactor';
import { lockStores, openStores, storeUrls } from '../storage/open';
import type { OpenedDatabase } from '../storage/open';
import { newestRecordedTime, startExpiry } from '../storage/expiry';
import type { Expiry } from '../storage/expiry';
import { checkStoreTlsFiles, pingWithin } from '../storage/health';
import { decodeStored } from '../api/registry/codec';
import { kindPrefix } from '../api/registry/keys';
import { loadEncryptionConfig } from '../storage/encryption/config';
import { EncryptingStore } from '../storage/encryption/encrypting-store';
import { checkKmsPlugins, kmsHealthChecks } from '../storage/encryption/kms-health';
import { MediaTypeStore } from '../storage/codec/media-type-store';
import { ApiServerMetrics } from '../metrics/apiserver-metrics';
import { TimedStore } from '../metrics/timed-store';
import { sqliteFiles, startStoragePollers } from '../metrics/storage-pollers';
import { storageLocation, storedResources } from '../metrics/stored-resources';
import { defaultComponentProbes } from './component-probes';
import { isUnspecified, serverUrl, writeKubeconfig } from './kubeconfig';
import { ensureAdminClientPki, ensureClientPki, ensureServiceAccountKeyPair, ensureServingPki } from './pki';
import { versionInfo } from './version';
import { MasterServiceController, defaultAdvertiseAddress } from './master-service';
import { IdentityLeaseController } from './identity-lease';
import { PostStartHooks } from './post-start-hooks';
import { checkKubeletOptions, connectBackends, KUBELET_CLIENT } from './kubelet-options';
import { loadEgressSelectorConfig } from './egress-selector';
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
  const serviceAllocator = serviceAllocatorOf(config);
  const kinds = servedBuiltinKinds(config, serviceAllocator);
  // kube's PublicAddress and ExternalAddress: what the kubernetes service's endpoints and the
  // URLs this server hands out (discovery, the service account issuer's jwks_uri) name
  const advertiseAddress = config.advertiseAddress ?? defaultAdvertiseAddress(config.bindAddress);
  const externalHost = config.externalHostname ?? advertiseAddress;
  const externalAddress = /^\[|]:\d+$|^[^:]*:\d+$/.test(externalHost) ? externalHost : `${externalHost.includes(':') ? `[${externalHost}]` : externalHost}:${config.securePort}`;
  // the TLS files of a postgres:// store are checked before anything is written
  checkStoreTlsFiles(config.storage.tls);
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // One process per SQLite file, decided before anything is written: a second server on the same
  // file would rewrite admin.kubeconfig and its writes would never reach this one's watch cache
  // (a PostgreSQL database is shared: its lock holds nothing).
  const lock = lockStores(storeUrls(config.storageUrl, config.storage.overrides), { dataDir: config.dataDir });
  logger.info({ dataDir: config.dataDir, database: lock.database }, `Using data dir ${config.dataDir}`);

  const metrics = new ApiServerMetrics();
  let store: Store;
  /** every database (--etcd-servers, then those of --etcd-servers-overrides) */
  let databases: OpenedDatabase[];
  let tls: ServingPki;
  let tlsPolicy: ServingTlsPolicy;
  let adminClient: ReturnType<typeof ensureAdminClientPki>;
  let kubeletClient: { cert: string; key: string } | undefined;
  let authn: ReturnType<typeof authentication>;
  let audit: AuditSetup | undefined;
  // service account and bootstrap tokens read objects through the registry, once it exists
  let lookupRegistry: { registry: Registry; scheme: Scheme } | undefined;
  const lookup: ObjectLookup = async (resource, namespace, name) => {
    const kind = lookupRegistry?.scheme.byResource('', 'v1', resource);
    if (!lookupRegistry || !kind) return undefined;
    try {
      return await lookupRegistry.registry.get({ kind, namespace: kind.namespaced ? namespace : undefined, name }, {});
    } catch (err) {
      if (isApiError(err) && err.code === 404) return undefined;
      throw err;
    }
  };
  let admissionConfigs: Map<string, unknown> | undefined;
  let encryption: ReturnType<typeof loadEncryptionConfig> | undefined;
  try {
    // a bad admission configuration stops start-up before anything is opened
    admissionConfigs = config.admission.configFile ? loadAdmissionConfig(config.admission.configFile) : undefined;
    audit = setupAudit(config.audit, logger.child({ component: 'audit' }));
    validateAuthorizationConfig(config.authorization);
    checkKubeletOptions(config.kubelet);
    if (config.egressSelectorConfigFile) loadEgressSelectorConfig(config.egressSelectorConfigFile);
    tls = loadTls(config, logger);
    tlsPolicy = servingTlsPolicy(config, (m) => logger.warn(m));
    adminClient = ensureAdminClientPki({ certDir: config.certDir, logger });
    // kubeadm's apiserver-kubelet-client identity, used when --kubelet-client-certificate is not given
    kubeletClient = config.kubelet.clientCertificate ? undefined : ensureClientPki({ certDir: config.certDir, logger, name: KUBELET_CLIENT.file, subject: KUBELET_CLIENT.subject });
    authn = authentication(config, adminClient.caCert, logger, lookup, `https://${externalAddress}`);
    encryption = config.encryptionProviderConfig ? loadEncryptionConfig(config.encryptionProviderConfig) : undefined;
    if (encryption) await checkKmsPlugins(encryption, config.encryptionProviderConfig!, (provider, message) => logger.warn({ provider }, `KMS plugin not reachable yet: ${message}`));
    const sealing = encryption;
    // each database under --etcd-prefix; with --etcd-servers-overrides, keys are routed to theirs
    ({ store, databases } = await openStores({
      url: config.storageUrl,
      overrides: config.storage.overrides,
      prefix: config.storage.prefix,
      logger: logger.child({ component: 'storage' }),
      synchronous: 'FULL',
      tls: config.storage.tls,
      wrap: (s) => {
        // etcd_request_duration_seconds times the database itself, inside any encryption
        const timed = new TimedStore(s, metrics);
        // values of the resources the encryption configuration names are sealed before they reach the database
        const sealed = sealing ? new EncryptingStore(timed, sealing) : timed;
        // --storage-media-type: values are written in that form and read back as JSON from any form
        return new MediaTypeStore(sealed, { mediaType: config.storageMediaType });
      },
    }));
  } catch (err) {
    await audit?.backend.shutdown();
    lock.release();
    throw err;
  }
  // API servers sharing a PostgreSQL database claim each service address and node port in it, so
  // two of them never hand out the same one (one process per SQLite file: memory is the whole view)
  if (!databases[0].file) serviceAllocator.useStore(store, logger.child({ component: 'service-allocator' }));
  // an interval of 0 gives a compactor that never runs; each database has its own revisions to compact
  const compactors = databases.map((d) => startCompactor({ store: d.store, intervalMs: config.compactionIntervalMs, logger: logger.child({ component: 'compactor', database: d.id }) }));
  const compactor = { stop: () => compactors.forEach((c) => c.stop()) };
  let eventExpiry: Expiry | undefined;
  let registry: ReturnType<typeof createRegistry> | undefined;
  let pollers: { stop(): void } | undefined;
  let crs: CustomResources | undefined;
  let aggregator: Aggregator | undefined;
  let services: RegistryInformer | undefined;
  let rbacInformers: RbacInformers | undefined;
  let nodeGraph: InformerNodeGraph | undefined;
  let closeWebhooks: (() => void) | undefined;
  let apf: FlowControlController | undefined;
  let masterService: MasterServiceController | undefined;
  let identityLease: IdentityLeaseController | undefined;
  const hooks = new PostStartHooks({ logger });
  const leasesServed = kinds.some((k) => k.group === 'coordination.k8s.io' && k.version === 'v1' && k.resource === 'leases');
  const identityLeaseOn = config.identityLease.enabled && leasesServed;
  const hookNames = ['bootstrap-controller', ...(identityLeaseOn ? ['start-kube-apiserver-identity-lease-controller'] : [])];
  try {
    const scheme = new Scheme(kinds);
    // TokenRequest (serviceaccounts/token) is answered by the token issuer, without storage
    const withTokens = <R extends Registry>(r: R): R =>
      authn.tokenIssuer
        ? withTokenRequest(r, {
            scheme,
            issuer: authn.tokenIssuer,
            apiAudiences: config.authentication.apiAudiences,
            maxExpirationSeconds: config.authentication.serviceAccounts.maxTokenExpirationSeconds,
            extendExpiration: config.authentication.serviceAccounts.extendTokenExpiration,
            nodeBinding: config.featureGates.enabled('ServiceAccountTokenNodeBinding'),
          })
        : r;
    // admission plugins ask the authorizer chain, built below from the registry they are part of
    let authorizerRef: Authorizer | undefined;
    const lateAuthorizer: Authorizer = {
      authorize: (a) => authorizerRef!.authorize(a),
      rulesFor: (u, ns) => (authorizerRef?.rulesFor ? authorizerRef.rulesFor(u, ns) : Promise.resolve({ resourceRules: [], nonResourceRules: [], incomplete: true })),
    };
    // the webhook plugins read their configurations through the registry, so they start after it
    const webhooks: Partial<Record<'mutating' | 'validating', ClosableAdmission>> = {};
    const plugins = builtinAdmissionPlugins()
      .register('MutatingAdmissionWebhook', () => ({ admit: (a) => webhooks.mutating?.admit(a) ?? Promise.resolve(), validate: async () => undefined }))
      .register('ValidatingAdmissionWebhook', () => ({ admit: async () => undefined, validate: (a) => webhooks.validating?.validate(a) ?? Promise.resolve() }));
    const admission = buildAdmission({
      scheme,
      enabled: config.admission.plugins,
      configurations: admissionConfigs,
      authorizer: lateAuthorizer,
      plugins,
      flags: {
        defaultNotReadyTolerationSeconds: config.admission.defaultNotReadyTolerationSeconds,
        defaultUnreachableTolerationSeconds: config.admission.defaultUnreachableTolerationSeconds,
      },
    });
    logger.info({ plugins: admission.chain.names }, 'admission plugins');
    const base = createRegistry({
        store,
        scheme,
        definitions,
        logger: logger.child({ component: 'registry' }),
        // both stores deliver watch events as their currentRevision() advances (SQLite inside each
        // commit, PostgreSQL as it follows the log), so a caught-up cache is as fresh as the store
        watchCache: { ...config.watchCache, deliversAtCommit: true },
        bootstrapObjects: () => [...builtinBootstrapObjects(config.featureGates), ...authn.bootstrapObjects],
        admission: admission.chain,
        enableGarbageCollection: config.enableGarbageCollector,
        inprocessNamespaceController: config.inprocessNamespaceController,
        deleteCollectionWorkers: config.storage.deleteCollectionWorkers,
      });
    // the RBAC objects in memory (list + watch): RBAC decisions and the escalation checks read them
    rbacInformers = new RbacInformers({ registry: base, kinds: rbacKinds(scheme), onError: (err) => logger.warn({ err }, 'RBAC informer failed; retrying') });
    const rbacObjects = rbacInformers;
    const authorizer = buildAuthorizer(config.authorization, {
      rbac: () => ({ objects: rbacObjects, ready: rbacObjects.synced }),
      abac: () => new AbacAuthorizer(loadPolicyFile(config.authorization.policyFile!)),
      webhook: () => new WebhookAuthorizer({
        target: loadWebhookKubeconfig(config.authorization.webhookConfigFile!),
        version: config.authorization.webhookVersion,
        authorizedTtlMs: config.authorization.webhookAuthorizedTtlMs,
        unauthorizedTtlMs: config.authorization.webhookUnauthorizedTtlMs,
      }),
      node: () => {
        const core = (resource: string) => scheme.byResource('', 'v1', resource)!;
        const graph = new InformerNodeGraph({
          registry: base,
          pods: core('pods'),
          persistentVolumes: core('persistentvolumes'),
          volumeAttachments: scheme.byResource('storage.k8s.io', 'v1', 'volumeattachments'),
          onError: (err) => logger.warn({ err }, 'Node authorizer informer failed; retrying'),
        });
        nodeGraph = graph;
        return new NodeAuthorizer({ graph, ready: graph.synced });
      },
    });
    // access reviews are answered in memory by the authorizer chain; RBAC writes are checked for
    // escalation; componentstatuses and bindings are answered without storage (kube's default probes)
    registry = withVirtualKinds(withTokenRequestAdmission(withTokens(withAccessReviews(withRbacEscalationChecks(base, { authorizer, resolver: new RbacRuleResolver(rbacObjects) }), {
      authorizer,
      tokenAuthenticator: authn.tokens,
      definitions,
    })), admission.chain), { scheme, componentProbes: defaultComponentProbes(() => store.ping()) });
    registry = withAllocationRelease(registry, serviceAllocator);
    authorizerRef = authorizer;
    admission.objects.bind(registry);
    const enabledPlugins = new Set(config.admission.plugins);
    const webhookOptions = {
      registry: base,
      scheme,
      serviceRouting: config.enableAggregatorRouting ? ('endpoint' as const) : ('cluster' as const),
      log: logger.child({ component: 'admission-webhooks' }),
    };
    if (enabledPlugins.has('MutatingAdmissionWebhook')) webhooks.mutating = mutatingWebhookAdmission(webhookOptions);
    if (enabledPlugins.has('ValidatingAdmissionWebhook')) webhooks.validating = validatingWebhookAdmission(webhookOptions);
    closeWebhooks = () => {
      webhooks.mutating?.close();
      webhooks.validating?.close();
    };
    await registry.bootstrap();
    lookupRegistry = { registry, scheme };
    // the allocator's view of taken cluster IPs and node ports: the stored Services, followed
    services = new RegistryInformer({
      registry,
      kind: scheme.byResource('', 'v1', 'services')!,
      onChange: (key, obj) => serviceAllocator.observe(key, obj),
      onError: (err) => logger.warn({ err }, 'Following Services for the allocator failed; retrying'),
    });
    services.start();
    await services.synced;
    rbacInformers.start();
    nodeGraph?.start();
    // kinds answered in memory have nothing stored to count
    const unstored = new Set(['/componentstatuses', '/bindings', ...accessReviewKinds().map(storageLocation)]);
    // object counts through the routing store; the size of each database under its own endpoint
    const databasePollers = databases.map((d, i) => startStoragePollers({
      store,
      metrics,
      resources: () => (i === 0 ? storedResources(scheme.kinds, unstored) : []),
      countPeriodMs: i === 0 ? config.countMetricPollPeriodMs : 0,
      dbIntervalMs: config.dbMetricPollIntervalMs,
      dbFiles: d.file ? sqliteFiles(d.file) : [],
      endpoint: d.url,
      logger: logger.child({ component: 'metrics' }),
    }));
    pollers = { stop: () => databasePollers.forEach((p) => p.stop()) };
    // --event-ttl: events are deleted that long after their last write (kube's etcd lease)
    const events = scheme.byResource('', 'v1', 'events');
    if (events) {
      eventExpiry = startExpiry({
        store,
        prefix: kindPrefix(events),
        ttlMs: config.storage.eventTtlMs,
        writtenAt: (kv) => newestRecordedTime(decodeStored(events, kv.value, kv.modRevision)),
        logger: logger.child({ component: 'event-ttl' }),
      });
    }
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
    // API Priority and Fairness: seats from both in-flight limits, queue waits up to a quarter of
    // --request-timeout (kube's requestWaitLimit); the configuration follows the stored objects
    let flowControl: FlowControl | undefined;
    if (config.enablePriorityAndFairness) {
      flowControl = new FlowControl({
        serverConcurrencyLimit: config.maxRequestsInflight + config.maxMutatingRequestsInflight,
        requestWaitLimitMs: config.requestTimeoutMs / 4,
      });
      const served = (resource: string) => scheme.kinds.find((k) => k.group === 'flowcontrol.apiserver.k8s.io' && k.resource === resource);
      const flowSchemas = served('flowschemas');
      const priorityLevels = served('prioritylevelconfigurations');
      if (flowSchemas && priorityLevels) {
        apf = new FlowControlController({ registry, flowControl, kinds: { flowSchemas, priorityLevels }, logger: logger.child({ component: 'flowcontrol' }) });
        await apf.start();
      }
    }

    const api = createApiServerApp({
      scheme,
      registry: crs.registry,
      logger,
      health: [
        { name: 'etcd', check: () => pingWithin(store, config.storage.healthcheckTimeoutMs) },
        // kube's readyz-only storage check; here it also fails while commits cannot be made (full
        // disk, read-only file system), so traffic moves away until the cause is gone
        { name: 'etcd-readiness', readyOnly: true, check: () => store.writable?.() ?? Promise.resolve() },
        ...(aggregator ? [aggregator.healthCheck()] : []),
        ...hooks.healthChecks(hookNames, config.livezGracePeriodMs),
        ...(encryption ? kmsHealthChecks(encryption) : []),
      ],
      version: versionInfo(),
      aggregated: aggregator,
      authenticator: authn.chain,
      audit,
      authorizer,
      admission: admission.chain,
      connect: connectBackends(config, scheme, kubeletClient),
      documents: authn.documents,
      metrics,
      profiling: config.profiling,
      flowControl,
      featureGates: config.featureGates,
      options: {
        requestTimeoutSeconds: config.requestTimeoutMs / 1000,
        minRequestTimeoutSeconds: config.minRequestTimeoutSeconds,
        maxRequestsInflight: config.maxRequestsInflight,
        maxMutatingRequestsInflight: config.maxMutatingRequestsInflight,
        corsAllowedOrigins: config.corsAllowedOrigins,
        maxConnectionBytesPerSec: config.maxConnectionBytesPerSec,
        externalAddress,
      },
    });
    // upgrades always reach the app on their own socket (connect subresources relay SPDY and WebSocket)
    const upgrade = aggregator ? aggregator.upgrade.bind(aggregator) : () => false;
    const server = await startServer({
      app: api.app, bindAddress: config.bindAddress, port: config.securePort, cert: tls.certChain, key: tls.key, clientCa: authn.clientCa, upgrade,
      ...tlsPolicy,
      http2MaxStreamsPerConnection: config.http2MaxStreamsPerConnection,
      goawayChance: config.goawayChance,
    });

    // post-start hooks: the kubernetes service and its endpoints, the identity lease
    hooks.markStarted();
    const serviceRegistry = registry;
    masterService = new MasterServiceController({
      registry: serviceRegistry,
      scheme,
      store,
      logger: logger.child({ component: 'kubernetes-service' }),
      namespace: config.masterService.namespace,
      serviceIP: serviceAllocator.firstIP,
      securePort: config.securePort,
      advertiseAddress,
      nodePort: config.masterService.nodePort,
      reconciler: config.masterService.reconciler,
      apiServerCount: config.masterService.apiServerCount,
    });
    void hooks.run('bootstrap-controller', () => masterService!.start());
    const leases = scheme.byResource('coordination.k8s.io', 'v1', 'leases');
    if (identityLeaseOn && leases) {
      identityLease = new IdentityLeaseController({
        registry: serviceRegistry,
        kind: leases,
        logger: logger.child({ component: 'identity-lease' }),
        durationSeconds: config.identityLease.durationSeconds,
        renewIntervalSeconds: config.identityLease.renewIntervalSeconds,
      });
      void hooks.run('start-kube-apiserver-identity-lease-controller', () => identityLease!.start());
    }

    const url = serverUrl(config.bindAddress, config.securePort);
    const kubeconfigPath = path.join(config.dataDir, ADMIN_KUBECONFIG);
    writeKubeconfig(kubeconfigPath, { server: url, caCert: tls.caCert, client: adminClient });
    writeComponentKubeconfigs(config, url, tls.caCert, logger);
    logger.info(
      { address: `${config.bindAddress}:${config.securePort}`, url, dataDir: config.dataDir, kubeconfig: kubeconfigPath },
      `Serving on ${url} (data dir ${config.dataDir}); use kubectl --kubeconfig ${kubeconfigPath}`,
    );

    const running = registry;
    const runningCrs = crs;
    const runningAggregator = aggregator;
    const runningInformers = rbacInformers;
    const runningPollers = pollers;
    const runningApf = apf;
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
        identityLease?.stop();
        // kube removes this server's address from the kubernetes service's endpoints (lease reconciler)
        await masterService?.stop().catch((err) => logger.warn({ err }, 'Unable to remove this server from the kubernetes service endpoints'));
        runningAggregator?.stop();
        services?.stop();
        runningInformers.stop();
        nodeGraph?.stop();
        closeWebhooks?.();
        authn.close();
        runningPollers.stop();
        eventExpiry?.stop();
        runningApf?.stop();
        runningCrs.close();
        await running.close();
        await running.idle();
        compactor.stop();
        serviceAllocator.stop();
        await store.close();
        // the last requests' events are written before the process ends
        await audit?.backend.shutdown();
        lock.release();
        logger.info('Shutdown complete');
      })());
    return { url, kubeconfigPath, shutdown };
  } catch (err) {
    identityLease?.stop();
    await masterService?.stop().catch(() => undefined);
    aggregator?.stop();
    services?.stop();
    rbacInformers?.stop();
    nodeGraph?.stop();
    closeWebhooks?.();
    pollers?.stop();
    eventExpiry?.stop();
    apf?.stop();
    crs?.close();
    await registry?.close();
    compactor.stop();
    serviceAllocator.stop();
    await store.close();
    await audit?.backend.shutdown();
    lock.release();
    throw err;
  }
}

/**
 * The built-in kinds --runtime-config leaves on (routes, discovery and OpenAPI follow the Scheme).
 * Resolved before anything is opened, so a bad value stops the start at once as a flag error.
 */
function servedBuiltinKinds(config: ApiServerConfig, serviceAllocator: LiveServiceAllocator) {
  try {
    return filterByRuntimeConfig([...builtinKinds({ serviceAllocator, allowPrivileged: config.allowPrivileged }), ...accessReviewKinds()], config.runtimeConfig);
  } catch (err) {
    if (err instanceof RuntimeConfigError) throw new FlagError(`invalid argument for "--runtime-config" flag: ${err.message}`);
    throw err;
  }
}

/** the v1 RBAC kinds the scheme serves, which the RBAC informers list and watch */
function rbacKinds(scheme: Scheme) {
  const kind = (resource: string) => {
    const k = scheme.byResource('rbac.authorization.k8s.io', 'v1', resource);
    if (!k) throw new FlagError('--authorization-mode needs rbac.authorization.k8s.io/v1, which --runtime-config turned off');
    return k;
  };
  return { roles: kind('roles'), clusterRoles: kind('clusterroles'), roleBindings: kind('rolebindings'), clusterRoleBindings: kind('clusterrolebindings') };
}

/**
 * The authenticator chain of the flags, in kube's order (front-proxy headers, client certificates,
 * then bearer tokens: token file, service accounts, bootstrap tokens, OIDC, the token webhook), and
 * the CA bundle the listener verifies certificates against: --client-ca-file plus the CA Ballast
 * generated in --cert-dir (which signs the admin kubeconfig's certificate), and the front-proxy CA.
 * With a front-proxy CA each certificate authenticator checks its own bundle.
 */
function authentication(config: ApiServerConfig, generatedCa: string, logger: Logger, lookup: ObjectLookup, externalUrl: string) {
  const a = config.authentication;
  const authenticators: RequestAuthenticator[] = [];
  const bundles = [generatedCa];
  if (a.clientCaFile) bundles.unshift(readFlagFile(a.clientCaFile, '--client-ca-file', (m) => new FlagError(m)));
  const clientCa = bundles.join('\n');
  const rh = a.requestHeader;
  const proxyCa = rh.clientCaFile ? readFlagFile(rh.clientCaFile, '--requestheader-client-ca-file', (m) => new FlagError(m)) : undefined;
  if (proxyCa !== undefined) {
    authenticators.push(new RequestHeaderAuthenticator({
      roots: caBundle(proxyCa, '--requestheader-client-ca-file', rh.clientCaFile!),
      allowedNames: rh.allowedNames,
      usernameHeaders: rh.usernameHeaders,
      groupHeaders: rh.groupHeaders,
      extraHeaderPrefixes: rh.extraHeadersPrefix,
    }));
    authenticators.push(onlyCertificatesOf(caBundle(clientCa, '--client-ca-file', a.clientCaFile ?? config.certDir), new X509Authenticator()));
  } else {
    authenticators.push(new X509Authenticator());
  }
  const tokens: TokenAuthenticator[] = [];
  if (a.tokenAuthFile) tokens.push(new TokenFileAuthenticator(loadTokenFile(a.tokenAuthFile, (m) => logger.warn(m))));
  const sa = serviceAccountAuth({
    settings: a.serviceAccounts,
    apiAudiences: a.apiAudiences,
    bootstrapTokens: a.bootstrapTokens,
    generatedKeys: () => ensureServiceAccountKeyPair({ certDir: config.certDir, logger }),
    tlsKeyFile: config.tlsPrivateKeyFile,
    externalUrl,
    lookup,
    logger: logger.child({ component: 'serviceaccounts' }),
  });
  tokens.push(...sa.tokens);
  let oidc: OidcAuthenticator | undefined;
  const oidcSettings = validateOidcFlags(a.oidc);
  if (oidcSettings) {
    const ca = a.oidc.caFile ? readFlagFile(a.oidc.caFile, '--oidc-ca-file', (m) => new FlagError(m)) : undefined;
    const oidcLog = logger.child({ component: 'oidc' });
    oidc = new OidcAuthenticator({ settings: { ...oidcSettings, ca }, warn: (m) => oidcLog.warn(m) });
    tokens.push(oidc);
  }
  if (a.tokenWebhook.configFile) {
    tokens.push(new WebhookTokenAuthenticator({
      target: loadTokenWebhookKubeconfig(a.tokenWebhook.configFile),
      version: a.tokenWebhook.version,
      cacheTtlMs: a.tokenWebhook.cacheTtlMs,
      implicitAudiences: a.apiAudiences,
    }));
  }
  const bearer = new BearerTokenAuthenticator(tokens, { apiAudiences: [...a.apiAudiences] });
  authenticators.push(bearer);
  // discovery starts once everything else has been checked
  oidc?.start();
  const published = extensionAuthenticationConfigMap({
    clientCa,
    requestHeader: proxyCa === undefined ? undefined : { clientCa: proxyCa, ...rh, extraHeadersPrefix: rh.extraHeadersPrefix },
  });
  return {
    chain: authenticatorChain(authenticators, { anonymous: a.anonymous }),
    clientCa: proxyCa === undefined ? clientCa : `${clientCa}\n${proxyCa}`,
    tokens: bearer,
    tokenIssuer: sa.issuer,
    documents: sa.documents,
    bootstrapObjects: [published],
    close: () => oidc?.close(),
  };
}

/** the certificates of a flag-named CA bundle; none is a start-up error naming the flag */
function caBundle(pem: string, flag: string, file: string) {
  try {
    return parseCaBundle(pem);
  } catch (err) {
    throw new FlagError(`${flag} ${file}: ${(err as Error).message}`);
  }
}


/**
 * One client certificate and kubeconfig per control-plane component, with kube's identities (as
 * kubeadm makes them): the controller manager, the scheduler, and this machine's node agent. They
 * are what `ballast all` and the component commands use; RBAC's bootstrap policy grants each its role.
 */
export const COMPONENT_IDENTITIES = Object.freeze([
  { file: 'controller-manager', subject: { commonName: 'system:kube-controller-manager' } },
  { file: 'scheduler', subject: { commonName: 'system:kube-scheduler' } },
  { file: 'kubelet', subject: { commonName: `system:node:${os.hostname().toLowerCase()}`, organization: 'system:nodes' } },
]);

function writeComponentKubeconfigs(config: ApiServerConfig, url: string, caCert: string, logger: Logger): void {
  for (const c of COMPONENT_IDENTITIES) {
    const client = ensureClientPki({ certDir: config.certDir, logger, name: c.file, subject: c.subject });
    writeKubeconfig(path.join(config.dataDir, `${c.file}.kubeconfig`), { server: url, caCert, client });
  }
}

/** the allocator of --service-cluster-ip-range and --service-node-port-range; a bad range is a flag error */
function serviceAllocatorOf(config: ApiServerConfig): LiveServiceAllocator {
  try {
    return new LiveServiceAllocator({ range: parseServiceRange(config.serviceClusterIPRange), ports: config.serviceNodePortRange });
  } catch (err) {
    if (err instanceof ServiceRangeError) throw new FlagError(`invalid argument "${config.serviceClusterIPRange}" for "--service-cluster-ip-range" flag: ${err.message}`);
    throw err;
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
    const why = fileErrorWords(e);
    throw new Error(`unable to load server ${what} from ${flag} ${file}: ${why}`, { cause: err });
  }
}
