/**
 * The selectors of workload objects, read with the API server's selector code: apps/v1 kinds carry
 * a metav1.LabelSelector, a ReplicationController a plain map of labels. An empty map (which
 * validation refuses anyway) or an invalid selector selects nothing, so a bad object never
 * claims every pod of its namespace.
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
