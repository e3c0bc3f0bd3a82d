/**
 * Optional pod policies: AlwaysPullImages (every container's imagePullPolicy becomes Always),
 * SecurityContextDeny (the security context fields kube's plugin forbids) and DefaultIngressClass
 * (an Ingress naming no class gets the default IngressClass), as kube's plugins of those names.
 */
import type { Admission } from '../types';
import type { AdmissionPluginContext, ResourceRef } from '../context';
import { admissionForbidden, isResource } from '../forbidden';
import { mutating, validating } from '../chain';
import { podSpec } from './pod';
import { newestDefault } from './storage';

export function alwaysPullImages(): Admission {
  return mutating((a) => {
    if (!isResource(a, '', 'pods') || !a.object || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
    const spec = podSpec(a.object);
    for (const list of [spec.containers, spec.initContainers, spec.ephemeralContainers]) {
      if (Array.isArray(list)) for (const c of list) c.imagePullPolicy = 'Always';
    }
  });
}

export function securityContextDeny(): Admission {
  return validating((a) => {
    if (!isResource(a, '', 'pods') || !a.object || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
    const spec = podSpec(a.object);
    const sc = (spec.securityContext ?? {}) as Record<string, unknown>;
    const podFields: Array<[string, string]> = [['supplementalGroups', 'SupplementalGroups'], ['seLinuxOptions', 'SELinuxOptions'], ['runAsUser', 'RunAsUser'], ['fsGroup', 'FSGroup']];
    for (const [field, goName] of podFields) {
      if (sc[field] !== undefined && sc[field] !== null) throw admissionForbidden(a, `pod.Spec.SecurityContext.${goName} is forbidden`);
    }
    for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
      const csc = (c.securityContext ?? {}) as Record<string, unknown>;
      if (csc.seLinuxOptions !== undefined && csc.seLinuxOptions !== null) throw admissionForbidden(a, 'SecurityContext.SELinuxOptions is forbidden');
      if (csc.runAsUser !== undefined && csc.runAsUser !== null) throw admissionForbidden(a, 'SecurityContext.RunAsUser is forbidden');
    }
  });
}

const INGRESS_CLASSES: ResourceRef = { group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses' };

export function defaultIngressClass(ctx: AdmissionPluginContext): Admission {
  return mutating(async (a) => {
    if (a.operation !== 'CREATE' || a.kind.resource !== 'ingresses' || a.subresource !== '' || !a.object) return;
    const spec = (a.object.spec ?? (a.object.spec = {})) as { ingressClassName?: string | null };
    if ((spec.ingressClassName !== undefined && spec.ingressClassName !== null) || a.object.metadata?.annotations?.['kubernetes.io/ingress.class'] !== undefined) return;
    const found = newestDefault(await ctx.objects.list(INGRESS_CLASSES), ['ingressclass.kubernetes.io/is-default-class']);
    if (found) spec.ingressClassName = found.metadata?.name;
  });
}
