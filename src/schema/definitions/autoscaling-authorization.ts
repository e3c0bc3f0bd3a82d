/** autoscaling/v1 Scale and authorization.k8s.io/v1 access reviews. */
import type { Definitions, SchemaNode } from '../types';
import { atomic, bool, int32, kind, list, map, meta, obj, ref, str } from '../dsl';

const AUTOSCALING = 'io.k8s.api.autoscaling.v1.';
const AUTHZ = 'io.k8s.api.authorization.v1.';
const z = (name: string): string => AUTHZ + name;

const attributeProps = (): Record<string, SchemaNode> => ({
  resourceAttributes: ref(z('ResourceAttributes'), 'The request, for a resource.'),
  nonResourceAttributes: ref(z('NonResourceAttributes'), 'The request, for a non-resource path.'),
});

const review = (kindName: string, desc: string, spec: string): SchemaNode =>
  kind({ group: 'authorization.k8s.io', version: 'v1', kind: kindName }, desc, {
    spec: ref(z(spec), 'The request to check.'),
    status: ref(z('SubjectAccessReviewStatus'), 'The answer, filled in by the server.'),
  }, ['spec']);

export const autoscalingAuthorizationDefinitions: Definitions = {
  [`${AUTOSCALING}Scale`]: kind({ group: 'autoscaling', version: 'v1', kind: 'Scale' }, 'The scale subresource of a scalable object.', {
    spec: ref(`${AUTOSCALING}ScaleSpec`, 'Desired scale.'),
    status: ref(`${AUTOSCALING}ScaleStatus`, 'Observed scale. Read-only.'),
  }),
  [`${AUTOSCALING}ScaleSpec`]: obj('Desired scale.', { replicas: int32('Desired number of replicas.') }),
  [`${AUTOSCALING}ScaleStatus`]: obj(
    'Observed scale.',
    {
      replicas: int32('Current number of replicas.'),
      selector: str('Label selector of the pods, in string form.'),
    },
    { required: ['replicas'] },
  ),

  [z('SubjectAccessReview')]: review('SubjectAccessReview', 'Asks whether a user or group may perform an action.', 'SubjectAccessReviewSpec'),
  [z('LocalSubjectAccessReview')]: review(
    'LocalSubjectAccessReview',
    'Asks whether a user or group may perform an action in one namespace.',
    'SubjectAccessReviewSpec',
  ),
  [z('SelfSubjectAccessReview')]: review('SelfSubjectAccessReview', 'Asks whether the caller may perform an action.', 'SelfSubjectAccessReviewSpec'),
  [z('SubjectAccessReviewSpec')]: obj('A request to authorize; exactly one attributes field is set.', {
    ...attributeProps(),
    extra: map('Extra user information from the authenticator.', list(str(), 'Values.')),
    groups: atomic(str(), 'Groups of the user.'),
    uid: str('UID of the user.'),
    user: str('User name.'),
  }),
  [z('SelfSubjectAccessReviewSpec')]: obj('A request to authorize for the caller; exactly one field is set.', attributeProps()),
  [z('ResourceAttributes')]: obj('A request on a resource.', {
    fieldSelector: ref(z('FieldSelectorAttributes'), 'Field selector of a list or watch.'),
    group: str('API group; * means all.'),
    labelSelector: ref(z('LabelSelectorAttributes'), 'Label selector of a list or watch.'),
    name: str('Object name; empty means all.'),
    namespace: str('Namespace; empty means all, or cluster-scoped.'),
    resource: str('Resource; * means all.'),
    subresource: str('Subresource; empty means none.'),
    verb: str('Verb: get, list, watch, create, update, patch, delete... or *.'),
    version: str('API version; * means all.'),
  }),
  [z('LabelSelectorAttributes')]: obj('A label selector, raw or parsed.', {
    rawSelector: str('The selector as written in a query string.'),
    requirements: atomic(ref(meta('LabelSelectorRequirement')), 'The parsed requirements.'),
  }),
  [z('FieldSelectorAttributes')]: obj('A field selector, raw or parsed.', {
    rawSelector: str('The selector as written in a query string.'),
    requirements: atomic(ref(meta('FieldSelectorRequirement')), 'The parsed requirements.'),
  }),
  [z('NonResourceAttributes')]: obj('A request on a non-resource path.', {
    path: str('URL path.'),
    verb: str('HTTP verb, lower case.'),
  }),
  [z('SubjectAccessReviewStatus')]: obj(
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
