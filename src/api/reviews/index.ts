/**
 * Access reviews (authorization.k8s.io/v1) and the authorizer seam they answer from. The server
 * adds accessReviewKinds() to its Scheme and wraps its registry with withAccessReviews.
 */
export { AlwaysAllowAuthorizer } from './authorizer';
export type { AuthorizationAttributes, Authorizer, Decision, UserInfo } from './authorizer';
export { AUTHORIZATION_GROUP, REVIEW_KINDS, accessReviewKinds, reviewResourceOf } from './kinds';
export type { ReviewKindName, ReviewResource } from './kinds';
export { validateReview } from './validation';
export { withAccessReviews } from './with-access-reviews';
export type { AccessReviewsOptions } from './with-access-reviews';
