/**
 * `ballast scheduler` at run time: one client of the API server, the HTTPS endpoint (and the
 * deprecated plain-HTTP port), leader election, and while leading the informers, cache, queue and
 * scheduling loop of every profile. Start-up builds each profile's plugins first, so a bad plugin
 * or plugin argument stops the process before it touches the cluster.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { EventRecorder } from '../client/events';
import { NAMESPACE_INDEX, byNamespace, type Indexer } from '../client/indexer';
import { InformerFactory } from '../client/informer-factory';
import { loadClientConfig } from '../client/kubeconfig';
import { runLeaderElected, type LeaderElectionSettings } from '../client/leader-run';
import { RestClient } from '../client/rest-client';
import { RESOURCES } from '../client/resources';
import type { KubeObject, ResourceRef } from '../client/types';
import { DelegatedAuth } from '../controllers/delegated-auth';
import { ControllerManagerServer, servingCertificate, type HealthCheck } from '../controllers/serving';
import type { DelegatedAuthConfig, ServingConfig } from '../options/controller-manager';
import type { FeatureGates } from '../options/feature-gates';
import { tlsCipherList } from '../server/tls-options';
import { versionInfo } from '../server/version';
import { SchedulerCache } from './cache';
import { Snapshot } from './framework/snapshot';
import { SchedulerMetrics } from './metrics';
import { pluginRegistry } from './plugins/registry';
import { SchedulingQueue } from './queue/scheduling-queue';
import type { PluginFactory } from './framework/types';
import { Framework, type ProfileConfig } from './runtime';
import { Scheduler } from './scheduler';

const COMPONENT = 'kube-scheduler';

/** what the scheduler runs with (from flags and the configuration file) */
export interface SchedulerRunConfig {
  kubeconfig?: string;
  master?: string;
  contentType: 'application/vnd.kubernetes.protobuf' | 'application/json';
  qps: number;
  burst: number;
  profiles: readonly ProfileConfig[];
  percentageOfNodesToScore: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  leaderElection: LeaderElectionSettings;
  serving: ServingConfig;
  auth: DelegatedAuthConfig;
  /** the deprecated plain-HTTP endpoints (healthz and metrics; one server when they are the same): `host:port`, '' for none */
  insecureAddresses: readonly string[];
  featureGates: FeatureGates;
  /** profiles that need the API first (a --policy-configmap Policy): read once the client exists */
  loadProfiles?: (getConfigMap: (namespace: string, name: string) => Promise<KubeObject>) => Promise<readonly ProfileConfig[]>;
}

/** client-go's user agent for kube-scheduler */
export function schedulerUserAgent(suffix?: string): string {
  const v = versionInfo();
  const base = `${COMPONENT}/${v.gitVersion} (${v.platform}) kubernetes/${v.gitCommit || 'ballast'}`;
  return suffix ? `${base}/${suffix}` : base;
}

export interface RunSchedulerOptions {
  config: SchedulerRunConfig;
  logger: Logger;
  signal: AbortSignal;
  /** the secure and insecure ports once listening (tests use port 0) */
  onServing?: (ports: { secure?: number; insecure?: number }) => void;
}

/** resources plugins read through listers: their informers start with the scheduler */
const LISTED: readonly ResourceRef[] = [
  RESOURCES.services,
  RESOURCES.replicationControllers,
  RESOURCES.replicaSets,
  RESOURCES.statefulSets,
  RESOURCES.persistentVolumes,
  RESOURCES.persistentVolumeClaims,
  RESOURCES.storageClasses,
  RESOURCES.csiNodes,
  RESOURCES.podDisruptionBudgets,
];

/** run until the signal aborts (0) or the lease is lost (1); start-up failures throw */
export async function runScheduler(o: RunSchedulerOptions): Promise<number> {
  const { config, logger } = o;
  const base = loadClientConfig(config.kubeconfig, { master: config.master, userAgent: schedulerUserAgent() });
  const client = new RestClient(base, { qps: config.qps, burst: config.burst, contentType: config.contentType });
  // kube's scheduler sends events through a client of its own (same limits)
  const eventClient = new RestClient({ ...base, userAgent: schedulerUserAgent('scheduler') }, { qps: config.qps, burst: config.burst, contentType: 'application/json' });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = new SchedulerMetrics(registry);
  const checks = new Map<string, HealthCheck>();
  const servers: ControllerManagerServer[] = [];
  let auth: DelegatedAuth | undefined;
  try {
    const profiles = config.loadProfiles ? await config.loadProfiles((ns, name) => client.get(RESOURCES.configMaps, ns, name)) : config.profiles;
    // a fresh world per term of leadership; the plugins are built now to fail fast, and again per term
    const build = () => buildScheduler({ ...config, profiles }, { client, eventClient, logger, metrics });
    build();

    const ports: { secure?: number; insecure?: number } = {};
    if (config.serving.securePort !== 0) {
      auth = await DelegatedAuth.create(config.auth, logger.child({ component: 'authentication' }), schedulerUserAgent('auth'));
      const serving = { ...config.serving, tlsCipherSuites: config.serving.tlsCipherSuites.length ? [tlsCipherList(config.serving.tlsCipherSuites, (m) => logger.warn(m)) ?? ''] : [] };
      const server = new ControllerManagerServer({ serving, auth, registry, checks, logger }, servingCertificate(config.serving, COMPONENT));
      servers.push(server);
      ports.secure = await server.listen();
    }
    for (const address of new Set(config.insecureAddresses.filter((a) => a !== ''))) {
      const at = address.lastIndexOf(':');
      const host = address.slice(0, at).replace(/^\[|\]$/g, '');
      const server = new ControllerManagerServer({ serving: { bindAddress: host, securePort: Number(address.slice(at + 1)), tlsCipherSuites: [] }, registry, checks, logger });
      servers.push(server);
      ports.insecure ??= await server.listen();
    }
    o.onServing?.(ports);

    const lead = async (signal: AbortSignal): Promise<void> => {
      // every informer, the queue and the loop listen to it
      setMaxListeners(0, signal);
      const { scheduler, informers } = build();
      scheduler.addEventHandlers();
      informers.start(signal);
      if (!(await informers.waitForCacheSync(signal))) return;
      logger.info('Caches are synced; scheduling');
      await scheduler.run(signal);
      await informers.stopped();
    };
    return await runLeaderElected({ settings: config.leaderElection, base, userAgent: schedulerUserAgent('leader-election'), qps: config.qps, burst: config.burst, registry, checks, logger, signal: o.signal, lead });
  } finally {
    for (const s of servers) await s.close();
    auth?.close();
    client.close();
    eventClient.close();
  }
}

/** the informers, cache, queue, profiles and loop of one scheduler */
export function buildScheduler(
  config: Pick<SchedulerRunConfig, 'profiles' | 'percentageOfNodesToScore' | 'podInitialBackoffSeconds' | 'podMaxBackoffSeconds' | 'featureGates'>,
  deps: { client: RestClient; eventClient?: RestClient; logger: Logger; metrics?: SchedulerMetrics; plugins?: Record<string, PluginFactory> },
): { scheduler: Scheduler; informers: InformerFactory; queue: SchedulingQueue; cache: SchedulerCache; profiles: Map<string, Framework> } {
  const { client, logger, metrics } = deps;
  const informers = new InformerFactory(client, { logger });
  // terminated pods hold nothing: the scheduler never sees them (kube's pod informer selector)
  informers.informerFor(RESOURCES.pods, { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' });
  const listers = new Map<string, Indexer>();
  const lister = (ref: ResourceRef): Indexer => {
    const key = `${ref.group}/${ref.resource}`;
    let store = listers.get(key);
    if (!store) {
      store = informers.informerFor(ref).store;
      if (ref.namespaced) store.addIndexer(NAMESPACE_INDEX, byNamespace);
      listers.set(key, store);
    }
    return store;
  };
  for (const ref of LISTED) lister(ref);
  const snapshot = new Snapshot();
  const cache = new SchedulerCache();
  let queue: SchedulingQueue | undefined;
  const profiles = new Map<string, Framework>();
  const recorders = new Map<string, EventRecorder>();
  const registry = pluginRegistry();
  for (const [name, factory] of Object.entries(deps.plugins ?? {})) registry.set(name, factory);
  // the queue's order comes from the profiles' (identical) QueueSort plugin; the queue holds the nominator
  const nominatorProxy = {
    nominatedPodsForNode: (n: string) => queue!.nominator.nominatedPodsForNode(n),
    addNominatedPod: (p: Parameters<SchedulingQueue['nominator']['addNominatedPod']>[0], n: string) => queue!.nominator.addNominatedPod(p, n),
    deleteNominatedPodIfExists: (p: Parameters<SchedulingQueue['nominator']['deleteNominatedPodIfExists']>[0]) => queue!.nominator.deleteNominatedPodIfExists(p),
  };
  for (const profile of config.profiles) {
    const recorder = new EventRecorder(deps.eventClient ?? client, { component: profile.schedulerName }, logger);
    recorders.set(profile.schedulerName, recorder);
    const fwk = new Framework(profile, registry, {
      client,
      lister,
      recorder,
      nominator: nominatorProxy,
      logger: logger.child({ profile: profile.schedulerName }),
      featureGates: config.featureGates,
      snapshot: () => snapshot,
    });
    profiles.set(profile.schedulerName, fwk);
  }
  const first = profiles.values().next().value as Framework | undefined;
  if (!first) throw new Error('at least one profile is required');
  queue = new SchedulingQueue({
    less: (a, b) => first.queueSortLess(a, b),
    initialBackoffMs: config.podInitialBackoffSeconds * 1000,
    maxBackoffMs: config.podMaxBackoffSeconds * 1000,
    onChange: (c) => {
      metrics?.pendingPods.set({ queue: 'active' }, c.active);
      metrics?.pendingPods.set({ queue: 'backoff' }, c.backoff);
      metrics?.pendingPods.set({ queue: 'unschedulable' }, c.unschedulable);
    },
  });
  const scheduler = new Scheduler({ client, informers, profiles, recorders, queue, cache, snapshot, percentageOfNodesToScore: config.percentageOfNodesToScore, metrics, logger });
  return { scheduler, informers, queue, cache, profiles };
}
