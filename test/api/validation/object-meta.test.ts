import t from 'tap';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../../src/api/validation';

const nsOpts = { namespaced: true, nameValidation: undefined, isCreate: true } as const;

t.test('a valid namespaced object passes', async (t) => {
  t.same(validateObjectMeta({ name: 'web', namespace: 'default', labels: { app: 'web' }, annotations: { 'example.com/a': 'x' } }, nsOpts), []);
});

t.test('name or generateName is required', async (t) => {
  t.same(validateObjectMeta({ namespace: 'default' }, nsOpts), [
    { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
  ]);
  t.same(validateObjectMeta({ generateName: 'web-', namespace: 'default' }, nsOpts), []);
});

t.test('name format follows the kind', async (t) => {
  const causes = validateObjectMeta({ name: 'Web', namespace: 'default' }, nsOpts);
  t.equal(causes.length, 1);
  t.equal(causes[0].field, 'metadata.name');
  t.equal(causes[0].reason, 'FieldValueInvalid');
  t.match(causes[0].message, /^Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of/);
  const label = validateObjectMeta({ name: 'a.b' }, { namespaced: false, nameValidation: 'dns1123Label', isCreate: true });
  t.match(label[0].message, /a lowercase RFC 1123 label/);
});

t.test('namespace is required on namespaced kinds and forbidden on cluster ones', async (t) => {
  t.same(validateObjectMeta({ name: 'x' }, nsOpts), [{ reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.namespace' }]);
  t.same(validateObjectMeta({ name: 'x', namespace: 'a' }, { namespaced: false, nameValidation: undefined, isCreate: true }), [
    { reason: 'FieldValueForbidden', message: 'Forbidden: not allowed on this type', field: 'metadata.namespace' },
  ]);
});

t.test('labels, annotations, finalizers and owner references', async (t) => {
  const causes = validateObjectMeta(
    {
      name: 'x',
      namespace: 'd',
      labels: { 'bad key!': 'v', ok: 'bad value!' },
      annotations: { big: 'x'.repeat(256 * 1024) },
      finalizers: ['example.com/f', 'example.com/f'],
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: '', uid: 'u' }],
    },
    nsOpts,
  );
  const by = (f: string) => causes.filter((c) => c.field === f).map((c) => c.reason);
  t.same(by('metadata.labels'), ['FieldValueInvalid', 'FieldValueInvalid']);
  t.same(by('metadata.annotations'), ['FieldValueTooLong']);
  t.equal(causes.find((c) => c.field === 'metadata.annotations')?.message, 'Too long: may not be more than 262144 bytes');
  t.same(by('metadata.finalizers'), ['FieldValueDuplicate']);
  t.same(by('metadata.ownerReferences[0].name'), ['FieldValueInvalid']);
});

t.test('identity fields are immutable on update', async (t) => {
  const old = { name: 'x', namespace: 'd', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' };
  t.same(validateObjectMetaUpdate({ ...old, labels: { a: 'b' } }, old), []);
  const causes = validateObjectMetaUpdate({ ...old, uid: 'u2', name: 'y' }, old);
  t.same(
    causes.map((c) => [c.field, c.message]),
    [
      ['metadata.name', 'Invalid value: "y": field is immutable'],
      ['metadata.uid', 'Invalid value: "u2": field is immutable'],
    ],
  );
});
