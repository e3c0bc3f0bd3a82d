/**
 * DenyServiceExternalIPs (new external IPs on Services refused; keeping or dropping old ones is
 * fine) and ExtendedResourceToleration (a pod asking for an extended resource such as
 * example.com/gpu tolerates the NoSchedule taint of the same name), as kube's plugins.
 */
import type { Admission } from '../types';
import { admissionForbidden, isResource } from '../forbidden';
import { mutating, validating } from '../chain';
import { allContainers, createdPod, podSpec } from './pod';

export function denyServiceExternalIPs(): Admission {
  return validating((a) => {
    if (!isResource(a, '', 'services') || !a.object || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
    const ips = (o?: typeof a.object) => ((o?.spec as { externalIPs?: string[] } | undefined)?.externalIPs ?? []);
    const old = new Set(a.operation === 'UPDATE' ? ips(a.oldObject) : []);
    if (ips(a.object).every((ip) => old.has(ip))) return;
    throw admissionForbidden(a, 'spec.externalIPs: Forbidden: use of external IPs is denied by admission control');
  });
}

/** kube's IsExtendedResourceName: a qualified name outside kubernetes.io that is not a quota name */
function isExtended(name: string): boolean {
  if (!name.includes('/') || name.startsWith('requests.')) return false;
  const domain = name.slice(0, name.indexOf('/'));
  return domain !== 'kubernetes.io' && !domain.endsWith('.kubernetes.io');
}

export function extendedResourceToleration(): Admission {
  return mutating((a) => {
    const pod = createdPod(a);
    if (!pod) return;
    const spec = podSpec(pod);
    const names = new Set<string>();
    for (const c of allContainers(spec)) {
      for (const list of [c.resources?.requests, c.resources?.limits]) for (const k of Object.keys(list ?? {})) if (isExtended(k)) names.add(k);
    }
    const tolerations = spec.tolerations ?? [];
    for (const key of [...names].sort()) {
      if (!tolerations.some((t) => t.key === key && t.operator === 'Exists' && t.effect === 'NoSchedule')) tolerations.push({ key, operator: 'Exists', effect: 'NoSchedule' });
    }
    if (names.size) spec.tolerations = tolerations;
  });
}
