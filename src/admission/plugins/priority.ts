/**
 * Priority (kube's plugin/pkg/admission/priority). A new pod's priorityClassName resolves to its
 * priority and preemptionPolicy (a name that does not exist is refused); a pod without one gets the
 * global default class (the lowest-valued one marked globalDefault) or priority 0. A priority given
 * in the pod that differs from the computed one is refused. Updates keep the stored values. A
 * PriorityClass may be marked globalDefault only when no other is.
 */
import type { KubeObject } from '../../api/kind';
import type { Admission } from '../types';
import type { AdmissionPluginContext, ResourceRef } from '../context';
import { admissionForbidden, isResource } from '../forbidden';
import { podSpec } from './pod';

const PRIORITY_CLASSES: ResourceRef = { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' };

interface PriorityClass extends KubeObject {
  value?: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

export function priority(ctx: AdmissionPluginContext): Admission {
  const defaultClass = async (): Promise<PriorityClass | undefined> => {
    const defaults = ((await ctx.objects.list(PRIORITY_CLASSES)) as PriorityClass[]).filter((pc) => pc.globalDefault);
    return defaults.sort((a, b) => (a.value ?? 0) - (b.value ?? 0))[0];
  };
  return {
    async admit(a) {
      if (!isResource(a, '', 'pods') || !a.object) return;
      const spec = podSpec(a.object);
      if (a.operation === 'UPDATE') {
        const old = a.oldObject ? podSpec(a.oldObject) : undefined;
        if (spec.priority === undefined && old?.priority !== undefined) spec.priority = old.priority;
        if (spec.preemptionPolicy === undefined && old?.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
        return;
      }
      if (a.operation !== 'CREATE') return;
      let value = 0;
      let policy: string | undefined = 'PreemptLowerPriority';
      if (!spec.priorityClassName) {
        const pc = await defaultClass();
        if (pc) {
          spec.priorityClassName = pc.metadata?.name;
          value = pc.value ?? 0;
          policy = pc.preemptionPolicy;
        }
      } else {
        const pc = (await ctx.objects.get(PRIORITY_CLASSES, '', spec.priorityClassName)) as PriorityClass | undefined;
        if (!pc) throw admissionForbidden(a, `no PriorityClass with name ${spec.priorityClassName} was found`);
        value = pc.value ?? 0;
        policy = pc.preemptionPolicy;
      }
      if (spec.priority !== undefined && spec.priority !== null && spec.priority !== value) {
        throw admissionForbidden(a, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`);
      }
      spec.priority = value;
      if (policy !== undefined) {
        if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== policy) {
          throw admissionForbidden(a, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
        }
        spec.preemptionPolicy = policy;
      }
    },
    async validate(a) {
      if (!isResource(a, 'scheduling.k8s.io', 'priorityclasses') || !a.object) return;
      if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
      if (!(a.object as PriorityClass).globalDefault) return;
      const current = await defaultClass();
      if (current && (a.operation === 'CREATE' || current.metadata?.name !== a.object.metadata?.name)) {
        throw admissionForbidden(a, `PriorityClass ${current.metadata?.name} is already marked as default. Only one default can exist`);
      }
    },
  };
}
