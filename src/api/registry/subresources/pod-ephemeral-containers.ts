/**
 * pods/<name>/ephemeralcontainers (kube 1.23+): GET answers the pod; PUT and PATCH take a pod of
 * which only spec.ephemeralContainers is kept (kube's podEphemeralContainersStrategy keeps the
 * stored pod, metadata included, but for the name, uid and resourceVersion). The result is
 * validated as a pod, then by the ephemeral-container change rules. `kubectl debug` patches it.
 */
import type { KubeObject } from '../../kind';
import { validateEphemeralContainers, validateEphemeralContainersUpdate } from '../../kinds/core/ephemeral-containers';
import { POD_RESTART_POLICIES, validatePodSpec } from '../../kinds/pod-template';
import { ensureObj, objAt } from '../../kinds/util';
import { partialSubresource } from './partial';

function merge(written: KubeObject, old: KubeObject): KubeObject {
  const spec = ensureObj(old, 'spec');
  const containers = objAt(written, 'spec')?.ephemeralContainers;
  if (containers === undefined || containers === null) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = containers;
  return old;
}

export const podEphemeralContainers = partialSubresource({
  name: 'ephemeralcontainers',
  metadataFrom: 'stored',
  merge,
  validate(pod, old) {
    const spec = objAt(pod, 'spec') ?? {};
    const causes = [...validatePodSpec(spec, 'spec', { restartPolicies: POD_RESTART_POLICIES }), ...validateEphemeralContainers(spec, 'spec.ephemeralContainers')];
    const update = validateEphemeralContainersUpdate(pod, old);
    // kube answers a static pod with that one error alone
    if (update.length === 1 && update[0].field === '') return update;
    return [...causes, ...update];
  },
});
