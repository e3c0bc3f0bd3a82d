/**
 * LimitPodHardAntiAffinityTopology (kube's plugin/pkg/admission/antiaffinity): the required
 * (hard) pod anti-affinity terms of a pod may only use the node's hostname as topology key, so a
 * pod cannot keep a whole zone or region to itself.
 */
import type { Admission } from '../types';
import { admissionForbidden, isResource } from '../forbidden';
import { validating } from '../chain';
import { podSpec } from './pod';
import { isObj } from './plugin-config';

const HOSTNAME = 'kubernetes.io/hostname';

export function limitPodHardAntiAffinityTopology(): Admission {
  return validating((a) => {
    if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || !isResource(a, '', 'pods') || !a.object) return;
    const anti = podSpec(a.object).affinity?.podAntiAffinity;
    const terms = isObj(anti) ? anti.requiredDuringSchedulingIgnoredDuringExecution : undefined;
    if (!Array.isArray(terms)) return;
    for (const term of terms) {
      const key = isObj(term) ? term.topologyKey : undefined;
      if (key !== HOSTNAME) {
        throw admissionForbidden(a, `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${String(key ?? '')} but only key ${HOSTNAME} is allowed`);
      }
    }
  });
}
