/**
 * Mirror pods (kubelet's pod.MirrorClient): the API's read-only copy of a static pod, carrying the
 * static pod's hash in config.mirror and owned by the Node (as 1.20 sets it), so that deleting the
 * Node removes it.
 */
import { isAlreadyExists, isConflict, isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import type { Pod } from '../types';
import { CONFIG_MIRROR, staticPodHash } from './annotations';

export class MirrorPods {
  readonly #client: RestClient;
  readonly #nodeName: string;

  constructor(client: RestClient, nodeName: string) {
    this.#client = client;
    this.#nodeName = nodeName;
  }

  /** create the mirror pod of a static pod; an existing one is left alone */
  async create(pod: Pod): Promise<void> {
    const node = await this.#client.get(RESOURCES.nodes, undefined, this.#nodeName);
    const meta = pod.metadata ?? {};
    const mirror: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: meta.name,
        namespace: meta.namespace,
        labels: meta.labels,
        annotations: { ...(meta.annotations ?? {}), [CONFIG_MIRROR]: staticPodHash(pod) },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.#nodeName, uid: node.metadata?.uid ?? '', controller: true }],
      },
      spec: pod.spec,
    };
    try {
      await this.#client.create(RESOURCES.pods, meta.namespace, mirror);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  /** delete a mirror pod at once (grace 0), only the one with this UID when given; false when it was gone */
  async delete(namespace: string, name: string, uid?: string): Promise<boolean> {
    try {
      await this.#client.delete(RESOURCES.pods, namespace, name, { gracePeriodSeconds: 0, preconditions: uid ? { uid } : undefined });
      return true;
    } catch (err) {
      if (isNotFound(err) || isConflict(err)) return false;
      throw err;
    }
  }
}
