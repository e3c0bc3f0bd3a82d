/**
 * What the endpoint and endpointslice controllers share about services and their pods (kube's
 * pkg/controller/util/endpoint and podutil.FindPort): which services select a pod, whether a pod
 * change matters to endpoints, how a service port resolves on a pod, and address families.
 */
import { NAMESPACE_INDEX } from '../../client/indexer';
import type { Indexer } from '../../client/indexer';
import type { KubeObject } from '../../client/types';
import { isPodReady } from './pods';

export interface ServicePort {
  name?: string;
  protocol?: string;
  port?: number;
  targetPort?: number | string;
  appProtocol?: string;
}

export interface ServiceSpec {
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ports?: ServicePort[];
  publishNotReadyAddresses?: boolean;
}

export interface PodShape {
  spec?: {
    nodeName?: string;
    hostname?: string;
    subdomain?: string;
    restartPolicy?: string;
    containers?: { ports?: { name?: string; containerPort?: number; protocol?: string }[] }[];
  };
  status?: { phase?: string; podIP?: string; podIPs?: { ip?: string }[] };
}

export function serviceSpec(svc: KubeObject): ServiceSpec {
  return (svc.spec ?? {}) as ServiceSpec;
}

function podShape(pod: KubeObject): PodShape {
  return pod as PodShape;
}

/** a selector that is absent or empty means the service's endpoints are managed by someone else */
export function hasSelector(svc: KubeObject): boolean {
  return Object.keys(serviceSpec(svc).selector ?? {}).length > 0;
}

/** labels.SelectorFromSet on a service's selector (which must not be empty) */
export function serviceSelects(svc: KubeObject, pod: KubeObject): boolean {
  const selector = serviceSpec(svc).selector ?? {};
  const labels = pod.metadata?.labels ?? {};
  const keys = Object.keys(selector);
  return keys.length > 0 && keys.every((k) => labels[k] === selector[k]);
}

/** the services of the pod's namespace whose selector matches it (GetPodServiceMemberships) */
export function servicesSelecting(services: Indexer, pod: KubeObject): KubeObject[] {
  return services.byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? '').filter((svc) => serviceSelects(svc, pod));
}

/** the part of a pod the endpoint objects are made of (beyond labels) */
function endpointView(pod: KubeObject): string {
  const p = podShape(pod);
  return JSON.stringify([
    p.status?.podIP ?? '', (p.status?.podIPs ?? []).map((i) => i.ip), p.spec?.nodeName ?? '', p.status?.phase ?? '',
    pod.metadata?.uid, isPodReady(pod), pod.metadata?.deletionTimestamp ?? '',
  ]);
}

/**
 * kube's GetServicesToUpdateOnPodChange: nothing when the pod did not change in a way endpoints
 * see; with changed labels (or hostname/subdomain), the services that started or stopped selecting
 * it, plus those that still do when the pod itself changed too.
 */
export function servicesForPodChange(services: Indexer, old: KubeObject, pod: KubeObject): KubeObject[] {
  if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return [];
  const o = podShape(old).spec ?? {};
  const n = podShape(pod).spec ?? {};
  const labelsChanged = JSON.stringify(old.metadata?.labels ?? {}) !== JSON.stringify(pod.metadata?.labels ?? {})
    || (o.hostname ?? '') !== (n.hostname ?? '') || (o.subdomain ?? '') !== (n.subdomain ?? '');
  const podChanged = endpointView(old) !== endpointView(pod);
  if (!labelsChanged && !podChanged) return [];
  const now = servicesSelecting(services, pod);
  if (!labelsChanged) return now;
  const before = servicesSelecting(services, old);
  const key = (s: KubeObject) => s.metadata?.uid ?? s.metadata?.name;
  const nowKeys = new Set(now.map(key));
  const beforeKeys = new Set(before.map(key));
  if (podChanged) return [...now, ...before.filter((s) => !nowKeys.has(key(s)))];
  return [...now.filter((s) => !beforeKeys.has(key(s))), ...before.filter((s) => !nowKeys.has(key(s)))];
}

/** podutil.FindPort: a numeric targetPort as is; a named one from the container port of that name and protocol */
export function findPort(pod: KubeObject, port: ServicePort): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  if (typeof target === 'string' && /^\d+$/.test(target)) return Number(target);
  const protocol = port.protocol ?? 'TCP';
  for (const c of podShape(pod).spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (p.name === target && (p.protocol ?? 'TCP') === protocol && typeof p.containerPort === 'number') return p.containerPort;
    }
  }
  return undefined;
}

/** the restart policy lets a finished pod no longer serve (kube's shouldPodBeInEndpoints) */
export function podMayServe(pod: KubeObject): boolean {
  const p = podShape(pod);
  const phase = p.status?.phase;
  switch (p.spec?.restartPolicy) {
    case 'Never':
      return phase !== 'Failed' && phase !== 'Succeeded';
    case 'OnFailure':
      return phase !== 'Succeeded';
    default:
      return true;
  }
}

/** helper.IsServiceIPSet: a cluster IP that is neither empty nor None */
export function isServiceIPSet(svc: KubeObject): boolean {
  const ip = serviceSpec(svc).clusterIP ?? '';
  return ip !== '' && ip !== 'None';
}

/** endpointutil.ShouldSetHostname: the pod names this service as its subdomain and has a hostname */
export function shouldSetHostname(pod: KubeObject, svc: KubeObject): boolean {
  const spec = podShape(pod).spec ?? {};
  return !!spec.hostname && spec.subdomain === svc.metadata?.name && pod.metadata?.namespace === svc.metadata?.namespace;
}

export function isIPv6(ip: string): boolean {
  return ip.includes(':');
}

/** the pod's IPs, from status.podIPs or else status.podIP */
export function podIPs(pod: KubeObject): string[] {
  const s = podShape(pod).status ?? {};
  const ips = (s.podIPs ?? []).map((i) => i.ip ?? '').filter((ip) => ip !== '');
  return ips.length > 0 ? ips : s.podIP ? [s.podIP] : [];
}

export function nodeNameOf(pod: KubeObject): string {
  return podShape(pod).spec?.nodeName ?? '';
}
