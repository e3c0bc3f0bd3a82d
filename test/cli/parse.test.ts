import t from 'tap';
import { apiServerConfig, apiServerOptionGroups, defaultDataDir } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';
import { FlagError } from '../../src/options/types';

const parse = (...argv: string[]) => parseOptions(apiServerOptionGroups, argv);

t.test('defaults come from the option tables', async (t) => {
  const p = parse();
  t.equal(p.string('bind-address'), '0.0.0.0');
  t.equal(p.number('secure-port'), 6443);
  t.equal(p.number('etcd-compaction-interval'), 300_000);
  t.equal(p.number('request-timeout'), 60_000);
  t.equal(p.number('min-request-timeout'), 1800);
  t.equal(p.number('max-requests-inflight'), 400);
  t.equal(p.number('max-mutating-requests-inflight'), 200);
  t.equal(p.string('logging-format'), 'text');
  t.equal(p.bool('watch-cache'), true);
  t.same(p.list('authorization-mode'), ['AlwaysAllow']);
  t.same(p.list('cloud-provider-gce-l7lb-src-cidrs'), ['130.211.0.0/22', '35.191.0.0/16']);
  t.equal(p.isSet('secure-port'), false);
});

t.test('--name value, --name=value and shorthands', async (t) => {
  const p = parse('--secure-port', '7443', '--bind-address=127.0.0.1', '-v', '4');
  t.equal(p.number('secure-port'), 7443);
  t.equal(p.string('bind-address'), '127.0.0.1');
  t.equal(p.number('v'), 4);
  t.equal(parse('-v=6').number('v'), 6);
  t.equal(parse('-v2').number('v'), 2);
  t.equal(parse('--v=3').number('v'), 3);
});

t.test('bools: bare, =true, =false, and never consume the next argument', async (t) => {
  t.equal(parse('--watch-cache=false').bool('watch-cache'), false);
  t.equal(parse('--allow-privileged').bool('allow-privileged'), true);
  t.equal(parse('--allow-privileged=true').bool('allow-privileged'), true);
  const p = parse('--allow-privileged', 'extra');
  t.equal(p.bool('allow-privileged'), true);
  t.same(p.args, ['extra']);
  t.throws(() => parse('--watch-cache=maybe'), /invalid argument "maybe" for "--watch-cache" flag/);
});

t.test('durations in Go notation', async (t) => {
  t.equal(parse('--request-timeout', '1m30s').number('request-timeout'), 90_000);
  t.equal(parse('--shutdown-delay-duration=1.5s').number('shutdown-delay-duration'), 1500);
  t.equal(parse('--etcd-compaction-interval=0').number('etcd-compaction-interval'), 0);
  t.throws(() => parse('--request-timeout=60'), /missing unit in duration "60"/);
  t.throws(() => parse('--request-timeout=0s'), /must be greater than 0/);
});

t.test('stringSlice splits on commas; repeating appends and replaces the default', async (t) => {
  t.same(parse('--authorization-mode=RBAC,Node').list('authorization-mode'), ['RBAC', 'Node']);
  t.same(parse('--authorization-mode=RBAC', '--authorization-mode', 'Node').list('authorization-mode'), ['RBAC', 'Node']);
  t.same(parse('--cors-allowed-origins=a,b', '--cors-allowed-origins=c').list('cors-allowed-origins'), ['a', 'b', 'c']);
  t.throws(() => parse('--authorization-mode=Magic'), /unknown value\(s\) Magic/);
});

t.test('stringArray keeps commas; maps merge', async (t) => {
  t.same(parse('--service-account-key-file=a,b', '--service-account-key-file=c').list('service-account-key-file'), ['a,b', 'c']);
  const p = parse('--runtime-config=api/all=true', '--runtime-config', 'batch/v1beta1=false');
  t.same(p.value('runtime-config'), { 'api/all': 'true', 'batch/v1beta1': 'false' });
  t.same(parse('--feature-gates=ServerSideApply=false,APIListChunking=true').value('feature-gates'), {
    ServerSideApply: false,
    APIListChunking: true,
  });
  t.throws(() => parse('--feature-gates=NoSuchGate=true'), /unrecognized feature gate: NoSuchGate/);
});

t.test('kube wording for unknown flags, missing values and bad values', async (t) => {
  t.throws(() => parse('--foo'), { message: 'unknown flag: --foo' });
  t.throws(() => parse('--foo=bar'), { message: 'unknown flag: --foo' });
  t.throws(() => parse('-x'), { message: "unknown shorthand flag: 'x' in -x" });
  t.throws(() => parse('--secure-port'), { message: 'flag needs an argument: --secure-port' });
  t.throws(() => parse('--secure-port=abc'), /invalid argument "abc" for "--secure-port" flag: "abc" is not an integer/);
  t.throws(() => parse('--secure-port=0'), /must be between 1 and 65535/);
  t.throws(() => parse('--bind-address=nope'), /failed to parse IP/);
  t.throws(() => parse('--logging-format=xml'), /must be one of text, json/);
  t.throws(() => parse('--foo'), FlagError);
});

t.test('everything after -- is an argument', async (t) => {
  const p = parse('--', '--secure-port=1');
  t.equal(p.isSet('secure-port'), false);
  t.same(p.args, ['--secure-port=1']);
});

t.test('apiServerConfig resolves paths and the storage URL from the data dir', async (t) => {
  const c = apiServerConfig(parse('--data-dir', '/srv/b', '--etcd-compaction-interval=0', '--logging-format=json', '--contention-profiling'));
  t.equal(c.dataDir, '/srv/b');
  t.equal(c.certDir, '/srv/b/pki');
  t.equal(c.storageUrl, 'sqlite:///srv/b/state.db');
  t.equal(c.compactionIntervalMs, 0);
  t.equal(c.loggingFormat, 'json');
  t.same(c.ignoredFlags, ['contention-profiling']);
  // (this used a postgres:// URL before --etcd-servers was checked while parsing; PostgreSQL is not served yet)
  const d = apiServerConfig(parse('--data-dir=/x', '--etcd-servers=sqlite:///srv/k.db', '--cert-dir=/certs'));
  t.equal(d.storageUrl, 'sqlite:///srv/k.db');
  t.equal(d.certDir, '/certs');
});

t.test('apiServerConfig refuses inconsistent flags', async (t) => {
  t.throws(() => apiServerConfig(parse('--tls-cert-file=/a.crt')), /must be given together/);
  t.throws(() => apiServerConfig(parse('--etcd-servers=sqlite:///a,sqlite:///b')), /takes one storage URL/);
  t.throws(() => apiServerConfig(parse('stray')), /does not take any arguments/);
});

t.test('--etcd-servers is checked while parsing: one message naming the flag and the problem', async (t) => {
  const refused = (arg: string) => {
    try {
      parse(arg);
    } catch (err) {
      t.type(err, FlagError);
      return (err as Error).message;
    }
    return t.fail(`${arg} was accepted`);
  };
  t.equal(
    refused('--etcd-servers=etcd://127.0.0.1:2379'),
    'invalid argument "etcd://127.0.0.1:2379" for "--etcd-servers" flag: unknown scheme "etcd" (expected sqlite:///path/to/state.db or postgres://user:password@host:port/database)',
  );
  t.match(refused('--etcd-servers=postgres://db:5432/'), /^invalid argument "postgres:\/\/db:5432\/" for "--etcd-servers" flag: names no database/);
  t.match(refused('--etcd-servers=postgres://db/k?sslmode=maybe'), /flag: sslmode "maybe" is not one of disable, allow, prefer, require, verify-ca, verify-full, no-verify/);
  t.equal(parse('--etcd-servers=postgres://u:p@db:5432/k?sslmode=require').list('etcd-servers')[0], 'postgres://u:p@db:5432/k?sslmode=require');
  t.match(refused('--etcd-servers=sqlite://'), /"--etcd-servers" flag: names no file/);
  t.match(refused('--etcd-servers=sqlite:///a%zz.db'), /bad %-escape/);
  t.equal(parse('--etcd-servers=sqlite:///srv/state.db').list('etcd-servers')[0], 'sqlite:///srv/state.db');
  t.equal(parse('--etcd-servers=/srv/state.db').list('etcd-servers')[0], '/srv/state.db');
});

t.test('the default data dir follows XDG_DATA_HOME, else ~/.local/share', async (t) => {
  t.equal(defaultDataDir({ XDG_DATA_HOME: '/data' }, '/home/u'), '/data/ballast');
  t.equal(defaultDataDir({ XDG_DATA_HOME: 'relative' }, '/home/u'), '/home/u/.local/share/ballast');
  t.equal(defaultDataDir({}, '/home/u'), '/home/u/.local/share/ballast');
});
