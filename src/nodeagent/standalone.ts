/**
 * The standalone mode (kubelet without --kubeconfig): no API server at all. The agent runs the
 * static pods of --pod-manifest-path and --manifest-url, registers no node, writes no status and
 * makes no mirror pods. What would need the API has a stand-in here: events go to the log, and a
 * pod's env or volumes that read API objects fail with kubelet's reason ("no kubeClient defined").
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../client/types';
import type { ObjectSources, Recorder } from './env/sources';

function noClient(what: string, namespace: string, name: string): Error {
  return new Error(`couldn't get ${what} ${namespace}/${name}, no kubeClient defined (the node agent runs standalone)`);
}

/** API objects as the standalone agent sees them: services none, everything else unavailable */
export function standaloneObjectSources(): ObjectSources {
  return {
    getConfigMap: async (ns, name) => Promise.reject(noClient('configMap', ns, name)),
    getSecret: async (ns, name) => Promise.reject(noClient('secret', ns, name)),
    // kubelet without a service lister gives pods no service variables
    listServices: async () => [],
    getPersistentVolumeClaim: async (ns, name) => Promise.reject(noClient('persistentVolumeClaim', ns, name)),
    getPersistentVolume: async (name) => Promise.reject(noClient('persistentVolume', '', name)),
    createToken: async (ns, sa) => Promise.reject(noClient('a token for serviceAccount', ns, sa)),
  };
}

/** events with nowhere to go: written to the log (kubelet's broadcaster without a sink logs them) */
export function loggingRecorder(logger: Logger): Recorder {
  return {
    event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
      logger.info({ object: `${obj.kind ?? ''}/${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name ?? ''}`, type, reason }, message);
    },
  };
}
