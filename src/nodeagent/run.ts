/**
 * `ballast nodeagent`: the parts of the agent wired together, as kubelet's Run does it.
 *
 *   runtime services (CRI over gRPC, or the process runtime) -> KubeRuntimeManager (the
 *   ContainerRuntime) <- pod lifecycle (sources, pod workers, PLEG, status manager)
 *   node status agent (registration, status, lease) and the prober beside them.
 *
 * Each part is built from the configuration here and owns its own loops; this module starts them in
 * kubelet's order (the node first, then the pods) and stops them in reverse.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { EventRecorder } from '../client/events';
import { versionInfo } from '../server/version';
import type { NodeAgentConfig } from './config/types';
import { ImageServiceClient } from './cri/image-service-client';
import { RuntimeServiceClient } from './cri/runtime-service-client';
import { createPodRuntimeHelper } from './env/runtime-helper';
import { ContainerLogManager } from './kuberuntime/container-log-manager';
import { KubeRuntimeManager } from './kuberuntime/kube-runtime-manager';
import { DEFAULT_POD_CIDR, ensureCniConfig } from './network/cni-config';
import { LinuxHost, NodeStatusAgent, nodeHostname } from './node';
import { nodeStatusConfig } from './node/node-status-agent';
import { PodLifecycle } from './pods';
import { podUid } from './pods/annotations';
import { ProbeManager } from './prober';
import { ProcessImageService, ProcessRuntimeService } from './runtimes/process';
import { runSimulatedNodes } from './runtimes/simulated';
import { AgentMetrics } from './server/agent-metrics';
import { startAgentServer, type AgentServer } from './server/agent-server';
import type { ImageService, RuntimeService } from './types';
import { RESOURCES } from '../client/resources';
import { connectNodeAgent } from './certificate/node-connection';
import { servingCertificates } from './certificate/serving-certificate';
import { loggingRecorder } from './standalone';
import { createResourceManagement } from './resource-management';

export interface NodeAgentDeps {
  logger: Logger;
  signal: AbortSignal;
}

/** kubelet's housekeeping periods for what has no flag of its own */
const LOG_ROTATION_PERIOD_MS = 10_000;
const VOLUME_RESYNC_PERIOD_MS = 60_000;
const CONTAINER_GC_PERIOD_MS = 60_000;
/** how often the pod network's configuration follows the node's pod CIDR */
const CNI_SYNC_PERIOD_MS = 5_000;

interface RuntimeServices {
  runtime: RuntimeService;
  images: ImageService;
  /** the scheme of container ids (containerd://...) */
  type: string;
  close(): void;
}

async function runtimeServices(config: NodeAgentConfig): Promise<RuntimeServices> {
  if (config.containerRuntime === 'process') {
    const stateDir = path.join(config.rootDir, 'process-runtime');
    const runtime = new ProcessRuntimeService({ stateDir });
    // closing stops its streaming server and cuts open exec, attach and port-forward connections
    return { runtime, images: new ProcessImageService({ stateDir }), type: 'process', close: () => runtime.close() };
  }
  const runtime = new RuntimeServiceClient({ endpoint: config.containerRuntimeEndpoint, timeoutMs: config.runtimeRequestTimeoutMs });
  const images = new ImageServiceClient({ endpoint: config.imageServiceEndpoint || config.containerRuntimeEndpoint, timeoutMs: config.runtimeRequestTimeoutMs });
  let type: string;
  try {
    type = (await runtime.version()).runtimeName || 'remote';
  } catch (err) {
    runtime.close();
    images.close();
    throw new Error(`the container runtime at ${config.containerRuntimeEndpoint} does not answer: ${(err as Error).message}`);
  }
  return { runtime, images, type, close: () => (runtime.close(), images.close()) };
}

/**
 * kubelet's setupDataDirs: the root dir and the directories under it exist before anything reads
 * them (the root dir's filesystem is the node's ephemeral-storage capacity, and Ready waits for it)
 */
function setupDataDirs(rootDir: string): void {
  fs.mkdirSync(rootDir, { recursive: true, mode: 0o750 });
  for (const dir of ['pods', 'plugins', 'plugins_registry']) fs.mkdirSync(path.join(rootDir, dir), { recursive: true, mode: 0o750 });
}

/** run until `signal` aborts; resolves to the exit code */
export async function runNodeAgent(config: NodeAgentConfig, { logger, signal }: NodeAgentDeps): Promise<number> {
  // no containers, no agent server: kwok-style nodes and pods, many nodes per process
  if (config.containerRuntime === 'simulated') {
    if (!config.kubeconfig) throw new Error('--container-runtime simulated needs --kubeconfig: simulated nodes exist only in an API server');
    return runSimulatedNodes(config, { logger, signal });
  }
  const nodeName = nodeHostname(config.hostnameOverride, os.hostname());
  setupDataDirs(config.rootDir);
  // TLS bootstrap and client certificate rotation; no client at all in the standalone mode
  const api = await connectNodeAgent(config, { nodeName, logger, signal });
  const client = api?.client;
  const host = new LinuxHost({ rootDir: config.rootDir });
  const nodeIP = config.nodeIP || (await host.nodeAddress(nodeName));
  const services = await runtimeServices(config);
  const recorder = api ? new EventRecorder(api.eventClient, { component: 'kubelet', host: nodeName }, logger) : loggingRecorder(logger);

  const prober = new ProbeManager({ runtime: services.runtime, recorder });
  const resources = await createResourceManagement({ config, nodeName, host, runtime: services.runtime, images: services.images, runtimeType: services.type, recorder, logger });
  const { helper, volumes } = createPodRuntimeHelper({
    client,
    signal,
    rootDir: config.rootDir,
    recorder,
    nodeName,
    nodeIP,
    clusterDNS: [...config.clusterDNS],
    clusterDomain: config.clusterDomain,
    resolvConf: config.resolvConf,
    cgroupsPerQOS: config.cgroupsPerQOS,
    cgroupRoot: config.cgroupRoot,
    podCgroups: resources.qos,
    logger,
  });
  // filled in once the pod lifecycle exists: the runtime's garbage collector asks it about pods
  let lifecycle: PodLifecycle | undefined;
  const containerRuntime = new KubeRuntimeManager({
    runtime: services.runtime,
    images: services.images,
    helper,
    recorder,
    livenessResults: prober.liveness,
    startupResults: prober.startup,
    podLogsDir: config.podLogsDir,
    podInfraContainerImage: config.podInfraContainerImage,
    runtimeType: services.type,
    serializeImagePulls: config.serializeImagePulls,
    cpuCFSQuota: config.cpuCFSQuota,
    podStateProvider: {
      isPodDeleted: (uid) => !lifecycle?.podManager.byUid(uid),
      isPodTerminated: (uid) => {
        const phase = (lifecycle?.statusManager.get(uid) as { phase?: string } | undefined)?.phase;
        return phase === 'Succeeded' || phase === 'Failed';
      },
    },
  });

  const node = client && new NodeStatusAgent({
    client,
    nodeName,
    config: { ...nodeStatusConfig(config), nodeIP },
    host,
    runtime: containerRuntime,
    images: services.images,
    agentVersion: versionInfo().gitVersion,
    logger,
    // kubelet's node reference: the node's name stands for its uid; its status events read as kubelet's
    recordEvent: (type, reason, message) =>
      recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName, uid: nodeName } }, type, reason, message ?? `Node ${nodeName} status is now: ${reason}`),
    pressureConditions: () => resources.eviction.conditions,
  });

  lifecycle = new PodLifecycle({
    client,
    nodeName,
    runtime: containerRuntime,
    volumes: { mountPod: async (pod) => void (await volumes.mountPod(pod)), unmountPod: (uid) => volumes.unmountPod(uid) },
    probes: {
      addPod: (pod) => prober.addPod(pod),
      removePod: (pod) => prober.removePod(pod),
      // the same object: the status manager's type names fewer fields than the prober's open one
      updatePodStatus: (uid, status) => prober.updatePodStatus(uid, status as unknown as Parameters<ProbeManager['updatePodStatus']>[1]),
      onUpdate: (cb) => void prober.onUpdate((update) => cb(update.podUid)),
    },
    recorder,
    config: {
      syncFrequencyMs: config.syncFrequencyMs,
      podManifestPath: config.staticPodPath,
      fileCheckFrequencyMs: config.fileCheckFrequencyMs,
      manifestUrl: config.staticPodURL,
      manifestUrlHeaders: Object.fromEntries(Object.entries(config.staticPodURLHeader).map(([k, v]) => [k, [...v]])),
      httpCheckFrequencyMs: config.httpCheckFrequencyMs,
      maxPods: config.maxPods,
      nodeIP,
    },
    admitHandlers: [resources.eviction],
    logger,
  });
  resources.attach(lifecycle, containerRuntime);

  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, what: string, fn: () => Promise<unknown>): void => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      fn()
        .catch((err: unknown) => logger.warn({ err }, `${what} failed`))
        .finally(() => (running = false));
    }, ms);
    timer.unref();
    timers.push(timer);
  };

  node?.start();
  lifecycle.start();
  resources.start();
  const pods = lifecycle.podManager;
  const statuses = lifecycle.statusManager;
  let server: AgentServer | undefined;
  const serving = client && config.serverTLSBootstrap ? servingCertificates({ client, certDir: config.certDir, nodeName, addresses: () => ({ hostnames: [nodeName], ips: [nodeIP] }), logger }) : undefined;
  serving?.manager.start();
  if (config.enableServer) {
    const registry = new Registry();
    new AgentMetrics(registry, { processMetrics: true });
    server = await startAgentServer({
      address: config.address,
      port: config.port,
      readOnlyPort: config.readOnlyPort,
      healthzBindAddress: config.healthzBindAddress,
      healthzPort: config.healthzPort,
      tls: {
        certFile: config.tlsCertFile,
        privateKeyFile: config.tlsPrivateKeyFile,
        certDir: config.certDir,
        hostname: nodeName,
        nodeIps: [nodeIP],
        certificates: serving?.source,
        minVersion: config.tlsMinVersion === 'VersionTLS13' ? 'TLSv1.3' : config.tlsMinVersion === 'VersionTLS12' ? 'TLSv1.2' : undefined,
      },
      authentication: {
        anonymous: config.authentication.anonymous.enabled,
        clientCAFile: config.authentication.x509.clientCAFile,
        webhook: { enabled: config.authentication.webhook.enabled, cacheTtlMs: config.authentication.webhook.cacheTTLMs },
      },
      authorization: {
        mode: config.authorization.mode,
        webhook: { cacheAuthorizedTtlMs: config.authorization.webhook.cacheAuthorizedTTLMs, cacheUnauthorizedTtlMs: config.authorization.webhook.cacheUnauthorizedTTLMs },
      },
      client,
      nodeName,
      pods: {
        list: () => pods.pods(),
        // with the status this agent last generated (kubelet's statusManager.GetPodStatus), not the
        // informer's copy, which lags: a container just started has logs before the watch says so
        get: (namespace, name) => {
          const pod = pods.byFullName(`${name}_${namespace}`);
          const status = pod && statuses.get(podUid(pod));
          return pod && status ? { ...pod, status } : pod;
        },
      },
      runningPods: () => containerRuntime.getPods(false),
      runtime: services.runtime,
      registry,
      stats: resources.stats,
      checks: new Map(),
      logger,
    });
  }
  if (services.type !== 'process') {
    // the pod network: --pod-cidr, else the CIDR the controller manager gave the Node, else containerd's default
    const syncNetwork = async (): Promise<void> => {
      let cidr = config.podCIDR;
      if (!cidr) {
        const current = (await client?.get(RESOURCES.nodes, undefined, nodeName).catch(() => undefined)) as { spec?: { podCIDR?: string } } | undefined;
        cidr = current?.spec?.podCIDR || DEFAULT_POD_CIDR;
      }
      const done = ensureCniConfig(config.cniConfDir, cidr, config.networkPluginMTU);
      if (done === 'written') logger.info({ podCIDR: cidr, dir: config.cniConfDir }, 'Wrote the pod network configuration');
    };
    await syncNetwork().catch((err: unknown) => logger.warn({ err }, 'Pod network configuration failed'));
    every(CNI_SYNC_PERIOD_MS, 'Pod network configuration', syncNetwork);
    const logs = new ContainerLogManager({ runtime: services.runtime, maxSizeBytes: config.containerLogMaxSizeBytes, maxFiles: config.containerLogMaxFiles });
    every(LOG_ROTATION_PERIOD_MS, 'Container log rotation', () => logs.rotateLogs());
  }
  every(VOLUME_RESYNC_PERIOD_MS, 'Volume resync', () => volumes.resync());
  every(CONTAINER_GC_PERIOD_MS, 'Container garbage collection', () =>
    containerRuntime.garbageCollect(
      { minAgeMs: config.minimumContainerTTLMs, maxPerPodContainer: config.maxPerPodContainerCount, maxContainers: config.maxContainerCount },
      lifecycle!.allSourcesReady(),
      false,
    ),
  );
  logger.info({ node: nodeName, nodeIP, runtime: services.type, port: server?.port }, 'Node agent started');

  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  for (const timer of timers) clearInterval(timer);
  await server?.close();
  await resources.stop();
  await lifecycle.stop();
  prober.stop();
  await node?.stop();
  await serving?.manager.stop();
  await api?.close();
  services.close();
  return 0;
}
