/**
 * ImageLocality (kube 1.20): favours nodes that already hold the pod's container images. Each
 * image present counts its size scaled by the share of nodes that have it (so an image on every
 * node helps no node more than another); the sum is clamped between 23MB and 1000MB per
 * container and mapped linearly onto 0-100.
 */
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { podSpec } from '../../framework/resource';
import { errorStatus, type Status } from '../../framework/status';
import { MAX_NODE_SCORE, type FrameworkHandle, type PluginFactory } from '../../framework/types';

export const IMAGE_LOCALITY = 'ImageLocality';

const MB = 1024 * 1024;
export const MIN_THRESHOLD = 23 * MB;
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;

/** kube's normalizedImageName: an image without a tag is the `:latest` one */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? `${name}:latest` : name;
}

/** kube's calculatePriority */
export function imageLocalityScore(sumScores: number, numContainers: number): number {
  const max = MAX_CONTAINER_THRESHOLD * numContainers;
  // raised to the minimum first, else lowered to the maximum, as kube does
  const clamped = sumScores < MIN_THRESHOLD ? MIN_THRESHOLD : sumScores > max ? max : sumScores;
  return Math.trunc((MAX_NODE_SCORE * (clamped - MIN_THRESHOLD)) / (max - MIN_THRESHOLD));
}

export const newImageLocality: PluginFactory = (_args, handle: FrameworkHandle) => {
  let lastPod: KubeObject | undefined;
  let images: string[] = [];
  return {
    name: IMAGE_LOCALITY,
    score(_state, pod: KubeObject, nodeInfo: NodeInfo): number | Status {
      if (!nodeInfo.node) return errorStatus(new Error(`getting node "${nodeInfo.name}" from Snapshot: node not found`));
      if (lastPod !== pod) {
        images = (podSpec(pod).containers ?? []).map((c) => normalizedImageName(c.image ?? ''));
        lastPod = pod;
      }
      const totalNodes = handle.snapshot().list().length;
      let sum = 0;
      for (let i = 0; i < images.length; i++) {
        const state = nodeInfo.imageStates.get(images[i]);
        // kube truncates each image's scaled size to an integer
        if (state) sum += Math.trunc(state.size * (state.numNodes / totalNodes));
      }
      return imageLocalityScore(sum, images.length);
    },
  };
};
