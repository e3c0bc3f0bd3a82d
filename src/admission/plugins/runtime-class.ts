/**
 * RuntimeClass (kube's plugin/pkg/admission/runtimeclass): a new pod naming a runtimeClassName
 * must name an existing RuntimeClass; it gets the class's pod overhead (a different overhead in
 * the pod is refused) and the class's scheduling: node selector merged (a conflicting value is
 * refused) and tolerations added.
 */
import type { Admission } from '../types';
import type { AdmissionPluginContext, ResourceRef } from '../context';
import { admissionForbidden } from '../forbidden';
import { jsonEqual } from '../../api/json-value';
import { mutating } from '../chain';
import type { ResourceList, Toleration } from './pod';
import { createdPod, podSpec } from './pod';

const RUNTIME_CLASSES: ResourceRef = { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses' };

interface RuntimeClass {
  overhead?: { podFixed?: ResourceList };
  scheduling?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
}

export function runtimeClass(ctx: AdmissionPluginContext): Admission {
  return mutating(async (a) => {
    const pod = createdPod(a);
    if (!pod) return;
    const spec = podSpec(pod);
    if (!spec.runtimeClassName) return;
    const rc = (await ctx.objects.get(RUNTIME_CLASSES, '', spec.runtimeClassName)) as RuntimeClass | undefined;
    if (!rc) throw admissionForbidden(a, `pod rejected: RuntimeClass "${spec.runtimeClassName}" not found`);
    const fixed = rc.overhead?.podFixed;
    if (fixed) {
      if (spec.overhead && !jsonEqual(spec.overhead, fixed)) throw admissionForbidden(a, 'pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead');
      spec.overhead = { ...fixed };
    }
    const selector = rc.scheduling?.nodeSelector ?? {};
    for (const [k, v] of Object.entries(selector)) {
      const have = spec.nodeSelector?.[k];
      if (have !== undefined && have !== v) throw admissionForbidden(a, `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${have}`);
    }
    if (Object.keys(selector).length) spec.nodeSelector = { ...(spec.nodeSelector ?? {}), ...selector };
    const extra = (rc.scheduling?.tolerations ?? []).filter((t) => !(spec.tolerations ?? []).some((have) => jsonEqual(have, t)));
    if (extra.length) spec.tolerations = [...(spec.tolerations ?? []), ...extra];
  });
}
