/**
 * The downward API's values: pod fields (kube's fieldpath.ExtractFieldPathAsString plus the fields
 * only the kubelet knows) and container resources (resource.ExtractContainerResourceValue).
 */
import { parseQuantity } from '../../api/kinds/core/quantity';
import type { Pod } from '../types';

type Container = Record<string, unknown>;
type ResourceList = Record<string, unknown>;

/** kube's FormatMap: `key="value"` lines, keys sorted */
function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify((m as Record<string, string>)[k])}`)
    .join('\n');
}

/** metadata fields every downward API consumer reads (env and volumes) */
export function objectFieldValue(pod: Pod, fieldPath: string): string {
  const meta = pod.metadata ?? {};
  const sub = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(fieldPath);
  if (sub) {
    const m = (sub[1] === 'labels' ? meta.labels : meta.annotations) as Record<string, string> | undefined;
    return m?.[sub[2]] ?? '';
  }
  switch (fieldPath) {
    case 'metadata.annotations':
      return formatMap(meta.annotations as Record<string, string> | undefined);
    case 'metadata.labels':
      return formatMap(meta.labels as Record<string, string> | undefined);
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
  }
  throw new Error(`unsupported fieldPath: ${fieldPath}`);
}

/** kubelet's podFieldSelectorRuntimeValue: env fieldRefs, which also see the node and the pod's IPs */
export function podFieldValue(pod: Pod, fieldPath: string, hostIP: string, podIPs: string[]): string {
  const spec = pod.spec ?? {};
  switch (fieldPath) {
    case 'spec.nodeName':
      return (spec.nodeName as string | undefined) ?? '';
    case 'spec.serviceAccountName':
      return (spec.serviceAccountName as string | undefined) ?? '';
    case 'status.hostIP':
      return hostIP;
    case 'status.podIP':
      return podIPs[0] ?? '';
    case 'status.podIPs':
      return podIPs.join(',');
  }
  return objectFieldValue(pod, fieldPath);
}

const RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];

function resources(container: Container, kind: 'limits' | 'requests'): ResourceList {
  return (((container.resources as Record<string, ResourceList> | undefined) ?? {})[kind] ?? {}) as ResourceList;
}

/**
 * kubelet's defaultPodLimitsForDownwardAPI for one container: a limit left unset reads as the
 * node's allocatable amount.
 */
export function withDefaultLimits(container: Container, allocatable: ResourceList): Container {
  const limits = { ...resources(container, 'limits') };
  for (const name of RESOURCES) {
    if (limits[name] === undefined && allocatable[name] !== undefined) limits[name] = allocatable[name];
  }
  return { ...container, resources: { ...((container.resources as object | undefined) ?? {}), limits } };
}

/**
 * kube's ExtractContainerResourceValue: `limits.cpu`, `requests.memory`, ... divided by the divisor
 * (1 when unset) and rounded up; cpu compares millicores.
 */
export function containerResourceValue(resource: string, divisor: unknown, container: Container): string {
  const dot = resource.indexOf('.');
  const kind = resource.slice(0, dot);
  const name = resource.slice(dot + 1);
  if ((kind !== 'limits' && kind !== 'requests') || !(RESOURCES.includes(name) || name.startsWith('hugepages-'))) {
    throw new Error(`unsupported container resource : ${resource}`);
  }
  const d = parseQuantity(divisor) || 1;
  const value = parseQuantity(resources(container, kind)[name]) ?? 0;
  if (name === 'cpu') return String(Math.ceil(Math.round(value * 1000) / Math.round(d * 1000) - 1e-9));
  return String(Math.ceil(value / d - 1e-9));
}
