/**
 * kube 1.20's PodInfo.ParseError: the first invalid label selector of each list of the pod's
 * affinity terms, aggregated. The framework's PodInfo reads such a selector as selecting nothing;
 * InterPodAffinity refuses the pod instead, with kube's `parsing pod: ...` message.
 */
import { labelSelectorFromObject, type LabelSelectorObject } from '../../../api/selectors';
import type { KubeObject } from '../../../client/types';
import { podSpec } from '../../framework/resource';

interface TermObject {
  labelSelector?: LabelSelectorObject | null;
}

interface TermsObject {
  requiredDuringSchedulingIgnoredDuringExecution?: TermObject[];
  preferredDuringSchedulingIgnoredDuringExecution?: Array<{ podAffinityTerm?: TermObject }>;
}

function firstError(terms: ReadonlyArray<TermObject | undefined>): string | undefined {
  for (const t of terms) {
    try {
      labelSelectorFromObject(t?.labelSelector);
    } catch (err) {
      return (err as Error).message;
    }
  }
  return undefined;
}

/** undefined when every selector parses; otherwise the aggregate message */
export function podParseError(pod: KubeObject): string | undefined {
  const affinity = podSpec(pod).affinity as { podAffinity?: TermsObject; podAntiAffinity?: TermsObject } | undefined;
  if (!affinity || (!affinity.podAffinity && !affinity.podAntiAffinity)) return undefined;
  const lists: Array<[string, ReadonlyArray<TermObject | undefined>]> = [
    ['requiredAffinityTerms', affinity.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []],
    ['requiredAntiAffinityTerms', affinity.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []],
    ['preferredAffinityTerms', (affinity.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => w.podAffinityTerm)],
    ['preferredAntiAffinityTerms', (affinity.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => w.podAffinityTerm)],
  ];
  const errs: string[] = [];
  for (const [name, terms] of lists) {
    const e = firstError(terms);
    if (e !== undefined) errs.push(`${name}: ${e}`);
  }
  if (errs.length === 0) return undefined;
  return errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
}
