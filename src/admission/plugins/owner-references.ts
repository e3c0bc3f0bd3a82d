/**
 * OwnerReferencesPermissionEnforcement (kube's plugin/pkg/admission/gc, as of 1.20): whoever
 * changes an object's metadata.ownerReferences must be allowed to delete the object, and whoever
 * makes a reference block its owner's deletion (a new blockOwnerDeletion=true) must be allowed to
 * update the owner's `finalizers` subresource. pods/status is left out, as in kube (old node
 * agents rewrite it and the status strategy keeps ownerReferences anyway).
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/kind';
import type { Admission } from '../types';
import type { AdmissionPluginContext } from '../context';
import type { Decision } from '../../api/reviews/authorizer';
import { admissionForbidden } from '../forbidden';
import { validating } from '../chain';
import { parseApiVersion } from '../../api/scheme';

interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  blockOwnerDeletion?: boolean;
}

const refsOf = (o: KubeObject | undefined): OwnerReference[] => {
  const refs = o?.metadata?.ownerReferences;
  return Array.isArray(refs) ? (refs as OwnerReference[]) : [];
};

/** Go's `%v, %v` of the decision's reason and error (a nil error prints <nil>) */
const why = (d: Decision): string => `${d.reason ?? ''}, ${d.evaluationError ?? '<nil>'}`;

/** references that block owner deletion now and did not before (matched by uid) */
function newlyBlocking(object: KubeObject, old: KubeObject | undefined): OwnerReference[] {
  const before = new Map(refsOf(old).map((r) => [r.uid, r]));
  return refsOf(object).filter((r) => r.blockOwnerDeletion === true && before.get(r.uid)?.blockOwnerDeletion !== true);
}

export function ownerReferencesPermissionEnforcement(ctx: AdmissionPluginContext): Admission {
  return validating(async (a) => {
    if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || !a.object || !ctx.authorizer) return;
    if (a.kind.group === '' && a.kind.resource === 'pods' && a.subresource === 'status') return;
    const now = refsOf(a.object);
    const changing = a.oldObject ? !isDeepStrictEqual(now, refsOf(a.oldObject)) : now.length > 0;
    if (!changing) return;
    const mayDelete = await ctx.authorizer.authorize({
      user: a.user,
      verb: 'delete',
      resourceRequest: true,
      namespace: a.namespace,
      apiGroup: a.kind.group,
      apiVersion: a.kind.version,
      resource: a.kind.resource,
      subresource: a.subresource,
      name: a.name,
    });
    if (!mayDelete.allowed) throw admissionForbidden(a, `cannot set an ownerRef on a resource you can't delete: ${why(mayDelete)}`);
    for (const ref of newlyBlocking(a.object, a.oldObject)) {
      const apiVersion = ref.apiVersion ?? '';
      const owner = ctx.objects.kindOf(apiVersion, ref.kind ?? '');
      if (!owner) {
        const gv = parseApiVersion(apiVersion);
        const noMatch = `no matches for kind "${ref.kind ?? ''}" in version "${gv.group ? `${gv.group}/${gv.version}` : gv.version}"`;
        throw admissionForbidden(a, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${apiVersion} Kind ${ref.kind ?? ''}: ${noMatch}`);
      }
      // kube asks in the dependent's namespace: an owner reference can only name an object there (or a cluster-scoped one)
      const mayFinalize = await ctx.authorizer.authorize({
        user: a.user,
        verb: 'update',
        resourceRequest: true,
        namespace: a.namespace,
        apiGroup: owner.group,
        apiVersion: owner.version,
        resource: owner.resource,
        subresource: 'finalizers',
        name: ref.name ?? '',
      });
      if (!mayFinalize.allowed) {
        throw admissionForbidden(a, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${why(mayFinalize)}`);
      }
    }
  });
}
