/**
 * The handlers of declared subresources, by `<group>/<resource>/<name>` (core group: `/pods/binding`).
 * A declared subresource without a handler answers 404, as an unserved path does.
 */
import { errors } from '../../errors';
import type { KindDefinition, SubresourceDefinition } from '../../kind';
import type { SubresourceHandler } from './types';
import { csrApprovalHandler } from '../../kinds/certificates/approval';
import { namespaceFinalize } from './namespace-finalize';
import { podBinding } from './pod-binding';
import { podEphemeralContainers } from './pod-ephemeral-containers';
import { podEviction } from './pod-eviction';

export type { SubresourceHandler } from './types';
export { partialSubresource } from './partial';

const HANDLERS: Record<string, SubresourceHandler> = {
  'certificates.k8s.io/certificatesigningrequests/approval': csrApprovalHandler(),
  '/namespaces/finalize': namespaceFinalize,
  '/pods/binding': podBinding,
  '/pods/eviction': podEviction,
  '/pods/ephemeralcontainers': podEphemeralContainers,
};

/** the declaration and handler of `name` on `kind`, or 404 */
export function subresourceHandler(kind: KindDefinition, name: string): { declared: SubresourceDefinition; handler: SubresourceHandler } {
  const declared = kind.subresources?.find((s) => s.name === name);
  const handler = declared && HANDLERS[`${kind.group}/${kind.resource}/${name}`];
  if (!declared || !handler) throw errors.notFound({ group: kind.group, resource: `${kind.resource}/${name}` }, '');
  return { declared, handler };
}
