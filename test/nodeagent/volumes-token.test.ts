/**
 * Projected service account tokens: cached, requested again after 80% of their lifetime or 24 h,
 * kept while the API server fails and the old token is still valid (fake clock, no jitter).
 */
import t from 'tap';
import { ServiceAccountTokenManager } from '../../src/nodeagent/volumes/token-manager';
import { FakeObjectSources } from '../helpers/fake-object-sources';

const spec = (expirationSeconds: number, uid = 'pod-uid') => ({ audiences: ['api'], expirationSeconds, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid } });

function setup() {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const sources = new FakeObjectSources();
  sources.now = () => now;
  const tokens = new ServiceAccountTokenManager({ sources, now: () => now, random: () => 0 });
  return { sources, tokens, advance: (ms: number) => (now += ms) };
}

t.test('a token is refreshed once 80% of its lifetime has passed', async (t) => {
  const { sources, tokens, advance } = setup();
  t.equal(await tokens.getToken('shop', 'robot', spec(3600)), 'token-1');
  advance(2879_000);
  t.equal(await tokens.getToken('shop', 'robot', spec(3600)), 'token-1', 'cached before 80%');
  advance(2_000);
  t.equal(await tokens.getToken('shop', 'robot', spec(3600)), 'token-2', 'refreshed after 80%');
  t.equal(sources.tokenRequests.length, 2);
});

t.test('a long-lived token is refreshed after 24 hours', async (t) => {
  const { tokens, advance } = setup();
  t.equal(await tokens.getToken('shop', 'robot', spec(7 * 86400)), 'token-1');
  advance(24 * 3600_000 - 1000);
  t.equal(await tokens.getToken('shop', 'robot', spec(7 * 86400)), 'token-1');
  advance(2000);
  t.equal(await tokens.getToken('shop', 'robot', spec(7 * 86400)), 'token-2');
});

t.test('different requests are cached apart; deleting a pod forgets its tokens', async (t) => {
  const { sources, tokens } = setup();
  await tokens.getToken('shop', 'robot', spec(3600, 'a'));
  await tokens.getToken('shop', 'robot', spec(3600, 'b'));
  await tokens.getToken('shop', 'robot', spec(3600, 'a'));
  t.equal(sources.tokenRequests.length, 2);
  tokens.deletePodTokens('a');
  await tokens.getToken('shop', 'robot', spec(3600, 'a'));
  t.equal(sources.tokenRequests.length, 3);
});

t.test('when the API server fails, a token not yet expired still serves', async (t) => {
  const { sources, tokens, advance } = setup();
  await tokens.getToken('shop', 'robot', spec(3600));
  sources.createToken = async () => { throw new Error('unavailable'); };
  advance(3000_000);
  t.equal(await tokens.getToken('shop', 'robot', spec(3600)), 'token-1');
  advance(700_000);
  await t.rejects(tokens.getToken('shop', 'robot', spec(3600)), { message: 'unavailable' });
});
