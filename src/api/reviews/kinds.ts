/**
 * The review kinds, served as kube serves them: virtual, create-only, never stored (discovery lists
 * the single verb `create`); the answer comes from withAccessReviews, which sits in front of the
 * registry.
 * - authorization.k8s.io v1 and v1beta1: LocalSubjectAccessReview (namespaced),
 *   SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview
 * - authentication.k8s.io v1 and v1beta1: SelfSubjectReview, TokenReview
 */
import type { KindDefinition } from '../kind';
import { validateReview } from './validation';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';
export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

/** the access review kinds (answered by the authorizer's decision), by resource */
export const REVIEW_KINDS = {
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
} as const;

export type ReviewResource = keyof typeof REVIEW_KINDS;
export type AccessReviewKindName = (typeof REVIEW_KINDS)[ReviewResource];
export type ReviewKindName = AccessReviewKindName | 'SelfSubjectRulesReview' | 'TokenReview' | 'SelfSubjectReview';

/** every review kind, by group and resource, in kube's discovery order */
const REVIEWS: Record<string, Record<string, ReviewKindName>> = {
  [AUTHORIZATION_GROUP]: {
    localsubjectaccessreviews: 'LocalSubjectAccessReview',
    selfsubjectaccessreviews: 'SelfSubjectAccessReview',
    selfsubjectrulesreviews: 'SelfSubjectRulesReview',
    subjectaccessreviews: 'SubjectAccessReview',
  },
  [AUTHENTICATION_GROUP]: {
    selfsubjectreviews: 'SelfSubjectReview',
    tokenreviews: 'TokenReview',
  },
};

/** the review kind a served kind is, or undefined for every other kind */
export function reviewKindOf(kind: Pick<KindDefinition, 'group' | 'resource'>): ReviewKindName | undefined {
  const byResource = REVIEWS[kind.group];
  return byResource && Object.hasOwn(byResource, kind.resource) ? byResource[kind.resource] : undefined;
}

/** the access review resource a kind serves (SubjectAccessReview and friends), or undefined */
export function reviewResourceOf(kind: Pick<KindDefinition, 'group' | 'resource'>): ReviewResource | undefined {
  if (kind.group !== AUTHORIZATION_GROUP || !Object.hasOwn(REVIEW_KINDS, kind.resource)) return undefined;
  return kind.resource as ReviewResource;
}

const isAccessReview = (k: ReviewKindName): k is AccessReviewKindName =>
  k === 'SelfSubjectAccessReview' || k === 'SubjectAccessReview' || k === 'LocalSubjectAccessReview';

function reviewKind(group: string, version: 'v1' | 'v1beta1', resource: string, kind: ReviewKindName): KindDefinition {
  return {
    group,
    version,
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
    storage: { group, resource },
    storageVersion: `${group}/v1`,
    schemaName: `io.k8s.api.${group.replace(/\.k8s\.io$/, '')}.${version}.${kind}`,
    tracksGeneration: false,
    statusSubresource: false,
    strategy: {
      defaults() {},
      // the access reviews' validation; the others are checked where they are answered
      validate: (obj) => (isAccessReview(kind) ? validateReview(kind, obj) : []),
    },
  };
}

/** every review kind, both groups and versions, in kube's discovery order */
export function accessReviewKinds(): KindDefinition[] {
  const out: KindDefinition[] = [];
  for (const group of [AUTHORIZATION_GROUP, AUTHENTICATION_GROUP]) {
    for (const version of ['v1', 'v1beta1'] as const) {
      for (const [resource, kind] of Object.entries(REVIEWS[group])) out.push(reviewKind(group, version, resource, kind));
    }
  }
  return out;
}
