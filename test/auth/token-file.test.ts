import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BearerTokenAuthenticator } from '../../src/auth/authn/bearer';
import { TokenFileAuthenticator, loadTokenFile } from '../../src/auth/authn/token-file';

function file(t: Parameters<Parameters<typeof t.test>[1]>[0], text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-tokens-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'tokens.csv'), text);
  return path.join(dir, 'tokens.csv');
}

t.test('kube token file format: quoted groups, BOM, empty and repeated tokens', async (t) => {
  const warnings: string[] = [];
  const tokens = loadTokenFile(file(t, '\uFEFFa,alice,1,"x,y"\n,nobody,2\nb,bob,3\na,alice2,4\n'), (w) => warnings.push(w));
  t.same([...tokens.keys()], ['a', 'b']);
  t.same(tokens.get('a'), { name: 'alice2', uid: '4', groups: [] }, 'a later line wins');
  t.same(tokens.get('b'), { name: 'bob', uid: '3', groups: [] });
  t.equal(warnings.length, 2);
  t.match(warnings[0], /line 2: empty token/);
  t.match(warnings[1], /line 4: duplicate token/);
  const groups = loadTokenFile(file(t, 'a,alice,1,"x,y"\n'));
  t.same(groups.get('a')!.groups, ['x', 'y']);
});

t.test('bad files are one-line errors naming file and line', async (t) => {
  const f = file(t, 'a,alice,1\nb,bob\n');
  t.throws(() => loadTokenFile(f), { message: `--token-auth-file ${f}, line 2: must have at least 3 columns (token, user name, user uid), found 2` });
  t.throws(() => loadTokenFile('/nonexistent/tokens.csv'), /--token-auth-file \/nonexistent\/tokens.csv: ENOENT/);
  t.throws(() => loadTokenFile(file(t, 'a,"unterminated\n')), /--token-auth-file .*: /);
});

t.test('bearer tokens: known, unknown (a bad credential), absent, and the WebSocket protocol form', async (t) => {
  const bearer = new BearerTokenAuthenticator([new TokenFileAuthenticator(loadTokenFile(file(t, 'tok,alice,1\n')))]);
  t.same((await bearer.authenticate({ headers: { authorization: 'Bearer tok' } }))?.user, { name: 'alice', uid: '1', groups: [] });
  await t.rejects(bearer.authenticate({ headers: { authorization: 'Bearer other' } }), /invalid bearer token/);
  await t.rejects(bearer.authenticate({ headers: { authorization: 'Bearer ' } }), /invalid bearer token/);
  t.equal(await bearer.authenticate({ headers: {} }), undefined);
  t.equal(await bearer.authenticate({ headers: { authorization: 'Basic YTpi' } }), undefined, 'not a bearer credential');
  const ws = `base64url.bearer.authorization.k8s.io.${Buffer.from('tok').toString('base64url')}`;
  t.equal((await bearer.authenticate({ headers: { 'sec-websocket-protocol': `v4.channel.k8s.io, ${ws}` } }))?.user.name, 'alice');
});
