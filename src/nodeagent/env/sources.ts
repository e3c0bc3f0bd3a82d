/**
 * The API objects the node agent reads to build a container's environment and volumes, behind a
 * narrow interface so tests can fake them. `apiObjectSources` reads them through the REST client
 * (kubelet 1.20 reads through its configMap/secret managers; a plain GET is the same answer), and
 * services through an informer.
 */
import { isNotFound } from '../../client/errors';
import { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { resourcePath, type RestClient } from '../../client/rest-client';
import type { KubeObject } from '../../client/types';

/** a TokenRequest's spec, as the projected serviceAccountToken source asks for it */
export interface TokenRequestSpec {
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef: { apiVersion: string; kind: string; name: string; uid: string };
}

export interface IssuedToken {
  token: string;
  /** epoch milliseconds */
  expirationTimestamp: number;
}

export interface ObjectSources {
  /** undefined when the object does not exist; other failures throw */
  getConfigMap(namespace: string, name: string): Promise<KubeObject | undefined>;
  getSecret(namespace: string, name: string): Promise<KubeObject | undefined>;
  listServices(namespace: string): Promise<KubeObject[]>;
  getPersistentVolumeClaim(namespace: string, name: string): Promise<KubeObject | undefined>;
  getPersistentVolume(name: string): Promise<KubeObject | undefined>;
  /** POST serviceaccounts/<name>/token */
  createToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec): Promise<IssuedToken>;
}

/** what records kube's events (the client's EventRecorder fits) */
export interface Recorder {
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

async function orUndefined(p: Promise<KubeObject>): Promise<KubeObject | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Services come from an informer started at the first pod that needs them, as kubelet's service
 * lister: a LIST per container start would spend a throttled client's requests (--kube-api-qps) on
 * the same answer. Without a signal to stop it (one-off uses), each call LISTs.
 */
export function apiObjectSources(client: RestClient, signal?: AbortSignal): ObjectSources {
  let services: { informer: SharedInformer; synced: Promise<boolean> } | undefined;
  return {
    getConfigMap: (ns, name) => orUndefined(client.get(RESOURCES.configMaps, ns, name)),
    getSecret: (ns, name) => orUndefined(client.get(RESOURCES.secrets, ns, name)),
    async listServices(ns) {
      if (signal && !signal.aborted) {
        if (!services) {
          const informer = new SharedInformer(client, RESOURCES.services);
          void informer.run(signal);
          services = { informer, synced: informer.waitForSync(signal) };
        }
        if (await services.synced) return services.informer.store.list().filter((svc) => svc.metadata?.namespace === ns);
      }
      return (await client.list(RESOURCES.services, ns)).items;
    },
    getPersistentVolumeClaim: (ns, name) => orUndefined(client.get(RESOURCES.persistentVolumeClaims, ns, name)),
    getPersistentVolume: (name) => orUndefined(client.get(RESOURCES.persistentVolumes, undefined, name)),
    async createToken(ns, serviceAccount, spec) {
      const request = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: serviceAccount, namespace: ns }, spec };
      // JSON: the protobuf codec would encode the body as the resource's kind (ServiceAccount)
      const path = resourcePath(RESOURCES.serviceAccounts, ns, serviceAccount, 'token');
      const answer = (await client.request('POST', path, { body: request, protobuf: false })) as KubeObject;
      const status = (answer.status ?? {}) as { token?: string; expirationTimestamp?: string };
      return { token: status.token ?? '', expirationTimestamp: Date.parse(status.expirationTimestamp ?? '') || 0 };
    },
  };
}
