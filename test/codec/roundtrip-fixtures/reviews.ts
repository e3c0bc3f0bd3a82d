/**
 * round-trip fixtures of the review kinds beside authorization.k8s.io/v1's access reviews:
 * authentication.k8s.io v1/v1beta1, authorization.k8s.io v1beta1 and SelfSubjectRulesReview
 */
import type { Fixtures } from './meta';

const userInfo = { username: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'] } };

function authentication(version: 'v1' | 'v1beta1'): Fixtures {
  const apiVersion = `authentication.k8s.io/${version}`;
  return {
    [`${apiVersion}/TokenReview`]: {
      apiVersion,
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: { token: 'abc.def.ghi', audiences: ['https://kubernetes.default.svc'] },
      status: { authenticated: true, user: userInfo, audiences: ['https://kubernetes.default.svc'], error: 'partial' },
    },
    [`${apiVersion}/SelfSubjectReview`]: {
      apiVersion,
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: '2024-05-01T10:00:00Z' },
      status: { userInfo },
    },
  };
}

function rulesReview(version: 'v1' | 'v1beta1'): Fixtures {
  const apiVersion = `authorization.k8s.io/${version}`;
  return {
    [`${apiVersion}/SelfSubjectRulesReview`]: {
      apiVersion,
      kind: 'SelfSubjectRulesReview',
      metadata: { creationTimestamp: null },
      spec: { namespace: 'shop' },
      status: {
        resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        incomplete: true,
        evaluationError: 'webhook authorizer cannot list rules',
      },
    },
  };
}

const v1beta1Review = (kind: string) => ({
  apiVersion: 'authorization.k8s.io/v1beta1',
  kind,
  metadata: { creationTimestamp: null, ...(kind === 'LocalSubjectAccessReview' ? { namespace: 'default' } : {}) },
  spec: {
    resourceAttributes: { namespace: 'default', verb: 'create', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'web' },
    ...(kind === 'SelfSubjectAccessReview' ? {} : { user: 'jane', group: ['dev'], uid: 'u-1', extra: { scopes: ['a'] } }),
  },
  status: { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "x"' },
});

export const reviewFixtures: Fixtures = {
  ...authentication('v1'),
  ...authentication('v1beta1'),
  ...rulesReview('v1'),
  ...rulesReview('v1beta1'),
  'authorization.k8s.io/v1beta1/SubjectAccessReview': v1beta1Review('SubjectAccessReview'),
  'authorization.k8s.io/v1beta1/LocalSubjectAccessReview': v1beta1Review('LocalSubjectAccessReview'),
  'authorization.k8s.io/v1beta1/SelfSubjectAccessReview': v1beta1Review('SelfSubjectAccessReview'),
};
