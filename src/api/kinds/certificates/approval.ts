/**
 * certificatesigningrequests/approval: kube's csrApprovalStrategy. A write keeps the stored object
 * but for status.conditions (condition timestamps filled in) and is validated as an approval update
 * (Approved and Denied may be added; none removed).
 */
import type { SubresourceHandler } from '../../registry/subresources/types';
import { partialSubresource } from '../../registry/subresources/partial';
import { ensureObj, objAt, str } from '../util';
import { populateConditionTimestamps } from './conditions';
import type { CsrVersion } from './csr-validation';
import { validateCSR } from './csr-validation';

export function csrApprovalHandler(): SubresourceHandler {
  return partialSubresource({
    name: 'approval',
    merge(written, old) {
      const next = structuredClone(old);
      const conditions = objAt(written, 'status')?.conditions;
      const status = ensureObj(next, 'status');
      if (conditions === undefined || conditions === null) delete status.conditions;
      else status.conditions = structuredClone(conditions);
      populateConditionTimestamps(next, old);
      return next;
    },
    validate: (obj, old) => validateCSR(str(obj.apiVersion).endsWith('/v1beta1') ? 'v1beta1' : ('v1' as CsrVersion), obj, old, 'approval'),
  });
}
