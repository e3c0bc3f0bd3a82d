/**
 * authorization.k8s.io/v1 access reviews as served kinds: SelfSubjectAccessReview and
 * SubjectAccessReview (cluster-scoped), LocalSubjectAccessReview (namespaced). Like kube's, they
 * are virtual: create-only, never stored (discovery lists the single verb `create`); the answer
 * comes from withAccessReviews, which sits in front of the registry.
 */
import type { KindDefinition } from '../kind';
import { validateReview } from './validation';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

/** the kinds of the access reviews, by resource */
export const REVIEW_KINDS = {
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
} as const;

export type ReviewResource = keyof typeof REVIEW_KINDS;
export type ReviewKindName = (typeof REVIEW_KINDS)[ReviewResource];

/** the review resource a kind serves, or undefined for every other kind */
export function reviewResourceOf(kind: Pick<KindDefinition, 'group' | 'resource'>): ReviewResource | undefined {
  if (kind.group !== AUTHORIZATION_GROUP || !Object.hasOwn(REVIEW_KINDS, kind.resource)) return undefined;
  return kind.resource as ReviewResource;
}

function reviewKind(resource: ReviewResource): KindDefinition {
  const kind = REVIEW_KINDS[resource];
  return {
    group: AUTHORIZATION_GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    resource,
    singular: resource.slice(0, -1),
    namespaced: resource === 'localsubjectaccessreviews',
    shortNames: [],
    categories: [],
    // kube registers these as create-only REST endpoints (rest.Creater, nothing else)
    verbs: ['create'],
    // never written: the location only keeps the Scheme's bookkeeping uniform
    storage: { group: AUTHORIZATION_GROUP, resource },
    storageVersion: `${AUTHORIZATION_GROUP}/v1`,
    schemaName: `io.k8s.api.authorization.v1.${kind}`,
    tracksGeneration: false,
    statusSubresource: false,
    strategy: {
      defaults() {},
      validate: (obj) => validateReview(kind, obj),
    },
  };
}

/** the three access review kinds, in kube's discovery order */
export function accessReviewKinds(): KindDefinition[] {
  return [reviewKind('localsubjectaccessreviews'), reviewKind('selfsubjectaccessreviews'), reviewKind('subjectaccessreviews')];
}
