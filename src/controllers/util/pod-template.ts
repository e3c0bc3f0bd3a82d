/**
 * A pod from a controller's template (controller.GetPodFromTemplate): the template's labels,
 * annotations, finalizers and spec, `generateName: <owner>-` (kube's name generation: the server
 * appends five random characters), and the owner as controller.
 */
import type { KubeObject } from '../../client/types';
import { newControllerRef } from './controller-ref';

/** kube's getPodsPrefix: `<owner>-`, or the bare name when the dash would make an invalid pod name */
export function podNamePrefix(ownerName: string): string {
  const prefix = `${ownerName}-`;
  return /^[a-z0-9]([-a-z0-9.]*)?$/.test(prefix) && prefix.length <= 253 ? prefix : ownerName;
}

export function podFromTemplate(owner: KubeObject, template: KubeObject | undefined): KubeObject {
  const meta = (template?.metadata ?? {}) as NonNullable<KubeObject['metadata']>;
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: podNamePrefix(owner.metadata?.name ?? ''),
      namespace: owner.metadata?.namespace,
      labels: { ...(meta.labels ?? {}) },
      annotations: { ...(meta.annotations ?? {}) },
      ownerReferences: [newControllerRef(owner)],
    },
    spec: structuredClone(template?.spec ?? {}),
  };
  if (meta.finalizers?.length) pod.metadata!.finalizers = [...meta.finalizers];
  return pod;
}
