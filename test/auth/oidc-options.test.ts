import t from 'tap';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';
import { FlagError } from '../../src/options/types';

const parse = (...argv: string[]) => parseOptions(apiServerOptionGroups, argv);
const spec = (name: string) => apiServerOptionGroups.flatMap((g) => g.options).find((o) => o.name === name);

t.test('the OIDC, token webhook and request-header flags are supported, with the spec\'s defaults', async (t) => {
  const names = ['oidc-issuer-url', 'oidc-client-id', 'oidc-ca-file', 'oidc-username-claim', 'oidc-username-prefix', 'oidc-groups-claim', 'oidc-groups-prefix', 'oidc-required-claim', 'oidc-signing-algs',
    'authentication-token-webhook-config-file', 'authentication-token-webhook-version', 'authentication-token-webhook-cache-ttl',
    'requestheader-client-ca-file', 'requestheader-allowed-names', 'requestheader-username-headers', 'requestheader-group-headers', 'requestheader-extra-headers-prefix'];
  for (const name of names) t.equal(spec(name)?.support, 'supported', `--${name}`);
  const a = apiServerConfig(parse('--data-dir=/x')).authentication;
  t.same(a.tokenWebhook, { configFile: undefined, version: 'v1beta1', cacheTtlMs: 120_000 });
  t.equal(a.oidc.usernameClaim, 'sub');
  t.same(a.oidc.signingAlgs, ['RS256']);
  t.same(a.requestHeader, { clientCaFile: undefined, allowedNames: [], usernameHeaders: [], groupHeaders: [], extraHeadersPrefix: [] }, 'the spec lists no default headers');
  const b = apiServerConfig(parse('--data-dir=/x', '--oidc-issuer-url=https://idp', '--oidc-client-id=c', '--oidc-required-claim=a=1', '--oidc-required-claim=b=2',
    '--authentication-token-webhook-config-file=w.yaml', '--authentication-token-webhook-version=v1', '--authentication-token-webhook-cache-ttl=30s',
    '--requestheader-username-headers=X-Remote-User,X-User')).authentication;
  t.same(b.oidc.requiredClaims, { a: '1', b: '2' });
  t.equal(b.tokenWebhook.version, 'v1');
  t.equal(b.tokenWebhook.cacheTtlMs, 30_000);
  t.match(b.tokenWebhook.configFile, /\/w\.yaml$/);
  t.same(b.requestHeader.usernameHeaders, ['X-Remote-User', 'X-User']);
});

t.test('bad OIDC flags are flag errors in kube\'s words', async (t) => {
  t.throws(() => apiServerConfig(parse('--data-dir=/x', '--oidc-issuer-url=http://idp', '--oidc-client-id=c')), new FlagError(`invalid authentication config: 'oidc-issuer-url' ("http://idp") has invalid scheme ("http"), require 'https'`));
  t.throws(() => apiServerConfig(parse('--data-dir=/x', '--oidc-issuer-url=https://idp')), new FlagError('oidc-issuer-url and oidc-client-id should be specified together'));
  t.throws(() => apiServerConfig(parse('--data-dir=/x', '--oidc-issuer-url=https://idp', '--oidc-client-id=c', '--oidc-signing-algs=none')), { name: 'FlagError', message: /unsupported signing alg: "none"/ });
});
