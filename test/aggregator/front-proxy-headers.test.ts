import t from 'tap';
import { ANONYMOUS, escapeExtraKey, withFrontProxyHeaders } from '../../src/aggregator/front-proxy-headers';

t.test("extra keys are escaped as client-go escapes them", async (t) => {
  t.equal(escapeExtraKey('scopes'), 'scopes');
  t.equal(escapeExtraKey('example.com/team'), 'example.com%2Fteam');
  t.equal(escapeExtraKey('100%'), '100%25', "'%' itself is escaped");
  t.equal(escapeExtraKey('a b:c'), 'a%20b%3Ac');
  t.equal(escapeExtraKey("!#$&'*+-.^_`|~"), "!#$&'*+-.^_`|~", 'token characters stay');
  t.equal(escapeExtraKey('é'), '%C3%A9', 'each UTF-8 byte');
});

t.test('the caller\'s credentials and claimed identity are replaced by the front-proxy headers', async (t) => {
  const out = withFrontProxyHeaders(
    {
      Accept: 'application/json',
      Authorization: 'Bearer secret',
      'Impersonate-User': 'mallory',
      'Impersonate-Extra-scopes': 'all',
      'X-Remote-User': 'mallory',
      'x-remote-group': 'system:masters',
      'X-Remote-Extra-Foo': 'bar',
      'X-Remote-Uid': '1',
    },
    { name: 'alice', groups: ['dev', 'system:authenticated'], extra: { 'example.com/team': ['a', 'b'], empty: [] } },
  );
  t.same(out, {
    Accept: 'application/json',
    'X-Remote-User': 'alice',
    'X-Remote-Group': ['dev', 'system:authenticated'],
    'X-Remote-Extra-example.com%2Fteam': ['a', 'b'],
  });
});

t.test('anonymous callers and configured header names', async (t) => {
  const out = withFrontProxyHeaders({ 'My-User': 'x' }, ANONYMOUS, { user: 'My-User', group: 'My-Group', extraPrefix: 'My-Extra-' });
  t.same(out, { 'My-User': 'system:anonymous', 'My-Group': ['system:unauthenticated'] });
});
