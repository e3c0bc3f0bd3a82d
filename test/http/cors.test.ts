import t from 'tap';
import { startTestServer } from './helpers';
import { parseOptions } from '../../src/options/parse';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { FlagError } from '../../src/options/types';

t.test('allowed origins get the CORS headers; preflights end at 204', async (t) => {
  const s = await startTestServer({ options: { corsAllowedOrigins: ['^https://a\\.example$', '//localhost(:|$)'] } });
  t.teardown(() => s.close());
  const pre = await fetch(`${s.url}/api/v1/namespaces/ns/widgets`, { method: 'OPTIONS', headers: { Origin: 'https://a.example' } });
  t.equal(pre.status, 204);
  t.equal(pre.headers.get('access-control-allow-origin'), 'https://a.example');
  t.equal(pre.headers.get('access-control-allow-methods'), 'POST, GET, OPTIONS, PUT, DELETE, PATCH');
  t.equal(pre.headers.get('access-control-allow-credentials'), 'true');
  t.equal(pre.headers.get('access-control-expose-headers'), 'Date');
  const get = await fetch(`${s.url}/version`, { headers: { Origin: 'http://localhost:3000' } });
  t.equal(get.status, 200);
  t.equal(get.headers.get('access-control-allow-origin'), 'http://localhost:3000');
  const other = await fetch(`${s.url}/version`, { headers: { Origin: 'https://b.example' } });
  t.equal(other.status, 200);
  t.equal(other.headers.get('access-control-allow-origin'), null);
  const otherPre = await fetch(`${s.url}/version`, { method: 'OPTIONS', headers: { Origin: 'https://b.example' } });
  t.not(otherPre.status, 204, 'a preflight from another origin goes on to the routes');
});

t.test('without --cors-allowed-origins there are no CORS headers', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const r = await fetch(`${s.url}/version`, { headers: { Origin: 'https://a.example' } });
  t.equal(r.headers.get('access-control-allow-origin'), null);
});

t.test('a bad regular expression is a flag error', async (t) => {
  const config = (...argv: string[]) => apiServerConfig(parseOptions(apiServerOptionGroups, argv), {});
  t.throws(() => config('--cors-allowed-origins=[a-'), FlagError);
  t.throws(() => config('--cors-allowed-origins=[a-'), /invalid argument "\[a-" for "--cors-allowed-origins" flag/);
  t.same(config('--cors-allowed-origins=^https://x$,^http://y$').corsAllowedOrigins, ['^https://x$', '^http://y$']);
});
