/**
 * The node's container runtime for `ballast all`, chosen as a user expects (issue 13): the CRI
 * runtime named by --container-runtime-endpoint; else containerd at its usual socket; else, when the
 * containerd binary (with runc and its shim) exists and we are root, a containerd Ballast starts
 * with its state in the data dir, as k3s does; else the process runtime, with a warning saying why.
 */
import fs from 'node:fs';
import type { Logger } from 'pino';
import { RuntimeServiceClient } from '../nodeagent/cri/runtime-service-client';
import { allPaths, type AllConfig } from '../options/all';
import { startManagedContainerd, whichBinary } from './containerd';
import { PAUSE_IMAGE } from '../nodeagent/cri/busybox-images';
import { OFFLINE_PAUSE_IMAGE, importImages, offlineImagesUnavailable } from './images';

export interface ChosenRuntime {
  kind: 'remote' | 'containerd' | 'process' | 'simulated';
  /** the node agent's runtime flags */
  agentArgs: string[];
  stop(): Promise<void>;
}

/** where containerd (and k3s's) listen when installed as a service */
export const USUAL_CONTAINERD_SOCKETS = Object.freeze(['/run/containerd/containerd.sock', '/run/k3s/containerd/containerd.sock']);

const nothingToStop = async (): Promise<void> => {};

async function answers(endpoint: string): Promise<string | undefined> {
  const client = new RuntimeServiceClient({ endpoint, timeoutMs: 3000 });
  try {
    const v = await client.version();
    return `${v.runtimeName} ${v.runtimeVersion}`;
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

/** why Ballast cannot start a containerd here, or undefined when it can */
export function managedContainerdUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root';
  const missing = ['containerd', 'ctr', 'runc', 'containerd-shim-runc-v2'].filter((b) => !whichBinary(b));
  if (missing.length > 0) return `${missing.join(', ')} not found on PATH`;
  return undefined;
}

async function managed(config: AllConfig, logger: Logger): Promise<ChosenRuntime> {
  const paths = allPaths(config.apiserver.dataDir);
  const unavailable = config.offlineImages ? offlineImagesUnavailable() : undefined;
  if (unavailable) logger.warn({ reason: unavailable }, `--offline-images: no images built: ${unavailable}`);
  const offline = config.offlineImages && !unavailable;
  const sandboxImage = offline ? OFFLINE_PAUSE_IMAGE : PAUSE_IMAGE;
  const containerd = await startManagedContainerd({ dir: paths.containerd, sandboxImage, logger });
  try {
    await importImages({ socket: containerd.socket, snapshotter: containerd.snapshotter, airGapDir: paths.images, offline, logger });
  } catch (err) {
    await containerd.stop();
    throw err;
  }
  return {
    kind: 'containerd',
    agentArgs: [
      '--container-runtime=remote',
      `--container-runtime-endpoint=${containerd.endpoint}`,
      `--cni-conf-dir=${containerd.cniConfDir}`,
      `--pod-infra-container-image=${sandboxImage}`,
    ],
    stop: containerd.stop,
  };
}

export async function chooseRuntime({ config, logger }: { config: AllConfig; logger: Logger }): Promise<ChosenRuntime> {
  const remote = (endpoint: string): ChosenRuntime => ({ kind: 'remote', agentArgs: ['--container-runtime=remote', `--container-runtime-endpoint=${endpoint}`], stop: nothingToStop });
  switch (config.runtime) {
    case 'process':
      return { kind: 'process', agentArgs: ['--container-runtime=process'], stop: nothingToStop };
    case 'simulated':
      return { kind: 'simulated', agentArgs: ['--container-runtime=simulated'], stop: nothingToStop };
    case 'remote': {
      const endpoint = config.runtimeEndpoint!;
      if (!(await answers(endpoint))) throw new Error(`the container runtime at ${endpoint} does not answer`);
      return remote(endpoint);
    }
    case 'containerd': {
      const why = managedContainerdUnavailable();
      if (why) throw new Error(`--container-runtime containerd: Ballast cannot start containerd: ${why}`);
      return managed(config, logger);
    }
    case 'auto': {
      if (config.runtimeEndpoint) {
        if (!(await answers(config.runtimeEndpoint))) throw new Error(`the container runtime at ${config.runtimeEndpoint} does not answer`);
        return remote(config.runtimeEndpoint);
      }
      for (const socket of USUAL_CONTAINERD_SOCKETS) {
        if (!fs.existsSync(socket)) continue;
        const version = await answers(`unix://${socket}`);
        if (version) {
          logger.info({ socket, version }, 'Using the containerd at its usual socket');
          return remote(`unix://${socket}`);
        }
      }
      const why = managedContainerdUnavailable();
      if (!why) return managed(config, logger);
      logger.warn(
        { reason: why },
        `No container runtime: containers run as host processes (the process runtime), without isolation or images. For containers, install containerd and runc and run Ballast as root, or give --container-runtime-endpoint (${why})`,
      );
      return { kind: 'process', agentArgs: ['--container-runtime=process'], stop: nothingToStop };
    }
  }
}
