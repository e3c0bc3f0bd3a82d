/**
 * The selector of "the pods of the same workload" (kube 1.20's helper.DefaultSelector): the
 * selectors of the services and replication controllers selecting the pod, merged as label sets,
 * plus the requirements of the replica sets and stateful sets selecting it. SelectorSpread and
 * PodTopologySpread's default constraints spread pods by it; ServiceAffinity reads the services.
 */
import { LabelSelector, labelSelectorFromObject, type LabelSelectorObject } from '../../../api/selectors';
import { NAMESPACE_INDEX } from '../../../client/indexer';
import { RESOURCES } from '../../../client/resources';
import type { KubeObject } from '../../../client/types';
import type { FrameworkHandle } from '../../framework/types';
import { labelsOf, namespaceOf } from './topology';

type LabelSet = Record<string, string>;

/** does the label set (a service's or RC's selector) select these labels? */
function setMatches(set: LabelSet, labels: LabelSet): boolean {
  for (const k in set) if (labels[k] !== set[k]) return false;
  return true;
}

function mapSelector(obj: KubeObject): LabelSet | undefined {
  const sel = (obj.spec as { selector?: LabelSet | null } | undefined)?.selector;
  // an empty map does not survive storage (protobuf), so it is the nil selector: it selects nothing
  return sel && Object.keys(sel).length > 0 ? sel : undefined;
}

/** kube's GetPodServices: services in the pod's namespace whose (non-nil) selector selects it */
export function podServices(handle: FrameworkHandle, pod: KubeObject): KubeObject[] {
  const labels = labelsOf(pod);
  const out: KubeObject[] = [];
  for (const svc of handle.lister(RESOURCES.services).byIndex(NAMESPACE_INDEX, namespaceOf(pod))) {
    const sel = mapSelector(svc);
    if (sel && setMatches(sel, labels)) out.push(svc);
  }
  return out;
}

/** the selector of one service (the first one ServiceAffinity scores by) */
export function serviceSelector(svc: KubeObject): LabelSelector {
  return selectorFromSet(mapSelector(svc) ?? {});
}

/** labels.SelectorFromSet: key=value requirements (stored objects are valid already); an empty set selects everything */
export function selectorFromSet(set: LabelSet): LabelSelector {
  return LabelSelector.of(Object.keys(set).map((key) => ({ key, operator: '=' as const, values: [set[key]] })));
}

/** apps selectors (metav1.LabelSelector): the ones selecting the pod; nil, empty or invalid ones select nothing */
function appsSelectorsFor(handle: FrameworkHandle, ref: typeof RESOURCES.replicaSets, pod: KubeObject): LabelSelector[] {
  const labels = labelsOf(pod);
  if (Object.keys(labels).length === 0) return [];
  const out: LabelSelector[] = [];
  for (const obj of handle.lister(ref).byIndex(NAMESPACE_INDEX, namespaceOf(pod))) {
    let sel: LabelSelector;
    try {
      sel = labelSelectorFromObject((obj.spec as { selector?: LabelSelectorObject | null } | undefined)?.selector);
    } catch {
      continue;
    }
    if (sel.isEmpty() || !sel.matches(labels)) continue;
    out.push(sel);
  }
  return out;
}

export function defaultSelector(handle: FrameworkHandle, pod: KubeObject): LabelSelector {
  const labels = labelsOf(pod);
  const set: LabelSet = {};
  for (const svc of podServices(handle, pod)) Object.assign(set, mapSelector(svc));
  if (Object.keys(labels).length > 0) {
    // GetPodControllers: RCs with a non-empty selector that selects the pod
    for (const rc of handle.lister(RESOURCES.replicationControllers).byIndex(NAMESPACE_INDEX, namespaceOf(pod))) {
      const sel = mapSelector(rc);
      if (sel && setMatches(sel, labels)) Object.assign(set, sel);
    }
  }
  const requirements = [...selectorFromSet(set).requirements];
  for (const sel of appsSelectorsFor(handle, RESOURCES.replicaSets, pod)) requirements.push(...sel.requirements);
  for (const sel of appsSelectorsFor(handle, RESOURCES.statefulSets, pod)) requirements.push(...sel.requirements);
  return LabelSelector.of(requirements);
}
