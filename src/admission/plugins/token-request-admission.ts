/**
 * TokenRequest (serviceaccounts/token) is answered by the token issuer without the registry, so
 * the admission chain would never see it; kube admits it as a CREATE of the subresource with the
 * TokenRequest as the object (NodeRestriction checks a node's token is bound to one of its pods).
 * Wrap the issuing registry with this to run both phases first.
 */
import type { KubeObject } from '../../api/kind';
import type { Registry, Target, WriteOptions } from '../../api/registry/types';
import { withVerbs } from '../../api/registry/with-verbs';
import { admitAndValidate } from '../attributes';
import type { Admission } from '../types';

export function withTokenRequestAdmission<R extends Registry>(registry: R, admission: Admission | undefined): R {
  if (!admission) return registry;
  return withVerbs(registry, {
    createSubresource: async (t: Target, sub: string, body: KubeObject, o: WriteOptions) => {
      if (t.kind.group === '' && t.kind.resource === 'serviceaccounts' && sub === 'token') {
        await admitAndValidate(admission, { operation: 'CREATE', kind: t.kind, subresource: sub, namespace: t.namespace, name: t.name, object: body, options: o });
      }
      return registry.createSubresource(t, sub, body, o);
    },
  });
}
