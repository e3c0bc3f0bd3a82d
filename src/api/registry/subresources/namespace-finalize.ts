/**
 * namespaces/<name>/finalize: kube's FinalizeREST, the one way to change spec.finalizers. A PUT
 * stores the namespace as it is with only spec.finalizers taken from the body (kube's
 * namespaceFinalizeStrategy); a Terminating namespace left with no finalizer of either kind is
 * removed by that update (guaranteedUpdate's ShouldDeleteDuringUpdate). Only PUT is served, as in kube.
 */
import { validateFinalizers } from '../../kinds/core/namespace';
import { arrAt, objAt } from '../../kinds/util';
import { partialSubresource } from './partial';
import type { SubresourceHandler } from './types';

const handler = partialSubresource({
  name: 'finalize',
  merge(written, old) {
    const next = structuredClone(old);
    const spec = { ...(objAt(next, 'spec') ?? {}) };
    const finalizers = objAt(written, 'spec')?.finalizers;
    if (finalizers === undefined || finalizers === null) delete spec.finalizers;
    else spec.finalizers = structuredClone(finalizers);
    next.spec = spec;
    return next;
  },
  metadataFrom: 'stored',
  validate: (obj) => validateFinalizers(arrAt(objAt(obj, 'spec'), 'finalizers'), 'spec.finalizers'),
});

export const namespaceFinalize: SubresourceHandler = { update: handler.update };
