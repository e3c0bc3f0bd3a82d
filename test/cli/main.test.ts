import t from 'tap';
import { main } from '../../src/cli/main';
import { apiServerOptionGroups } from '../../src/options/apiserver';
import { NOT_ACTED_ON } from '../../src/options/help';
import type { CliIo } from '../../src/cli/io';

function run(...argv: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (s) => (out += s), stderr: (s) => (err += s), env: {} };
  const code = main(argv, io);
  if (typeof code !== 'number') throw new Error('expected an immediate exit code');
  return { code, out, err };
}

t.test('root help lists the commands', async (t) => {
  const r = run('--help');
  t.equal(r.code, 0);
  for (const c of ['apiserver', 'controller-manager', 'scheduler', 'nodeagent', 'all']) t.match(r.out, new RegExp(`\\n  ${c} `));
});

t.test('--version prints the package version', async (t) => {
  const r = run('--version');
  t.equal(r.code, 0);
  t.match(r.out, /^Ballast v\d+\.\d+\.\d+\n$/);
  const a = run('apiserver', '--version');
  t.match(a.out, /^Ballast v\d+\.\d+\.\d+ \(Kubernetes v1\.\d+\.\d+\+ballast\.[\d.]+\)\n$/);
  const raw = JSON.parse(run('apiserver', '--version=raw').out) as { major: string; gitVersion: string };
  t.equal(raw.major, '1');
});

t.test('ballast all: a bad flag of any component stops it with one line naming the flag it came in', async (t) => {
  const cases: [string[], string][] = [
    [['--nodeagent-arg=--bogus'], '--nodeagent-arg: unknown flag: --bogus'],
    [['--controller-manager-arg=--controllers=nope'], '--controller-manager-arg:'],
    [['--scheduler-arg', '--bogus'], '--scheduler-arg: unknown flag: --bogus'],
    [['--container-runtime', 'docker'], 'container-runtime'],
    [['--container-runtime', 'remote'], '--container-runtime remote needs --container-runtime-endpoint'],
    [['--disable-apiserver', '--disable-controller-manager', '--disable-scheduler', '--disable-agent'], 'every component is disabled'],
    [['--secure-port', 'x'], 'secure-port'],
  ];
  for (const [args, message] of cases) {
    const r = run('all', '--data-dir', '/nonexistent/ballast', ...args);
    t.equal(r.code, 1, args.join(' '));
    t.match(r.err, message, args.join(' '));
    t.equal(r.err.trim().split('\n').length, 2, 'one error line and the usage hint');
  }
  const help = run('all', '--help');
  t.equal(help.code, 0);
  for (const flag of ['--disable-scheduler', '--nodeagent-arg', '--container-runtime-endpoint', '--secure-port', '--authorization-mode']) t.match(help.out, flag);
});

t.test('unknown commands and flags exit 1', async (t) => {
  const a = run('frobnicate');
  t.equal(a.code, 1);
  t.match(a.err, 'Error: unknown command "frobnicate" for "ballast"');
  const b = run('apiserver', '--foo');
  t.equal(b.code, 1);
  t.match(b.err, /^Error: unknown flag: --foo\n/);
  t.equal(b.out, '');
});

t.test('apiserver --help lists every visible option with types, defaults and support', async (t) => {
  const r = run('apiserver', '--help');
  t.equal(r.code, 0);
  for (const g of apiServerOptionGroups) {
    t.match(r.out, `${g.title}:`);
    for (const o of g.options) if (!o.hidden) t.match(r.out, `--${o.name}`, o.name);
  }
  t.match(r.out, /--secure-port int\n.*\(default 6443\)/);
  t.match(r.out, /--etcd-compaction-interval duration\n[^]*?\(default 5m0s\)/);
  t.match(r.out, /-v, --v Level/);
  // an option we parse but ignore says so
  t.match(r.out.split('--contention-profiling\n')[1].split('\n\n')[0], NOT_ACTED_ON);
  t.match(r.out.split('--logtostderr\n')[1].split('\n\n')[0], /\(default true\)$/, 'the klog flags are acted on');
  t.notMatch(r.out.split('--secure-port int')[1].split('\n\n')[0], NOT_ACTED_ON);
});
