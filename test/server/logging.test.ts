import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createLogger, flushLogger } from '../../src/server/logger';
import { klogFileName, LogFiles } from '../../src/server/logging/klog-files';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';
import type { Test } from 'tap';

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-logging-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function config(args: string[]) {
  return apiServerConfig(parseOptions(apiServerOptionGroups, args), {}).logging;
}

t.test('klog file names: program.host.user.log.SEVERITY.date-time.pid', async (t) => {
  const name = klogFileName({ program: 'ballast-apiserver', severity: 1, time: new Date(2025, 0, 2, 3, 4, 5), host: 'node1', user: 'ann', pid: 42 });
  t.equal(name, 'ballast-apiserver.node1.ann.log.WARNING.20250102-030405.42');
});

t.test('--log-dir: per-severity files, each with the entries at or above it, and symlinks', async (t) => {
  const dir = tmp(t);
  const stderr: string[] = [];
  const log = createLogger({ format: 'text', verbosity: 0, toStderr: false, dir, write: (l) => stderr.push(l), program: 'prog' });
  log.info('an info');
  log.warn('a warning');
  log.error('an error');
  flushLogger(log);
  const read = (sev: string) => fs.readFileSync(path.join(dir, `prog.${sev}`), 'utf8');
  t.ok(fs.lstatSync(path.join(dir, 'prog.INFO')).isSymbolicLink());
  t.match(fs.readlinkSync(path.join(dir, 'prog.INFO')), new RegExp(`^prog\\.[^.]+\\.[^.]+\\.log\\.INFO\\.\\d{8}-\\d{6}\\.${process.pid}$`));
  t.match(read('INFO'), /^Log file created at: .*\nRunning on machine: .*\nBinary: .*\nLog line format: .*\n/);
  t.match(read('INFO'), /an info[\s\S]*a warning[\s\S]*an error/);
  t.notMatch(read('WARNING'), /an info/);
  t.match(read('WARNING'), /a warning[\s\S]*an error/);
  t.notMatch(read('ERROR'), /a warning/);
  t.match(read('ERROR'), /an error/);
  t.equal(stderr.length, 1, 'the default --stderrthreshold (ERROR) copies errors to standard error');
  t.match(stderr[0], /an error/);
});

t.test('--one-output writes each entry only to its own severity file; --skip-log-headers drops the header', async (t) => {
  const dir = tmp(t);
  const log = createLogger({ format: 'text', verbosity: 0, toStderr: false, dir, oneOutput: true, skipLogHeaders: true, write: () => {}, program: 'p' });
  log.info('i');
  log.error('e');
  flushLogger(log);
  const info = fs.readFileSync(path.join(dir, 'p.INFO'), 'utf8');
  t.notMatch(info, /Log file created/);
  t.match(info, / i\n$/);
  t.notMatch(info, / e\n/);
  t.match(fs.readFileSync(path.join(dir, 'p.ERROR'), 'utf8'), / e\n$/);
});

t.test('--logtostderr (the default) writes no files even with --log-dir', async (t) => {
  const dir = tmp(t);
  const lines: string[] = [];
  const log = createLogger({ format: 'text', verbosity: 0, dir, write: (l) => lines.push(l) });
  log.info('hello');
  flushLogger(log);
  t.same(fs.readdirSync(dir), []);
  t.equal(lines.length, 1);
});

t.test('--alsologtostderr and --stderrthreshold', async (t) => {
  const dir = tmp(t);
  const also: string[] = [];
  const a = createLogger({ format: 'text', verbosity: 0, toStderr: false, dir, alsoToStderr: true, write: (l) => also.push(l) });
  a.info('x');
  t.equal(also.length, 1, 'alsologtostderr copies info');
  const warn: string[] = [];
  const b = createLogger({ format: 'text', verbosity: 0, toStderr: false, dir, stderrThreshold: 1, write: (l) => warn.push(l) });
  b.info('x');
  b.warn('y');
  t.equal(warn.length, 1);
  t.match(warn[0], /WARN +y/);
});

t.test('--log-file gets every entry; buffered until flushed (--log-flush-frequency)', async (t) => {
  const file = path.join(tmp(t), 'sub', 'api.log');
  const log = createLogger({ format: 'json', verbosity: 0, toStderr: false, file, flushFrequencyMs: 50, write: () => {} });
  log.info('first');
  log.error('second');
  t.notOk(fs.existsSync(file) && /first/.test(fs.readFileSync(file, 'utf8')), 'not written before a flush');
  await new Promise((r) => setTimeout(r, 150));
  const text = fs.readFileSync(file, 'utf8');
  t.match(text, /"msg":"first"[\s\S]*"msg":"second"/);
});

t.test('--log-file-max-size: a --log-dir file is followed by a new file, a --log-file starts afresh', async (t) => {
  const dir = tmp(t);
  let second = 0;
  const files = new LogFiles({ dir, program: 'r', maxBytes: 100, oneOutput: false, skipLogHeaders: true, lineFormat: '', now: () => new Date(2025, 0, 1, 0, 0, second++) });
  for (let i = 0; i < 5; i++) files.write(0, `${'x'.repeat(40)}\n`);
  files.close();
  const names = fs.readdirSync(dir).filter((n) => n.includes('.log.INFO.'));
  t.equal(names.length, 3, '5 lines of 41 bytes with 100 bytes a file');
  const file = path.join(dir, 'one.log');
  const one = new LogFiles({ file, program: 'r', maxBytes: 100, oneOutput: false, skipLogHeaders: true, lineFormat: '' });
  for (let i = 0; i < 5; i++) one.write(0, `${i}${'x'.repeat(39)}\n`);
  one.close();
  t.equal(fs.readFileSync(file, 'utf8'), `4${'x'.repeat(39)}\n`);
});

t.test('--skip-headers and --add-dir-header shape the text header', async (t) => {
  const lines: string[] = [];
  createLogger({ format: 'text', verbosity: 0, skipHeaders: true, write: (l) => lines.push(l) }).info({ a: 1 }, 'plain');
  t.equal(lines[0], 'plain a=1\n');
  createLogger({ format: 'text', verbosity: 0, addDirHeader: true, write: (l) => lines.push(l) }).info('located');
  t.match(lines[1], /^\S+ INFO +server\/logging\.test\.ts:\d+\] located\n$/);
});

t.test('--log-backtrace-at logs a stack with the entry at that source line', async (t) => {
  const lines: string[] = [];
  const line = Number(/logging\.test\.ts:(\d+)/.exec(new Error().stack ?? '')![1]) + 3;
  const log = createLogger({ format: 'text', verbosity: 0, backtraceAt: { file: 'logging.test.ts', line }, write: (l) => lines.push(l) });
  for (let i = 0; i < 2; i++) {
    log.info('traced');
    log.info('not traced');
  }
  t.equal(lines.length, 4);
  t.match(lines[0], /traced\n {4}at .*logging\.test\.ts/);
  t.notMatch(lines[0], /not traced/);
  t.match(lines[1], /^\S+ INFO +not traced\n$/);
});

t.test('--vmodule sets the verbosity of component loggers', async (t) => {
  const lines: string[] = [];
  const log = createLogger({ format: 'json', verbosity: 0, vmodule: [{ pattern: 'stor*', verbosity: 4 }, { pattern: 'audit', verbosity: 0 }], write: (l) => lines.push(l) });
  log.child({ component: 'storage' }).debug('storage debug');
  log.child({ component: 'storage' }).child({ request: 1 }).debug('nested debug');
  log.child({ component: 'registry' }).debug('registry debug');
  log.debug('root debug');
  t.same(lines.map((l) => (JSON.parse(l) as { msg: string }).msg), ['storage debug', 'nested debug']);
  const quiet: string[] = [];
  const v4 = createLogger({ format: 'json', verbosity: 4, vmodule: [{ pattern: 'audit', verbosity: 0 }], write: (l) => quiet.push(l) });
  v4.child({ component: 'audit' }).debug('hidden');
  t.equal(quiet.length, 0, 'a module can be quieter than -v');
});

t.test('--experimental-logging-sanitization redacts secret-looking fields', async (t) => {
  const lines: string[] = [];
  const log = createLogger({ format: 'json', verbosity: 0, sanitize: true, write: (l) => lines.push(l) });
  log.info({ token: 'abc', user: 'ann', headers: { authorization: 'Bearer x' }, req: { body: { password: 'p' } } }, 'login');
  const e = JSON.parse(lines[0]) as Record<string, any>;
  t.equal(e.token, '[redacted]');
  t.equal(e.user, 'ann');
  t.equal(e.headers.authorization, '[redacted]');
  t.equal(e.req.body.password, '[redacted]');
  const plain: string[] = [];
  createLogger({ format: 'json', verbosity: 0, write: (l) => plain.push(l) }).info({ token: 'abc' }, 'x');
  t.match(plain[0], /"token":"abc"/, 'off by default');
});

t.test('flags build the logging config; bad values are one-line flag errors', async (t) => {
  const c = config(['--logtostderr=false', '--log-dir', '/tmp/x', '--vmodule', 'storage=4,audit*=2', '--log-backtrace-at', 'apiserver.ts:12', '--stderrthreshold', 'WARNING', '--log-flush-frequency', '1s', '--log-file-max-size', '0']);
  t.equal(c.toStderr, false);
  t.equal(c.dir, '/tmp/x');
  t.same(c.vmodule, [{ pattern: 'storage', verbosity: 4 }, { pattern: 'audit*', verbosity: 2 }]);
  t.same(c.backtraceAt, { file: 'apiserver.ts', line: 12 });
  t.equal(c.stderrThreshold, 1);
  t.equal(c.flushFrequencyMs, 1000);
  t.equal(c.maxSizeMB, 0);
  const d = config([]);
  t.equal(d.toStderr, true);
  t.equal(d.backtraceAt, undefined);
  t.equal(d.maxSizeMB, 1800);
  t.throws(() => config(['--vmodule', 'storage']), /invalid argument "storage" for "--vmodule" flag: syntax error: expect comma-separated list of filename=N/);
  t.throws(() => config(['--vmodule', 'storage=x']), /invalid argument "storage=x" for "--vmodule" flag/);
  t.throws(() => config(['--log-backtrace-at', 'nowhere']), /invalid argument "nowhere" for "--log-backtrace-at" flag: syntax error: expect file.ts:234/);
  t.throws(() => config(['--stderrthreshold', 'LOUD']), /invalid argument "LOUD" for "--stderrthreshold" flag/);
  t.throws(() => config(['--log-file-max-size', '-1']), /invalid argument "-1" for "--log-file-max-size" flag/);
  t.throws(() => config(['--log-flush-frequency', '0s']), /--log-flush-frequency must be positive/);
});

t.test('a --log-dir that cannot be created is one worded error', async (t) => {
  const file = path.join(tmp(t), 'plain-file');
  fs.writeFileSync(file, '');
  t.throws(() => createLogger({ format: 'text', verbosity: 0, toStderr: false, dir: path.join(file, 'sub') }), /^--log-dir .*plain-file\/sub: cannot write there \(ENOTDIR\)$/);
});
