import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import t from 'tap';
import os from 'node:os';
import { MAIN_JS, freePort } from './harness';

const built = fs.existsSync(MAIN_JS);

function ballast(...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN_JS, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

t.test('the built binary refuses an unknown flag with exit code 1', { skip: !built && 'run make build first' }, async (t) => {
  const r = ballast('apiserver', '--foo', '--secure-port=0');
  t.equal(r.code, 1);
  t.match(r.stderr, /^Error: unknown flag: --foo$/m);
  t.equal(r.stdout, '');
  const bad = ballast('apiserver', '--secure-port=abc');
  t.equal(bad.code, 1);
  t.match(bad.stderr, 'invalid argument "abc" for "--secure-port" flag');
});

t.test('apiserver --help lists the options and exits 0', { skip: !built && 'run make build first' }, async (t) => {
  const r = ballast('apiserver', '--help');
  t.equal(r.code, 0);
  for (const flag of ['--bind-address ip', '--secure-port int', '--data-dir string', '--etcd-servers strings', '--etcd-compaction-interval duration', '--request-timeout duration', '--max-requests-inflight int', '--shutdown-delay-duration duration', '--logging-format string', '--tls-cert-file string', '--feature-gates mapStringBool']) {
    t.match(r.stdout, flag);
  }
  t.match(r.stdout, '[accepted, no effect yet]');
});

t.test('--version', { skip: !built && 'run make build first' }, async (t) => {
  const v = ballast('--version');
  t.equal(v.code, 0);
  const pkg = JSON.parse(fs.readFileSync(`${__dirname}/../../package.json`, 'utf8')) as { version: string };
  t.equal(v.stdout, `Ballast v${pkg.version}\n`);
});

t.test('the package bin entry is the built CLI with a node shebang', async (t) => {
  const pkg = JSON.parse(fs.readFileSync(`${__dirname}/../../package.json`, 'utf8')) as { bin: Record<string, string> };
  t.equal(pkg.bin.ballast, 'dist/src/cli/main.js');
  const src = fs.readFileSync(`${__dirname}/../../src/cli/main.ts`, 'utf8');
  t.match(src, /^#!\/usr\/bin\/env node\n/);
});

t.test('a bad --etcd-servers URL is refused while parsing, before anything is written', { skip: !built && 'run make build first' }, async (t) => {
  const dir = fs.mkdtempSync(`${os.tmpdir()}/ballast-cli-`);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const dataDir = `${dir}/data`;
  for (const [url, problem] of [
    ['mysql://h/db', 'unknown scheme "mysql"'],
    ['postgres://u@h:5432/', 'names no database'],
    ['sqlite://', 'names no file'],
  ]) {
    const r = ballast('apiserver', '--data-dir', dataDir, '--etcd-servers', url);
    t.equal(r.code, 1, url);
    t.match(r.stderr, `Error: invalid argument "${url}" for "--etcd-servers" flag: ${problem}`);
    t.notMatch(r.stderr, /^\s+at /m, 'no stack');
    t.notOk(fs.existsSync(dataDir), 'no data dir, certificates or kubeconfig written');
  }
});

t.test('an unreadable --tls-cert-file: one line, no stack, exit 1', { skip: !built && 'run make build first' }, async (t) => {
  const dir = fs.mkdtempSync(`${os.tmpdir()}/ballast-cli-`);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = ballast('apiserver', '--data-dir', `${dir}/data`, '--secure-port', String(await freePort()), '--bind-address', '127.0.0.1', '--tls-cert-file', `${dir}/missing.crt`, '--tls-private-key-file', `${dir}/missing.key`);
  t.equal(r.code, 1);
  t.match(r.stderr, new RegExp(`^Error: unable to load server certificate from --tls-cert-file ${dir}/missing.crt: no such file or directory$`, 'm'));
  t.notMatch(r.stderr, /^\s+at /m, 'no stack');
  fs.writeFileSync(`${dir}/bad.crt`, 'not a certificate');
  fs.writeFileSync(`${dir}/bad.key`, 'not a key');
  const bad = ballast('apiserver', '--data-dir', `${dir}/data`, '--secure-port', String(await freePort()), '--bind-address', '127.0.0.1', '--tls-cert-file', `${dir}/bad.crt`, '--tls-private-key-file', `${dir}/bad.key`);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /^Error: invalid serving certificate or key: /m);
  t.notMatch(bad.stderr, /^\s+at /m, 'no stack');
});

t.test('--feature-gates knows 1.32 gates and refuses locked values; --help lists the gates', { skip: !built && 'run make build first' }, async (t) => {
  const help = ballast('apiserver', '--help');
  t.match(help.stdout, /^ {12}WatchList=true\|false \(BETA - default=true\)$/m);
  t.match(help.stdout, /^ {12}InPlacePodVerticalScaling=true\|false \(ALPHA - default=false\)$/m);
  const locked = ballast('apiserver', '--feature-gates=MemoryManager=false');
  t.equal(locked.code, 1);
  t.match(locked.stderr, 'cannot set feature gate MemoryManager to false, feature is locked to true');
  const unknown = ballast('apiserver', '--feature-gates=NotAGate=true');
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, 'unrecognized feature gate: NotAGate');
  // a known 1.32 gate passes parsing (the server then starts; --version stops before that)
  const known = ballast('apiserver', '--feature-gates=WatchList=false,SidecarContainers=true', '--version');
  t.equal(known.code, 0, known.stderr);
});

t.test('a malformed --token-auth-file or a missing --client-ca-file: one line naming it, exit 1', { skip: !built && 'run make build first' }, async (t) => {
  const dir = fs.mkdtempSync(`${os.tmpdir()}/ballast-cli-`);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(`${dir}/tokens.csv`, 'good,alice,1\nshort,bob\n');
  const common = ['apiserver', '--data-dir', `${dir}/data`, '--secure-port', String(await freePort()), '--bind-address', '127.0.0.1'];
  const r = ballast(...common, '--token-auth-file', `${dir}/tokens.csv`);
  t.equal(r.code, 1);
  t.match(r.stderr, new RegExp(`^Error: --token-auth-file ${dir}/tokens.csv, line 2: must have at least 3 columns \\(token, user name, user uid\\), found 2$`, 'm'));
  t.notMatch(r.stderr, /^\s+at /m, 'no stack');
  const ca = ballast(...common, '--client-ca-file', `${dir}/missing.crt`);
  t.equal(ca.code, 1);
  t.match(ca.stderr, new RegExp(`^Error: --client-ca-file ${dir}/missing.crt: no such file or directory$`, 'm'));
});

t.test('a bad --encryption-provider-config: one line naming the file and field, exit 1', { skip: !built && 'run make build first' }, async (t) => {
  const dir = fs.mkdtempSync(`${os.tmpdir()}/ballast-cli-`);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const config = `${dir}/encryption.yaml`;
  fs.writeFileSync(config, 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys: [{name: k, secret: c2hvcnQ=}]\n');
  const r = ballast('apiserver', '--data-dir', `${dir}/data`, '--secure-port', String(await freePort()), '--bind-address', '127.0.0.1', '--encryption-provider-config', config);
  t.equal(r.code, 1);
  t.match(r.stderr, `Error: --encryption-provider-config ${config}: resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: REDACTED: secret is not of the expected length, got 5, expected one of [16,24,32]\n`);
  t.notMatch(r.stderr, /^\s+at /m, 'no stack');
});
