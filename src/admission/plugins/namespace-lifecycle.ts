/**
 * NamespaceLifecycle (kube's plugin/pkg/admission/namespace/lifecycle): new content only in a
 * namespace that exists (404 otherwise) and is not being terminated (403 with the
 * NamespaceTerminating cause). Deletes, updates and access reviews are never refused here; the
 * system namespaces' protection against deletion is the namespace kind's own (deleteForbidden).
 */
import { errors } from '../../api/errors';
import type { Admission } from '../types';
import type { AdmissionPluginContext } from '../context';
import { CORE } from '../context';
import { admissionForbidden } from '../forbidden';
import { mutating } from '../chain';

const REVIEW_GROUPS = new Set(['authorization.k8s.io', 'authentication.k8s.io']);

export function namespaceLifecycle(ctx: AdmissionPluginContext): Admission {
  return mutating(async (a) => {
    if (a.operation !== 'CREATE' || !a.kind.namespaced || !a.namespace || REVIEW_GROUPS.has(a.kind.group)) return;
    // kube's plugin reads its namespace informer, and the live object only when the informer does not
    // know it yet: a consistent read per create would cost every write a round trip to storage
    const ns = await ctx.objects.get(CORE('namespaces'), '', a.namespace, { cached: true });
    if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, a.namespace);
    const phase = (ns.status as { phase?: string } | undefined)?.phase;
    if (phase === 'Terminating' || ns.metadata?.deletionTimestamp) {
      const err = admissionForbidden(a, `unable to create new content in namespace ${a.namespace} because it is being terminated`);
      err.status.details!.causes = [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }];
      throw err;
    }
  });
}

/** NamespaceExists: like the lifecycle's existence check, for every operation on namespaced content */
export function namespaceExists(ctx: AdmissionPluginContext): Admission {
  return mutating(async (a) => {
    if (!a.kind.namespaced || !a.namespace || REVIEW_GROUPS.has(a.kind.group)) return;
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    if (!(await ctx.objects.get(CORE('namespaces'), '', a.namespace))) throw errors.notFound({ group: '', resource: 'namespaces' }, a.namespace);
  });
}

/** NamespaceAutoProvision: creating content in a missing namespace creates the namespace first */
export function namespaceAutoProvision(ctx: AdmissionPluginContext): Admission {
  return mutating(async (a) => {
    if (a.operation !== 'CREATE' || !a.kind.namespaced || !a.namespace || REVIEW_GROUPS.has(a.kind.group) || a.dryRun) return;
    if (await ctx.objects.get(CORE('namespaces'), '', a.namespace)) return;
    const target = ctx.objects.target(CORE('namespaces'));
    if (!target) return;
    try {
      await ctx.objects.registry.create(target, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: a.namespace } }, { dryRun: false });
    } catch (err) {
      // created meanwhile by someone else: what was wanted
      if (!(err as { code?: number }).code || (err as { code?: number }).code !== 409) throw err;
    }
  });
}
