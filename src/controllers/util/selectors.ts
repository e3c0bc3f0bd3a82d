/**
 * The selectors of workload objects, as the API server's selector code reads them: apps/v1 kinds
 * carry a metav1.LabelSelector, a ReplicationController a plain map (which selects nothing when
 * empty, as kube's labels.SelectorFromValidatedSet of an empty set would select everything, but
 * validation forbids an empty one).
 */
import { LabelSelector, labelSelectorFromObject, type LabelSelectorObject } from '../../api/selectors';
import type { KubeObject } from '../../client/types';

export function selectorOf(obj: KubeObject): LabelSelector {
  const spec = (obj.spec ?? {}) as { selector?: unknown };
  try {
    if (obj.kind === 'ReplicationController') {
      const map = (spec.selector ?? {}) as Record<string, string>;
      if (Object.keys(map).length === 0) return LabelSelector.nothing();
      return labelSelectorFromObject({ matchLabels: map });
    }
    return labelSelectorFromObject(spec.selector as LabelSelectorObject | undefined);
  } catch {
    return LabelSelector.nothing();
  }
}
