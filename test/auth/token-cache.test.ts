/**
 * The bearer token union remembers recognized tokens for kube-apiserver's TokenSuccessCacheTTL
 * (10 s) and never remembers failures.
 */
import t from 'tap';
import type { TokenAuthentication, TokenAuthenticator } from '../../src/api/reviews/authenticator';
import { BearerTokenAuthenticator, TOKEN_SUCCESS_CACHE_TTL_MS } from '../../src/auth/authn/bearer';

/** knows `good` (for any audience), throws for `broken`, and counts what it was asked */
class Counting implements TokenAuthenticator {
  calls: string[] = [];
  async authenticateToken(token: string, audiences: string[]): Promise<TokenAuthentication | undefined> {
    this.calls.push(`${token}/${audiences.join(',')}`);
    if (token === 'broken') throw new Error('cannot check');
    return token === 'good' ? { user: { name: 'alice', uid: '1', groups: ['team'] }, audiences } : undefined;
  }
}

t.test('kube default: 10 s for successes, nothing for failures', async (t) => {
  t.equal(TOKEN_SUCCESS_CACHE_TTL_MS, 10_000);
  const inner = new Counting();
  const bearer = new BearerTokenAuthenticator([inner]);
  for (let i = 0; i < 3; i++) t.same((await bearer.authenticateToken('good', []))?.user.name, 'alice');
  t.same(inner.calls, ['good/'], 'a recognized token is checked once');
  await bearer.authenticateToken('good', ['vault']);
  t.same(inner.calls, ['good/', 'good/vault'], 'another audience is another entry');
  t.equal(await bearer.authenticateToken('unknown', []), undefined);
  t.equal(await bearer.authenticateToken('unknown', []), undefined);
  await t.rejects(bearer.authenticateToken('broken', []), /cannot check/);
  await t.rejects(bearer.authenticateToken('broken', []), /cannot check/);
  t.same(inner.calls.slice(2), ['unknown/', 'unknown/', 'broken/', 'broken/'], 'unknown and failing tokens are asked every time');
  await t.rejects(bearer.authenticate({ headers: { authorization: 'Bearer unknown' } }), /invalid bearer token/);
});

t.test('entries expire, and the remembered answer cannot be changed by a caller', async (t) => {
  const inner = new Counting();
  const bearer = new BearerTokenAuthenticator([inner], { successCacheTtlMs: 50 });
  const first = (await bearer.authenticateToken('good', []))!;
  t.throws(() => first.user.groups.push('system:masters'), TypeError, 'frozen');
  t.same((await bearer.authenticateToken('good', []))!.user.groups, ['team']);
  t.equal(inner.calls.length, 1);
  await new Promise((r) => setTimeout(r, 80));
  await bearer.authenticateToken('good', []);
  t.equal(inner.calls.length, 2, 'asked again after the TTL');
  const uncached = new Counting();
  const off = new BearerTokenAuthenticator([uncached], { successCacheTtlMs: 0 });
  await off.authenticateToken('good', []);
  await off.authenticateToken('good', []);
  t.equal(uncached.calls.length, 2, 'a TTL of 0 remembers nothing');
});
