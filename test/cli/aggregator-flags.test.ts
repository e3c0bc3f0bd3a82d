import t from 'tap';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';

const parse = (...argv: string[]) => parseOptions(apiServerOptionGroups, argv);
const spec = (name: string) => apiServerOptionGroups.flatMap((g) => g.options).find((o) => o.name === name);

t.test('the aggregation flags take effect', async (t) => {
  for (const name of ['proxy-client-cert-file', 'proxy-client-key-file', 'enable-aggregator-routing', 'requestheader-username-headers', 'requestheader-group-headers', 'requestheader-extra-headers-prefix']) {
    t.equal(spec(name)?.support, 'supported', `--${name} is no longer marked accepted-only`);
  }
  const defaults = apiServerConfig(parse('--data-dir=/x'));
  t.equal(defaults.enableAggregatorRouting, false);
  t.equal(defaults.proxyClientCertFile, undefined);
  t.same(defaults.requestHeaders, { user: 'X-Remote-User', group: 'X-Remote-Group', extraPrefix: 'X-Remote-Extra-' });
  t.same(defaults.ignoredFlags, []);

  const c = apiServerConfig(
    parse(
      '--data-dir=/x',
      '--enable-aggregator-routing=true',
      '--proxy-client-cert-file=/pki/front.crt',
      '--proxy-client-key-file=/pki/front.key',
      '--requestheader-username-headers=X-Proxy-User,X-Remote-User',
      '--requestheader-group-headers=X-Proxy-Group',
      '--requestheader-extra-headers-prefix=X-Proxy-Extra-',
    ),
  );
  t.equal(c.enableAggregatorRouting, true);
  t.equal(c.proxyClientCertFile, '/pki/front.crt');
  t.equal(c.proxyClientKeyFile, '/pki/front.key');
  t.same(c.requestHeaders, { user: 'X-Proxy-User', group: 'X-Proxy-Group', extraPrefix: 'X-Proxy-Extra-' });
  t.same(c.ignoredFlags, [], 'none of them is reported as ignored');
  t.throws(() => apiServerConfig(parse('--data-dir=/x', '--proxy-client-cert-file=/a.crt')), /--proxy-client-cert-file and --proxy-client-key-file must be given together/);
});
