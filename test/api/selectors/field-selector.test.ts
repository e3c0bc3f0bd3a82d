import t from 'tap';
import { ApiError } from '../../../src/api/errors';
import { checkFieldSelectorFields, escapeFieldValue, parseFieldSelector } from '../../../src/api/selectors/field-selector';

function failure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

t.test('operators =, == and != and term order', async (t) => {
  const sel = parseFieldSelector('status.phase!=Running,metadata.name==web,spec.nodeName=n1');
  t.same(
    sel.requirements.map((r) => ({ ...r })),
    [
      { field: 'metadata.name', operator: '=', value: 'web' },
      { field: 'spec.nodeName', operator: '=', value: 'n1' },
      { field: 'status.phase', operator: '!=', value: 'Running' },
    ],
  );
  t.equal(sel.toString(), 'metadata.name=web,spec.nodeName=n1,status.phase!=Running');
  t.same(sel.fieldNames(), ['metadata.name', 'spec.nodeName', 'status.phase']);
});

t.test('matching; a missing field reads as the empty string', async (t) => {
  const sel = parseFieldSelector('metadata.name=web,status.phase!=Running');
  t.ok(sel.matches({ 'metadata.name': 'web', 'status.phase': 'Pending' }));
  t.notOk(sel.matches({ 'metadata.name': 'web', 'status.phase': 'Running' }));
  t.notOk(sel.matches({ 'metadata.name': 'db' }));
  t.ok(parseFieldSelector('spec.nodeName=').matches({}));
  t.notOk(parseFieldSelector('spec.nodeName!=').matches({}));
  t.ok(parseFieldSelector('').matches({}));
  t.ok(parseFieldSelector('').isEmpty());
});

t.test('exactValue serves only = terms', async (t) => {
  const sel = parseFieldSelector('metadata.name=web,metadata.namespace!=kube-system');
  t.equal(sel.exactValue('metadata.name'), 'web');
  t.equal(sel.exactValue('metadata.namespace'), undefined);
  t.equal(sel.exactValue('spec.nodeName'), undefined);
});

t.test('backslash escapes in values', async (t) => {
  const sel = parseFieldSelector('metadata.name=a\\,b\\=c\\\\d,spec.x=y');
  t.equal(sel.exactValue('metadata.name'), 'a,b=c\\d');
  t.equal(sel.exactValue('spec.x'), 'y');
  t.equal(sel.toString(), 'metadata.name=a\\,b\\=c\\\\d,spec.x=y');
  t.equal(escapeFieldValue('a,b=c\\'), 'a\\,b\\=c\\\\');
  // the first operator wins; the rest is value text
  t.equal(parseFieldSelector('a!=b\\=c').requirements[0].value, 'b=c');
});

t.test('errors carry kube messages as 400 BadRequest', async (t) => {
  const cases: Array<[string, string]> = [
    ['metadata.name', "invalid selector: 'metadata.name'; can't understand 'metadata.name'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
  ];
  for (const [text, message] of cases) {
    const err = failure(() => parseFieldSelector(text));
    t.equal(err.code, 400, text);
    t.equal(err.status.reason, 'BadRequest', text);
    t.equal(err.message, message, text);
  }
});

t.test('empty terms and bare "=" are dropped', async (t) => {
  t.equal(parseFieldSelector(',a=b,,').toString(), 'a=b');
  t.ok(parseFieldSelector('=').isEmpty());
  t.ok(parseFieldSelector('!=').isEmpty());
});

t.test('checkFieldSelectorFields', async (t) => {
  const podFields = new Set(['metadata.name', 'metadata.namespace', 'spec.nodeName', 'status.phase']);
  checkFieldSelectorFields(parseFieldSelector('spec.nodeName=n1'), podFields, 'pods');
  const pods = failure(() => checkFieldSelectorFields(parseFieldSelector('spec.nodeName=n1,spec.foo=x'), podFields, 'pods'));
  t.equal(pods.code, 400);
  t.equal(pods.status.reason, 'BadRequest');
  t.equal(pods.message, 'field label not supported: spec.foo');
  const metaOnly = new Set(['metadata.name', 'metadata.namespace']);
  const deployments = failure(() => checkFieldSelectorFields(parseFieldSelector('spec.replicas=1'), metaOnly, 'deployments.apps'));
  t.equal(deployments.message, '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"');
});
