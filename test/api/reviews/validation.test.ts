import t from 'tap';
import { validateReview } from '../../../src/api/reviews/validation';

const ra = { verb: 'create', resource: 'pods', namespace: 'default' };

t.test('SelfSubjectAccessReview needs exactly one attributes field', async (t) => {
  t.same(validateReview('SelfSubjectAccessReview', { spec: { resourceAttributes: ra } }), []);
  t.same(validateReview('SelfSubjectAccessReview', { spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } } }), []);
  // an empty attributes object is a set (non-nil) pointer in Go
  t.same(validateReview('SelfSubjectAccessReview', { spec: { resourceAttributes: {} } }), []);

  t.same(validateReview('SelfSubjectAccessReview', { spec: {} }), [
    {
      reason: 'FieldValueInvalid',
      field: 'spec.resourceAttributes',
      message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    },
  ]);
  t.same(validateReview('SelfSubjectAccessReview', { spec: { resourceAttributes: null } }).length, 1, 'null is unset');
  t.same(validateReview('SelfSubjectAccessReview', { spec: { resourceAttributes: ra, nonResourceAttributes: { path: '/x', verb: 'get' } } }), [
    {
      reason: 'FieldValueInvalid',
      field: 'spec.nonResourceAttributes',
      message: 'Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    },
  ]);
  t.same(validateReview('SelfSubjectAccessReview', {}).map((c) => c.field), ['spec.resourceAttributes'], 'no spec at all');
});

t.test('SelfSubjectAccessReview metadata must be empty (zero values and managedFields aside)', async (t) => {
  const spec = { resourceAttributes: ra };
  t.same(validateReview('SelfSubjectAccessReview', { metadata: { creationTimestamp: null, labels: {}, name: '' }, spec }), []);
  t.same(validateReview('SelfSubjectAccessReview', { metadata: { managedFields: [{ manager: 'x' }] }, spec }), []);
  const causes = validateReview('SelfSubjectAccessReview', { metadata: { name: 'x' }, spec });
  t.equal(causes.length, 1);
  t.equal(causes[0].field, 'metadata');
  t.match(causes[0].message, /^Invalid value: .*"name":"x".*: must be empty$/);
});

t.test('SubjectAccessReview needs a user or groups', async (t) => {
  t.same(validateReview('SubjectAccessReview', { spec: { resourceAttributes: ra, user: 'alice' } }), []);
  t.same(validateReview('SubjectAccessReview', { spec: { resourceAttributes: ra, groups: ['system:masters'] } }), []);
  t.same(validateReview('SubjectAccessReview', { spec: { resourceAttributes: ra } }), [
    { reason: 'FieldValueInvalid', field: 'spec.user', message: 'Invalid value: "": at least one of user or group must be specified' },
  ]);
  t.same(
    validateReview('SubjectAccessReview', { spec: {} }).map((c) => c.field),
    ['spec.resourceAttributes', 'spec.user'],
    'both problems, in kube order',
  );
  t.same(validateReview('SubjectAccessReview', { metadata: { namespace: 'default' }, spec: { resourceAttributes: ra, user: 'a' } }).map((c) => c.message), [
    'Invalid value: {"namespace":"default"}: must be empty',
  ]);
});

t.test('LocalSubjectAccessReview: namespace only, repeated in the resource attributes, no non-resource attributes', async (t) => {
  const meta = { namespace: 'default' };
  t.same(validateReview('LocalSubjectAccessReview', { metadata: meta, spec: { resourceAttributes: ra, user: 'alice' } }), []);
  t.same(validateReview('LocalSubjectAccessReview', { metadata: meta, spec: { resourceAttributes: { ...ra, namespace: 'other' }, user: 'alice' } }), [
    { reason: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', message: 'Invalid value: "other": must match metadata.namespace' },
  ]);
  t.same(validateReview('LocalSubjectAccessReview', { metadata: meta, spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'alice' } }), [
    {
      reason: 'FieldValueInvalid',
      field: 'spec.nonResourceAttributes',
      message: 'Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: disallowed on this kind of request',
    },
  ]);
  const causes = validateReview('LocalSubjectAccessReview', { metadata: { ...meta, labels: { a: 'b' } }, spec: { resourceAttributes: ra, user: 'alice' } });
  t.same(causes.map((c) => c.field), ['metadata']);
  t.match(causes[0].message, /must be empty except for namespace$/);
});
