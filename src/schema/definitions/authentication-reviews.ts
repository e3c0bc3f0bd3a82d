/**
 * The review kinds beside authorization.k8s.io/v1's access reviews: authentication.k8s.io v1 and
 * v1beta1 TokenReview and SelfSubjectReview, authorization.k8s.io v1beta1's access reviews (whose
 * spec names the groups `group`), and SelfSubjectRulesReview in v1 and v1beta1.
 */
import type { Definitions, SchemaNode } from '../types';
import { atomic, bool, kind, list, map, obj, ref, str } from '../dsl';

const AUTHN_V1 = 'io.k8s.api.authentication.v1.';
const AUTHZ_V1 = 'io.k8s.api.authorization.v1.';

function authentication(version: 'v1' | 'v1beta1'): Definitions {
  const p = `io.k8s.api.authentication.${version}.`;
  const gvk = (k: string) => ({ group: 'authentication.k8s.io', version, kind: k });
  return {
    [`${p}UserInfo`]: obj('A user as an authenticator reports it.', {
      extra: map('Extra attributes from the authenticator.', list(str(), 'Values.')),
      groups: atomic(str(), 'Groups of the user.'),
      uid: str('Unique identifier of the user, stable over time.'),
      username: str('Name of the user.'),
    }),
    [`${p}TokenReviewSpec`]: obj('The token to check.', {
      audiences: atomic(str(), 'Audiences the token must be valid for; the API server\'s own when empty.'),
      token: str('The opaque bearer token.'),
    }),
    [`${p}TokenReviewStatus`]: obj('The answer of the review.', {
      audiences: atomic(str(), 'Audiences the token is valid for.'),
      authenticated: bool('Whether the token belongs to a known user.'),
      error: str('Why the token could not be checked.'),
      user: ref(`${p}UserInfo`, 'The user the token belongs to.'),
    }),
    [`${p}TokenReview`]: kind(gvk('TokenReview'), 'Asks whether a bearer token is valid, and whose it is.', {
      spec: ref(`${p}TokenReviewSpec`, 'The token to check.'),
      status: ref(`${p}TokenReviewStatus`, 'The answer, filled in by the server.'),
    }, ['spec']),
    [`${p}SelfSubjectReviewStatus`]: obj('The caller as the server sees it.', {
      // v1beta1's status holds v1's UserInfo (kube reuses the type)
      userInfo: ref(`${AUTHN_V1}UserInfo`, 'Name, uid, groups and extra attributes of the caller.'),
    }),
    [`${p}SelfSubjectReview`]: kind(gvk('SelfSubjectReview'), 'Asks who the caller is (kubectl auth whoami).', {
      status: ref(`${p}SelfSubjectReviewStatus`, 'The caller, filled in by the server.'),
    }),
  };
}

const attributeProps = (p: string): Record<string, SchemaNode> => ({
  nonResourceAttributes: ref(`${p}NonResourceAttributes`, 'The request, for a non-resource path.'),
  resourceAttributes: ref(`${p}ResourceAttributes`, 'The request, for a resource.'),
});

function authorizationV1beta1(): Definitions {
  const p = 'io.k8s.api.authorization.v1beta1.';
  const gvk = (k: string) => ({ group: 'authorization.k8s.io', version: 'v1beta1', kind: k });
  const review = (k: string, desc: string, spec: string): SchemaNode =>
    kind(gvk(k), desc, {
      spec: ref(p + spec, 'The request to check.'),
      status: ref(`${p}SubjectAccessReviewStatus`, 'The answer, filled in by the server.'),
    }, ['spec']);
  return {
    [`${p}SubjectAccessReview`]: review('SubjectAccessReview', 'Asks whether a user or group may perform an action.', 'SubjectAccessReviewSpec'),
    [`${p}LocalSubjectAccessReview`]: review('LocalSubjectAccessReview', 'Asks whether a user or group may perform an action in one namespace.', 'SubjectAccessReviewSpec'),
    [`${p}SelfSubjectAccessReview`]: review('SelfSubjectAccessReview', 'Asks whether the caller may perform an action.', 'SelfSubjectAccessReviewSpec'),
    [`${p}SubjectAccessReviewSpec`]: obj('A request to authorize; exactly one attributes field is set.', {
      ...attributeProps(p),
      extra: map('Extra user information from the authenticator.', list(str(), 'Values.')),
      group: atomic(str(), 'Groups of the user.'),
      uid: str('UID of the user.'),
      user: str('User name.'),
    }),
    [`${p}SelfSubjectAccessReviewSpec`]: obj('A request to authorize for the caller; exactly one field is set.', attributeProps(p)),
    [`${p}ResourceAttributes`]: obj('A request on a resource.', {
      fieldSelector: ref(`${AUTHZ_V1}FieldSelectorAttributes`, 'Field selector of a list or watch.'),
      group: str('API group; * means all.'),
      labelSelector: ref(`${AUTHZ_V1}LabelSelectorAttributes`, 'Label selector of a list or watch.'),
      name: str('Object name; empty means all.'),
      namespace: str('Namespace; empty means all, or cluster-scoped.'),
      resource: str('Resource; * means all.'),
      subresource: str('Subresource; empty means none.'),
      verb: str('Verb: get, list, watch, create, update, patch, delete... or *.'),
      version: str('API version; * means all.'),
    }),
    [`${p}NonResourceAttributes`]: obj('A request on a non-resource path.', {
      path: str('URL path.'),
      verb: str('HTTP verb, lower case.'),
    }),
    [`${p}SubjectAccessReviewStatus`]: obj(
      'The authorization answer.',
      {
        allowed: bool('Whether the action is allowed.'),
        denied: bool('Whether the action is explicitly denied.'),
        evaluationError: str('Problem evaluating the request, if any.'),
        reason: str('Why the answer was given.'),
      },
      { required: ['allowed'] },
    ),
  };
}

function rulesReview(version: 'v1' | 'v1beta1'): Definitions {
  const p = `io.k8s.api.authorization.${version}.`;
  return {
    [`${p}SelfSubjectRulesReview`]: kind(
      { group: 'authorization.k8s.io', version, kind: 'SelfSubjectRulesReview' },
      'Lists what the caller may do in a namespace (kubectl auth can-i --list).',
      {
        spec: ref(`${p}SelfSubjectRulesReviewSpec`, 'The namespace to evaluate.'),
        status: ref(`${p}SubjectRulesReviewStatus`, 'The rules, filled in by the server.'),
      },
      ['spec'],
    ),
    [`${p}SelfSubjectRulesReviewSpec`]: obj('What to list the rules for.', { namespace: str('Namespace to evaluate.') }),
    [`${p}SubjectRulesReviewStatus`]: obj(
      'The rules a subject has; possibly incomplete.',
      {
        evaluationError: str('Why the list may be incomplete.'),
        incomplete: bool('True when the authorizer cannot list every rule (e.g. a webhook authorizer).'),
        nonResourceRules: atomic(ref(`${p}NonResourceRule`), 'Verbs on non-resource URLs.'),
        resourceRules: atomic(ref(`${p}ResourceRule`), 'Verbs on resources.'),
      },
      { required: ['resourceRules', 'nonResourceRules', 'incomplete'] },
    ),
    [`${p}ResourceRule`]: obj(
      'Verbs allowed on resources.',
      {
        apiGroups: atomic(str(), 'API groups; * means all.'),
        resourceNames: atomic(str(), 'Names the rule is limited to; empty means all.'),
        resources: atomic(str(), 'Resources; * means all.'),
        verbs: atomic(str(), 'Verbs; * means all.'),
      },
      { required: ['verbs'] },
    ),
    [`${p}NonResourceRule`]: obj(
      'Verbs allowed on non-resource URLs.',
      {
        nonResourceURLs: atomic(str(), 'URL paths; a trailing * matches a prefix.'),
        verbs: atomic(str(), 'Verbs; * means all.'),
      },
      { required: ['verbs'] },
    ),
  };
}

export const authenticationReviewDefinitions: Definitions = {
  ...authentication('v1'),
  ...authentication('v1beta1'),
  ...authorizationV1beta1(),
  ...rulesReview('v1'),
  ...rulesReview('v1beta1'),
};
