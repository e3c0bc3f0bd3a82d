/**
 * The API calls preemption makes, behind a narrow interface so tests can record them instead.
 */
import { RESOURCES } from '../../../client/resources';
import type { RestClient } from '../../../client/rest-client';
import type { KubeObject } from '../../../client/types';

export interface PreemptionActions {
  /** delete a victim (kube's util.DeletePod: default grace period, no preconditions) */
  deletePod(pod: KubeObject): Promise<void>;
  /** remove status.nominatedNodeName (kube's util.ClearNominatedNodeName: a patch of the status subresource) */
  clearNominatedNodeName(pod: KubeObject): Promise<void>;
}

export function apiActions(client: RestClient): PreemptionActions {
  return {
    async deletePod(pod) {
      await client.delete(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '');
    },
    async clearNominatedNodeName(pod) {
      await client.patch(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', 'strategic', { status: { nominatedNodeName: null } }, { subresource: 'status' });
    },
  };
}
