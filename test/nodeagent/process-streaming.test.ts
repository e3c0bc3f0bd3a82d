/**
 * The process runtime's exec, attach and port-forward through its streaming server, with real
 * host processes: the command's environment and working directory, exit codes, stdin, a terminal
 * from `script` with its size, a client that hangs up, and port-forward to a port on 127.0.0.1.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import t, { type Test } from 'tap';
import type { ContainerConfig } from '../../src/nodeagent/cri/generated/runtime/v1/ContainerConfig';
import type { PodSandboxConfig } from '../../src/nodeagent/cri/generated/runtime/v1/PodSandboxConfig';
import { ProcessRuntimeService } from '../../src/nodeagent/runtimes/process/process-runtime-service';
import { findScript } from '../../src/nodeagent/runtimes/process/process-streaming';
import { processAlive } from '../../src/nodeagent/runtimes/process/state';
import { spdyExec, spdyPortForwardOnce, spdyPortForwardSession, upgradeRequest, webSocketExec } from './process-streaming-client';

async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function setup(t: Test) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-process-streaming-'));
  const runtime = new ProcessRuntimeService({ stateDir: path.join(dir, 'state') });
  const uid = crypto.randomUUID();
  const sandbox: PodSandboxConfig = { metadata: { name: 'web', namespace: 'default', uid, attempt: 0 }, hostname: 'web', logDirectory: path.join(dir, 'logs') };
  const sandboxId = await runtime.runPodSandbox(sandbox);
  const volume = path.join(dir, 'volume');
  fs.mkdirSync(volume);
  const run = async (name: string, command: string[], extra: Partial<ContainerConfig> = {}) => {
    const id = await runtime.createContainer(sandboxId, { metadata: { name, attempt: 0 }, image: { image: 'busybox' }, command, logPath: `${name}.log`, ...extra }, sandbox);
    await runtime.startContainer(id);
    return id;
  };
  t.teardown(async () => {
    await runtime.removePodSandbox(sandboxId);
    runtime.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { runtime, run, sandboxId, uid, volume };
}

t.test('exec through the streaming server runs in the container\'s environment', async (t) => {
  const { runtime, run, volume } = await setup(t);
  const id = await run('main', ['sleep', '100'], {
    envs: [{ key: 'GREETING', value: 'hello' }],
    mounts: [{ containerPath: '/data', hostPath: volume }],
    workingDir: '/data',
  });
  fs.writeFileSync(path.join(volume, 'file'), 'in the volume');
  const exec = (cmd: string[], extra: Partial<{ tty: boolean; stdin: boolean; stderr: boolean }> = {}) =>
    runtime.exec({ containerId: id, cmd, stdout: true, stderr: !extra.tty, stdin: false, ...extra });

  const url = await exec(['sh', '-c', 'echo $GREETING; cat file; echo; echo oops >&2; exit 3']);
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+\/exec\/[\w-]{11}$/, 'a one-time URL on 127.0.0.1');
  const out = await spdyExec(url);
  t.equal(out.stdout, 'hello\nin the volume\n', 'env and working directory as ExecSync gives them');
  t.equal(out.stderr, 'oops\n');
  t.same(JSON.parse(out.error).details.causes, [{ reason: 'ExitCode', message: '3' }]);

  const ws = await webSocketExec(await exec(['sh', '-c', 'echo over websocket']), { protocols: ['v5.channel.k8s.io', 'v4.channel.k8s.io'] });
  t.equal(ws.stdout, 'over websocket\n');
  t.same(JSON.parse(ws.error), { metadata: {}, status: 'Success' });

  const piped = await spdyExec(await exec(['tr', 'a-z', 'A-Z'], { stdin: true }), { stdin: 'shout\n' });
  t.equal(piped.stdout, 'SHOUT\n', 'stdin reaches the command and its end ends it');

  const started = Date.now();
  const background = await spdyExec(await exec(['sh', '-c', 'sleep 30 & echo $!']));
  const sleeper = Number(background.stdout.trim());
  t.ok(Date.now() - started < 10_000, 'a background child holding the output does not hold the exec');
  t.ok(processAlive(sleeper), 'the background child runs on');

  const missing = JSON.parse((await spdyExec(await exec(['no-such-binary-xyz']))).error);
  t.equal(missing.reason, 'InternalError');
  t.match(missing.message, /executable file not found in \$PATH/);

  await t.rejects(runtime.exec({ containerId: id, cmd: ['true'], stdout: false, stderr: false }), { code: GrpcStatus.INVALID_ARGUMENT, message: /one of stdin, stdout, or stderr/ });
  await t.rejects(runtime.exec({ containerId: 'nope', cmd: ['true'], stdout: true }), { code: GrpcStatus.NOT_FOUND });
  await runtime.stopContainer(id, 0);
  await t.rejects(exec(['true']), { message: /container is in CONTAINER_EXITED state/ });
  await eventually('the background child killed with its container', () => (processAlive(sleeper) ? undefined : true));
});

t.test('exec with a terminal: a pty from script, its first size and a later resize', { skip: findScript() ? undefined : 'util-linux script is not installed' }, async (t) => {
  const { runtime, run } = await setup(t);
  const id = await run('main', ['sleep', '100']);
  const url = await runtime.exec({ containerId: id, cmd: ['sh', '-c', 'tty; stty size; exit 5'], tty: true, stdout: true });
  const out = await spdyExec(url, { tty: true, size: { width: 120, height: 33 } });
  const lines = out.stdout.split('\r\n');
  t.match(lines[0], /^\/dev\/pts\/\d+$/, 'the command has a terminal');
  t.equal(lines[1], '33 120', 'the first size is the terminal\'s');
  t.same(JSON.parse(out.error).details.causes, [{ reason: 'ExitCode', message: '5' }], 'the exit code passes through script');
});

t.test('a later resize reaches the terminal', { skip: findScript() ? undefined : 'util-linux script is not installed' }, async (t) => {
  const { runtime, run } = await setup(t);
  const id = await run('main', ['sleep', '100']);
  const url = await runtime.exec({ containerId: id, cmd: ['sh', '-c', 'stty size; sleep 1.5; stty size; read line; echo "read $line"'], tty: true, stdin: true, stdout: true });
  const out = await spdyExec(url, {
    tty: true,
    size: { width: 80, height: 24 },
    laterSizes: [{ width: 100, height: 50, afterMs: 700 }],
    stdin: (stdin) => setTimeout(() => stdin.write('typed\n'), 2000),
  });
  const lines = out.stdout.split('\r\n');
  t.same(lines.slice(0, 2), ['24 80', '50 100'], 'stty -F applied the later size');
  t.ok(lines.includes('typed') && lines.includes('read typed'), `the terminal echoes input and the command reads it: ${JSON.stringify(lines)}`);
});

t.test('a client that hangs up: the command is killed', async (t) => {
  const { runtime, run } = await setup(t);
  const id = await run('main', ['sleep', '100']);
  const url = await runtime.exec({ containerId: id, cmd: ['sh', '-c', 'echo $$; exec sleep 100'], stdout: true });
  const up = await upgradeRequest(url, { Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' });
  const { SpdySession } = require('../../src/nodeagent/streaming/spdy') as typeof import('../../src/nodeagent/streaming/spdy');
  const session = new SpdySession({ socket: up.socket!, role: 'client', head: up.head });
  await session.waitReply(session.openStream({ streamType: 'error' }), 5000);
  const stdout = await session.waitReply(session.openStream({ streamType: 'stdout' }), 5000);
  const pid = Number(await new Promise<string>((resolve) => stdout.once('data', (d: Buffer) => resolve(d.toString()))));
  t.ok(processAlive(pid), `the command runs (pid ${pid})`);
  session.destroy();
  await eventually('the command is gone', () => (processAlive(pid) ? undefined : true));
  t.pass('the command was killed');
});

t.test('port-forward connects to the port on 127.0.0.1', async (t) => {
  const { runtime, sandboxId, uid } = await setup(t);
  const server = net.createServer((c) => c.on('data', (d) => c.end(`pong:${d}`)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => server.close());
  const port = (server.address() as net.AddressInfo).port;
  const session = await spdyPortForwardSession(await runtime.portForward(sandboxId, [port]));
  t.teardown(() => session.destroy());
  t.same(await spdyPortForwardOnce(session, 0, port, 'ping'), { data: 'pong:ping', error: '' });
  server.close();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const refused = await spdyPortForwardOnce(session, 1, port, 'ping');
  t.match(refused.error, new RegExp(`error forwarding port ${port} to pod web, uid ${uid}: connect ECONNREFUSED`));
  await t.rejects(runtime.portForward('nope', [80]), { code: GrpcStatus.NOT_FOUND });
});

t.test('attach: the running command\'s output and stdin, through its shim', async (t) => {
  const { runtime, run, sandboxId } = await setup(t);
  const script = 'echo ready; while read line; do echo "got $line"; done; echo bye; exit 2';
  const keeps = await run('keeps', ['sh', '-c', script], { stdin: true, stdinOnce: false });
  const attach = (containerId: string) => runtime.attach({ containerId, stdin: true, stdout: true, stderr: true });
  await eventually('the container prints ready', async () => ((await runtime.containerStatus(keeps)).status?.state === 'CONTAINER_RUNNING' ? true : undefined));
  const first = await spdyExec(await attach(keeps), {
    stdin: (stdin) => {
      stdin.write('one\n');
      setTimeout(() => stdin.end(), 300);
    },
    // without stdinOnce the container keeps its stdin: the client leaves by hanging up
    hangUpAfterMs: 800,
  });
  t.match(first.stdout, /got one\n/, 'what the client typed reached the command');
  t.equal((await runtime.containerStatus(keeps)).status?.state, 'CONTAINER_RUNNING', 'a client\'s end of input does not close stdin without stdinOnce');

  const once = await run('once', ['sh', '-c', script], { stdin: true, stdinOnce: true });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const second = await spdyExec(await attach(once), { stdin: 'x\n' });
  t.match(second.stdout, /got x\nbye\n/, 'with stdinOnce the client\'s end of input closes the command\'s stdin');
  t.same(JSON.parse(second.error), { metadata: {}, status: 'Success' }, 'attach ends with Success');
  await eventually('the once container exits 2', async () => ((await runtime.containerStatus(once)).status?.exitCode === 2 ? true : undefined));

  const noSecret = await new Promise<string>((resolve) => {
    const c = net.connect({ path: `\0ballast-process-shim-${keeps}` });
    let got = '';
    c.on('connect', () => c.write('{"secret":"wrong","stdin":true}\nhello\n'));
    c.on('data', (d) => (got += d.toString()));
    c.on('close', () => resolve(got));
    c.on('error', () => resolve(got));
  });
  t.equal(noSecret, '', 'a client without the secret gets nothing');
  await t.rejects(runtime.attach({ containerId: once, stdout: true }), { message: /CONTAINER_EXITED/ });
  t.ok(sandboxId);
});

t.test('a tty container runs on a terminal', { skip: findScript() ? undefined : 'util-linux script is not installed' }, async (t) => {
  const { runtime, run } = await setup(t);
  const id = await run('tty', ['sh', '-c', 'tty; exec sleep 100'], { tty: true, stdin: true });
  const log = (await runtime.containerStatus(id)).status?.logPath ?? '';
  const text = await eventually('the tty line in the log', () => {
    const content = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
    return /\/dev\/pts\/\d+/.test(content) ? content : undefined;
  });
  t.match(text, / stdout F \/dev\/pts\/\d+/);
});
