/**
 * The review kinds (authorization.k8s.io and authentication.k8s.io, v1 and v1beta1) and the
 * authorizer and authentication seams they answer from. The server
 * adds accessReviewKinds() to its Scheme and wraps its registry with withAccessReviews.
 */
export { AlwaysAllowAuthorizer } from './authorizer';
export type { AuthorizationAttributes, Authorizer, Decision, UserInfo } from './authorizer';
export { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP, REVIEW_KINDS, accessReviewKinds, reviewKindOf, reviewResourceOf } from './kinds';
export type { AccessReviewKindName, ReviewKindName, ReviewResource } from './kinds';
export { ADMIN_USER, FixedUserProvider } from './authenticator';
export type { RequestUserProvider, TokenAuthentication, TokenAuthenticator } from './authenticator';
export type { RulesResult } from './authorizer';
export { validateReview } from './validation';
export { withAccessReviews } from './with-access-reviews';
export type { AccessReviewsOptions } from './with-access-reviews';
