import t from 'tap';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPercent,
  isValidPortName,
  validateName,
} from '../../../src/api/validation';

t.test('DNS-1123 labels', async (t) => {
  t.same(isDNS1123Label('my-name'), []);
  t.same(isDNS1123Label('123-abc'), []);
  t.same(isDNS1123Label('My-Name'), [
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
  t.same(isDNS1123Label('a'.repeat(64))[0], 'must be no more than 63 characters');
  t.equal(isDNS1123Label('a.b').length, 1);
});

t.test('DNS-1123 subdomains', async (t) => {
  t.same(isDNS1123Subdomain('example.com'), []);
  t.same(isDNS1123Subdomain('Bad_Name'), [
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  t.same(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
});

t.test('DNS-1035 labels must start with a letter', async (t) => {
  t.same(isDNS1035Label('web-1'), []);
  t.match(isDNS1035Label('1web')[0], /^a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character/);
});

t.test('qualified names', async (t) => {
  t.same(isQualifiedName('app'), []);
  t.same(isQualifiedName('example.com/My_name.1'), []);
  t.same(isQualifiedName('/x'), ['prefix part must be non-empty']);
  t.match(isQualifiedName('Example.com/x')[0], /^prefix part a lowercase RFC 1123 subdomain/);
  t.same(isQualifiedName('x/'), [
    'name part must be non-empty',
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  t.match(isQualifiedName('a/b/c')[0], /with an optional DNS subdomain prefix and '\/' \(e.g. 'example.com\/MyName'\)$/);
  t.same(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
});

t.test('label values may be empty', async (t) => {
  t.same(isValidLabelValue(''), []);
  t.same(isValidLabelValue('v1.2_3'), []);
  t.match(isValidLabelValue('-bad')[0], /^a valid label must be an empty string or consist of/);
});

t.test('config keys, port names, percents', async (t) => {
  t.same(isConfigMapKey('app.properties'), []);
  t.match(isConfigMapKey('a b')[0], /^a valid config key must consist of alphanumeric characters/);
  t.same(isConfigMapKey('..'), ["must not be '..'"]);
  t.same(isValidPortName('http'), []);
  t.same(isValidPortName('80'), ['must contain at least one letter (a-z)']);
  t.same(isValidPercent('25%'), []);
  t.match(isValidPercent('25')[0], /^a valid percent string must be a numeric string followed by an ending '%'/);
});

t.test('generateName prefixes may end in a dash', async (t) => {
  t.same(validateName('dns1123Subdomain', 'web-', true), []);
  t.equal(validateName('dns1123Subdomain', 'web-', false).length, 1);
  t.same(validateName('pathSegment', 'a/b', false), ["may not contain '/'"]);
});
