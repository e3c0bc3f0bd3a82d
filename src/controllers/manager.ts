/**
 * The controller manager: one client of the API server, the HTTPS endpoint, leader election, and
 * the enabled controllers run only while this replica leads, as kube-controller-manager does.
 * Losing the lease ends the process (kube exits with "leaderelection lost"); the caller's signal
 * (SIGTERM, SIGINT) stops everything cleanly.
 */
import os from 'node:os';
import type { Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { isAlreadyExists } from '../client/errors';
import { loadClientConfig, type ClientConfig } from '../client/kubeconfig';
import { leaderIdentity, runLeaderElected } from '../client/leader-run';
import { RestClient, resourcePath } from '../client/rest-client';
import { RESOURCES } from '../client/resources';
import { sleep } from '../client/sleep';
import type { ControllerManagerConfig } from '../options/controller-manager';
import { tlsCipherList } from '../server/tls-options';
import { versionInfo } from '../server/version';
import { installWorkQueueMetrics } from '../client/workqueue-metrics';
import { DEFAULT_FEATURE_GATES, type FeatureGates } from '../options/feature-gates';
import { DelegatedAuth } from './delegated-auth';
import { CONTROLLERS } from './index';
import { CONTROLLER_SERVICE_ACCOUNTS, KNOWN_CONTROLLERS, controllerEnabled } from './names';
import { runControllers } from './run';
import { ControllerManagerServer, servingCertificate, type HealthCheck } from './serving';
import type { ControllerDefinition } from './types';

const COMPONENT = 'kube-controller-manager';
/** kube's controllers that need a cloud provider */
const CLOUD_CONTROLLERS = new Set(['cloud-node-lifecycle', 'route', 'service']);
/**
 * kube starts attachdetach with its in-tree attachable volume plugins (cloud disks, iSCSI, CSI...);
 * Ballast has none of them, so there is nothing it could attach
 */
const ATTACH_DETACH_SKIP = 'Skipping "attachdetach": no attachable volume plugins (host-path, emptyDir, configMap, secret, downwardAPI and projected volumes need no attach)';
/** kube 1.20's controllers that start only with a feature gate on (both gates alpha, off by default) */
const GATED_CONTROLLERS: ReadonlyMap<string, string> = new Map([
  ['ttl-after-finished', 'TTLAfterFinished'],
  ['ephemeral-volume', 'GenericEphemeralVolume'],
]);

/** client-go's DefaultKubernetesUserAgent: `<binary>/<version> (<os>/<arch>) kubernetes/<commit>` */
export function userAgent(suffix?: string): string {
  const v = versionInfo();
  const base = `${COMPONENT}/${v.gitVersion} (${v.platform}) kubernetes/${v.gitCommit || 'ballast'}`;
  return suffix ? `${base}/${suffix}` : base;
}

export { leaderIdentity };

/** which controllers to start, and the log line each skipped one gets */
export function selectControllers(config: Pick<ControllerManagerConfig, 'controllers' | 'cloudProvider'> & { featureGates?: FeatureGates }): { start: ControllerDefinition[]; skipped: Array<{ name: string; why: string }> } {
  const start: ControllerDefinition[] = [];
  const skipped: Array<{ name: string; why: string }> = [];
  for (const name of KNOWN_CONTROLLERS) {
    if (!controllerEnabled(name, config.controllers)) {
      skipped.push({ name, why: `"${name}" is disabled` });
      continue;
    }
    if (CLOUD_CONTROLLERS.has(name) && config.cloudProvider === '') {
      skipped.push({ name, why: cloudSkipLine(name) });
      continue;
    }
    const gate = GATED_CONTROLLERS.get(name);
    if (gate && !(config.featureGates ?? DEFAULT_FEATURE_GATES).enabled(gate)) {
      // kube's start function reports "not started" and the manager warns with just this
      skipped.push({ name, why: `Skipping "${name}"` });
      continue;
    }
    if (name === 'attachdetach') {
      skipped.push({ name, why: ATTACH_DETACH_SKIP });
      continue;
    }
    const c = CONTROLLERS.get(name);
    if (!c) skipped.push({ name, why: `Skipping "${name}": not implemented in Ballast yet` });
    else start.push(c);
  }
  return { start, skipped };
}

function cloudSkipLine(name: string): string {
  switch (name) {
    case 'route':
      return 'configure-cloud-routes is set, but no cloud provider specified. Will not configure cloud provider routes.';
    case 'service':
      return 'Failed to start service controller: WARNING: no cloud provider provided, services of type LoadBalancer will fail';
    default:
      return 'failed to start cloud node lifecycle controller: no cloud provider provided';
  }
}

/**
 * kube's SAControllerClientBuilder: each controller acts as its kube-system service account
 * (CONTROLLER_SERVICE_ACCOUNTS: kube's names, bound to the system:controller:* roles). The
 * account is created when missing and a TokenRequest token is fetched, then refreshed at 80% of
 * its life (the client reads the config's token on each request).
 */
export class ServiceAccountCredentials {
  readonly #client: RestClient;
  readonly #base: ClientConfig;
  readonly #opts: { qps: number; burst: number; contentType: ControllerManagerConfig['contentType'] };
  readonly #logger: Logger;
  readonly clients = new Map<string, RestClient>();

  constructor(init: { client: RestClient; base: ClientConfig; qps: number; burst: number; contentType: ControllerManagerConfig['contentType']; logger: Logger }) {
    this.#client = init.client;
    this.#base = init.base;
    this.#opts = { qps: init.qps, burst: init.burst, contentType: init.contentType };
    this.#logger = init.logger;
  }

  /** make the accounts and first tokens of these controllers, then keep the tokens fresh until the signal aborts */
  async prepare(names: readonly string[], signal: AbortSignal): Promise<void> {
    // controllers sharing an account (the certificate and node controllers) share its client
    const byAccount = new Map<string, RestClient>();
    for (const name of names) {
      const account = CONTROLLER_SERVICE_ACCOUNTS.get(name);
      if (!account) continue; // the manager's own credentials
      let client = byAccount.get(account);
      if (!client) {
        const { token, expiresAt } = await this.#token(account);
        const config: ClientConfig = { server: this.#base.server, ca: this.#base.ca, insecureSkipTlsVerify: this.#base.insecureSkipTlsVerify, tlsServerName: this.#base.tlsServerName, token, userAgent: userAgent(account) };
        client = new RestClient(config, this.#opts);
        byAccount.set(account, client);
        void this.#refresh(account, config, expiresAt, signal);
      }
      this.clients.set(name, client);
    }
  }

  async #refresh(account: string, config: ClientConfig, expiresAt: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await sleep(Math.max(1000, (expiresAt - Date.now()) * 0.8), signal);
      if (signal.aborted) return;
      try {
        ({ token: config.token, expiresAt } = await this.#token(account));
      } catch (err) {
        this.#logger.error({ err: (err as Error).message, serviceAccount: account }, 'Refreshing a controller token failed; retrying');
        expiresAt = Date.now() + 10_000;
      }
    }
  }

  async #token(account: string): Promise<{ token: string; expiresAt: number }> {
    try {
      await this.#client.request('POST', resourcePath(RESOURCES.serviceAccounts, 'kube-system'), {
        body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account, namespace: 'kube-system' } },
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const review = (await this.#client.request('POST', resourcePath(RESOURCES.serviceAccounts, 'kube-system', account, 'token'), {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [], expirationSeconds: 3600 } },
    })) as { status?: { token?: string; expirationTimestamp?: string } };
    const token = review.status?.token;
    if (!token) throw new Error(`no token returned for kube-system/${account}`);
    const expiresAt = Date.parse(review.status?.expirationTimestamp ?? '') || Date.now() + 3600_000;
    return { token, expiresAt };
  }

  close(): void {
    for (const c of new Set(this.clients.values())) c.close();
  }
}

export interface RunManagerOptions {
  config: ControllerManagerConfig;
  logger: Logger;
  /** aborts on SIGTERM/SIGINT */
  signal: AbortSignal;
  /** reports the HTTPS port once serving (tests use port 0) */
  onServing?: (port: number) => void;
}

/** run until the signal aborts (0) or the lease is lost (1); start-up failures throw */
export async function runControllerManager(o: RunManagerOptions): Promise<number> {
  const { config, logger } = o;
  const base = loadClientConfig(config.kubeconfig, { master: config.master, userAgent: userAgent() });
  const client = new RestClient(base, { qps: config.qps, burst: config.burst, contentType: config.contentType });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  installWorkQueueMetrics(registry);

  const checks = new Map<string, HealthCheck>();

  let server: ControllerManagerServer | undefined;
  let auth: DelegatedAuth | undefined;
  const credentials: ServiceAccountCredentials[] = [];
  try {
    if (config.serving.securePort !== 0) {
      auth = await DelegatedAuth.create(config.auth, logger.child({ component: 'authentication' }), userAgent('auth'));
      const serving = { ...config.serving, tlsCipherSuites: config.serving.tlsCipherSuites.length ? [tlsCipherList(config.serving.tlsCipherSuites, (m) => logger.warn(m)) ?? ''] : [] };
      server = new ControllerManagerServer({ serving, auth, registry, checks, logger }, servingCertificate(config.serving, COMPONENT));
      // (not inside `?.()`: its arguments are not evaluated when there is no callback)
      const port = await server.listen();
      o.onServing?.(port);
    }

    const { start, skipped } = selectControllers(config);
    for (const s of skipped) logger.info({ controller: s.name }, s.why);

    const runLeading = async (signal: AbortSignal): Promise<void> => {
      let clientFor: ((name: string) => RestClient) | undefined;
      if (config.useServiceAccountCredentials) {
        const sa = new ServiceAccountCredentials({ client, base, qps: config.qps, burst: config.burst, contentType: config.contentType, logger });
        credentials.push(sa);
        // retried until it works or leadership ends: the API server may still be starting
        for (;;) {
          try {
            await sa.prepare(start.map((c) => c.name), signal);
            break;
          } catch (err) {
            logger.error({ err: (err as Error).message }, 'Creating the controllers\' service account credentials failed; retrying');
            await sleep(2000, signal);
            if (signal.aborted) return;
          }
        }
        clientFor = (name) => sa.clients.get(name) ?? client;
      }
      // kube builds a clientset per controller, each with its own rate limiter and a user agent
      // ending in the controller's name; the informers share one more ("shared-informers")
      const own = new Map<string, RestClient>();
      const ownClient = (name: string): RestClient => {
        let c = own.get(name);
        if (!c) {
          c = new RestClient({ ...base, userAgent: userAgent(name) }, { qps: config.qps, burst: config.burst, contentType: config.contentType });
          own.set(name, c);
        }
        return c;
      };
      clientFor ??= ownClient;
      try {
        await runControllers({ client: ownClient('shared-informers'), clientFor, controllers: start, settings: config.settings, logger, signal, startIntervalMs: config.controllerStartIntervalMs, host: os.hostname() });
      } finally {
        for (const c of own.values()) c.close();
      }
      // with no controller running (or all stopped), keep serving until told to stop
      if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    };

    return await runLeaderElected({ settings: config.leaderElection, base, userAgent: userAgent('leader-election'), qps: config.qps, burst: config.burst, registry, checks, logger, signal: o.signal, lead: runLeading });
  } finally {
    for (const c of credentials) c.close();
    await server?.close();
    auth?.close();
    client.close();
  }
}
