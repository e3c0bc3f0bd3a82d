/**
 * The process runtime (src/nodeagent/runtimes/process/): host processes behind the CRI calls, with
 * CRI-format logs, stop with grace then kill, ExecSync, env and cwd, recorded images, and records
 * that a restarted agent reads back. No root needed.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import t, { type Test } from 'tap';
import { CriError } from '../../src/nodeagent/cri/cri-error';
import type { ContainerConfig } from '../../src/nodeagent/cri/generated/runtime/v1/ContainerConfig';
import type { PodSandboxConfig } from '../../src/nodeagent/cri/generated/runtime/v1/PodSandboxConfig';
import { ProcessImageService } from '../../src/nodeagent/runtimes/process/process-image-service';
import { ProcessRuntimeService } from '../../src/nodeagent/runtimes/process/process-runtime-service';
import { processAlive } from '../../src/nodeagent/runtimes/process/state';

function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-process-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function sandboxConfig(dir: string, name = 'web'): PodSandboxConfig {
  const uid = crypto.randomUUID();
  return {
    metadata: { name, namespace: 'default', uid, attempt: 0 },
    hostname: name,
    logDirectory: path.join(dir, 'logs', `default_${name}_${uid}`),
    labels: { 'io.kubernetes.pod.name': name, 'io.kubernetes.pod.uid': uid },
  };
}

function containerConfig(name: string, command: string[], extra: Partial<ContainerConfig> = {}): ContainerConfig {
  return {
    metadata: { name, attempt: 0 },
    image: { image: 'busybox' },
    command,
    logPath: `${name}/0.log`,
    labels: { 'io.kubernetes.container.name': name },
    ...extra,
  };
}

async function setup(t: Test, options: { maxLogLineBytes?: number } = {}) {
  const dir = tempDir(t);
  const runtime = new ProcessRuntimeService({ stateDir: path.join(dir, 'state'), hostIP: '10.1.2.3', ...options });
  const sandbox = sandboxConfig(dir);
  const sandboxId = await runtime.runPodSandbox(sandbox);
  const started: string[] = [];
  t.teardown(async () => {
    for (const id of started) await runtime.removeContainer(id).catch(() => undefined);
  });
  const run = async (name: string, command: string[], extra: Partial<ContainerConfig> = {}) => {
    const id = await runtime.createContainer(sandboxId, containerConfig(name, command, extra), sandbox);
    started.push(id);
    await runtime.startContainer(id);
    return id;
  };
  const exited = (id: string) =>
    eventually(`container ${id} exits`, async () => {
      const status = (await runtime.containerStatus(id)).status;
      return status?.state === 'CONTAINER_EXITED' ? status : undefined;
    });
  const log = (name: string) => fs.readFileSync(path.join(sandbox.logDirectory ?? '', name, '0.log'), 'utf8');
  return { dir, runtime, sandbox, sandboxId, run, exited, log, started };
}

const CRI_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z (stdout|stderr) (F|P) /;

t.test('Version and Status', async (t) => {
  const runtime = new ProcessRuntimeService({ stateDir: tempDir(t) });
  const version = await runtime.version();
  t.equal(version.runtimeName, 'process');
  t.equal(version.runtimeApiVersion, 'v1');
  const conditions = Object.fromEntries((await runtime.status()).status?.conditions.map((c) => [c.type, c.status]) ?? []);
  t.same(conditions, { RuntimeReady: true, NetworkReady: true });
});

t.test('sandboxes: the host IP, filters, stop and removal', async (t) => {
  const { runtime, sandbox, sandboxId, dir } = await setup(t);
  const status = (await runtime.podSandboxStatus(sandboxId)).status;
  t.equal(status?.state, 'SANDBOX_READY');
  t.equal(status?.network?.ip, '10.1.2.3', 'the host IP');
  t.equal(status?.metadata?.name, 'web');
  t.ok(fs.existsSync(sandbox.logDirectory ?? ''), 'the log directory is made');
  const other = await runtime.runPodSandbox(sandboxConfig(dir, 'other'));
  t.same((await runtime.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.name': 'web' } })).map((s) => s.id), [sandboxId]);
  t.same((await runtime.listPodSandbox({ id: other })).map((s) => s.metadata?.name), ['other']);
  await runtime.stopPodSandbox(other);
  t.same((await runtime.listPodSandbox({ state: { state: 'SANDBOX_READY' } })).map((s) => s.id), [sandboxId]);
  t.same((await runtime.listPodSandbox({ state: { state: 1 } })).map((s) => s.id), [other], 'the state by its number');
  await runtime.removePodSandbox(other);
  await runtime.removePodSandbox(other);
  t.equal((await runtime.listPodSandbox()).length, 1, 'removal is idempotent');
  await t.rejects(runtime.podSandboxStatus(other), { code: GrpcStatus.NOT_FOUND });
});

t.test('a container completes: states, times, exit code 0, reason Completed, CRI log', async (t) => {
  const { runtime, run, exited, log, sandboxId } = await setup(t);
  const id = await run('hello', ['sh', '-c'], { args: ['echo hello; echo oops >&2; printf tail'] });
  const status = await exited(id);
  t.equal(status.exitCode, 0);
  t.equal(status.reason, 'Completed');
  t.ok(BigInt(status.startedAt) > 0n && BigInt(status.finishedAt) >= BigInt(status.startedAt), 'startedAt <= finishedAt');
  t.ok(BigInt(status.createdAt) <= BigInt(status.startedAt), 'createdAt <= startedAt');
  t.equal(status.imageRef, 'process://busybox');
  const lines = log('hello').trimEnd().split('\n');
  t.equal(lines.length, 3, log('hello'));
  for (const line of lines) t.match(line, CRI_LINE);
  const content = lines.map((line) => line.replace(/^\S+ /, '')).sort();
  t.same(content, ['stderr F oops', 'stdout F hello', 'stdout F tail'], 'the last line without a newline is F');
  const listed = await runtime.listContainers({ podSandboxId: sandboxId, state: { state: 'CONTAINER_EXITED' } });
  t.same(listed.map((c) => [c.id, c.metadata?.name, c.imageRef]), [[id, 'hello', 'process://busybox']]);
});

t.test('a failing command: exit code and reason Error', async (t) => {
  const { run, exited } = await setup(t);
  const status = await exited(await run('fail', ['sh', '-c', 'exit 3']));
  t.equal(status.exitCode, 3);
  t.equal(status.reason, 'Error');
});

t.test('a long line is written as partial records', async (t) => {
  const { run, exited, log } = await setup(t, { maxLogLineBytes: 10 });
  await exited(await run('long', ['sh', '-c', 'echo abcdefghijklmnopqrstuvwxyz; echo short']));
  const records = log('long').trimEnd().split('\n').map((line) => line.replace(/^\S+ /, ''));
  t.same(records, ['stdout P abcdefghij', 'stdout P klmnopqrst', 'stdout F uvwxyz', 'stdout F short']);
});

t.test('env, working directory, mounts through BALLAST_ROOT', async (t) => {
  const { run, exited, log, dir } = await setup(t);
  const volume = path.join(dir, 'volume');
  fs.mkdirSync(volume);
  fs.writeFileSync(path.join(volume, 'key'), 'value-from-volume');
  const command = 'echo "GREETING=$GREETING"; echo "HOSTNAME=$HOSTNAME"; echo "PWD=$(pwd)"; cat "$BALLAST_ROOT/etc/config/key"; echo; cat key';
  const id = await run('env', ['sh', '-c', command], {
    envs: [{ key: 'GREETING', value: 'hi there' }],
    workingDir: '/etc/config',
    mounts: [{ containerPath: '/etc/config', hostPath: volume, readonly: true }],
  });
  await exited(id);
  const out = log('env');
  t.match(out, /stdout F GREETING=hi there\n/);
  t.match(out, /stdout F HOSTNAME=web\n/);
  t.match(out, new RegExp(`stdout F PWD=.*/containers/${id}/root/etc/config\\n`), 'the working dir under a mount, through the root');
  t.equal(out.match(/stdout F value-from-volume/g)?.length, 2, 'the mount is reachable through BALLAST_ROOT and the cwd');

  const hostDir = await run('cwd', ['pwd'], { workingDir: dir });
  await exited(hostDir);
  t.match(log('cwd'), new RegExp(`stdout F ${dir}\\n`), 'a working dir that exists on the host');
  const missing = await run('missing', ['pwd'], { workingDir: '/no/such/dir' });
  await exited(missing);
  t.match(log('missing'), new RegExp(`stdout F .*/containers/${missing}/root\\n`), 'else the container root');
});

t.test('no command: CreateContainer fails naming the reason', async (t) => {
  const { runtime, sandboxId, sandbox } = await setup(t);
  const err = await runtime.createContainer(sandboxId, containerConfig('nocmd', []), sandbox).catch((e: unknown) => e);
  t.ok(err instanceof CriError);
  t.equal((err as CriError).code, GrpcStatus.INVALID_ARGUMENT);
  t.match((err as CriError).message, 'the process runtime needs a command: image "busybox" is recorded, not pulled');
});

t.test('a command that does not exist fails StartContainer', async (t) => {
  const { runtime, sandboxId, sandbox } = await setup(t);
  const id = await runtime.createContainer(sandboxId, containerConfig('nope', ['no-such-binary-xyz']), sandbox);
  await t.rejects(runtime.startContainer(id), { message: /exec: "no-such-binary-xyz": executable file not found in \$PATH/ });
  const status = (await runtime.containerStatus(id)).status;
  t.equal(status?.state, 'CONTAINER_EXITED');
  t.equal(status?.exitCode, 128);
  t.equal(status?.reason, 'StartError');
  await runtime.removeContainer(id);
});

t.test('stop: SIGTERM ends a cooperative process at once', async (t) => {
  const { runtime, run } = await setup(t);
  const id = await run('sleeper', ['sleep', '100']);
  t.equal((await runtime.containerStatus(id)).status?.state, 'CONTAINER_RUNNING');
  const began = Date.now();
  await runtime.stopContainer(id, 10);
  t.ok(Date.now() - began < 5000, 'well before the grace period');
  const status = (await runtime.containerStatus(id)).status;
  t.equal(status?.state, 'CONTAINER_EXITED');
  t.equal(status?.exitCode, 143, '128 + SIGTERM');
  t.equal(status?.reason, 'Error');
});

t.test('stop: a process ignoring SIGTERM is killed after the grace period, with its children', async (t) => {
  const { runtime, run } = await setup(t);
  const id = await run('stubborn', ['sh', '-c', 'trap "" TERM; sleep 100 & echo $! > "$BALLAST_ROOT/child"; wait; wait'], {});
  const info = JSON.parse((await runtime.containerStatus(id, true)).info.info ?? '{}') as { root: string; pid: number };
  const childPid = Number(await eventually('the child pid', async () => (fs.existsSync(path.join(info.root, 'child')) ? fs.readFileSync(path.join(info.root, 'child'), 'utf8') : undefined)));
  const began = Date.now();
  await runtime.stopContainer(id, 1);
  const took = Date.now() - began;
  t.ok(took >= 900 && took < 6000, `SIGKILL after the 1 s grace (${took} ms)`);
  const status = (await runtime.containerStatus(id)).status;
  t.equal(status?.exitCode, 137, '128 + SIGKILL');
  t.notOk(processAlive(childPid), 'the process group went with it');
  await runtime.stopContainer(id, 1);
  t.pass('stopping an exited container succeeds');
});

t.test('execSync: output, exit code, env and cwd, timeout, not running', async (t) => {
  const { runtime, run } = await setup(t);
  const id = await run('app', ['sleep', '100'], { envs: [{ key: 'MODE', value: 'test' }], workingDir: '/tmp' });
  const ok = await runtime.execSync(id, ['sh', '-c', 'echo "$MODE $(pwd)"; echo err >&2'], 5);
  t.equal(ok.stdout.toString(), 'test /tmp\n');
  t.equal(ok.stderr.toString(), 'err\n');
  t.equal(ok.exitCode, 0);
  t.equal((await runtime.execSync(id, ['sh', '-c', 'exit 7'])).exitCode, 7);
  const began = Date.now();
  await t.rejects(runtime.execSync(id, ['sleep', '30'], 1), { code: GrpcStatus.DEADLINE_EXCEEDED });
  t.ok(Date.now() - began < 3000, 'the timeout ends the call');
  await t.rejects(runtime.execSync(id, ['no-such-binary-xyz']), { message: /executable file not found/ });
  await runtime.stopContainer(id, 0);
  await t.rejects(runtime.execSync(id, ['true']), { message: /CONTAINER_EXITED/ });
});

// exec, attach and port-forward: test/nodeagent/process-streaming.test.ts

t.test('reopenContainerLog: the shim writes to a new file after rotation', async (t) => {
  const { runtime, run, sandbox } = await setup(t);
  const id = await run('rotating', ['sh', '-c', 'while true; do echo tick; sleep 0.05; done']);
  const file = path.join(sandbox.logDirectory ?? '', 'rotating', '0.log');
  await eventually('a first line', async () => (fs.existsSync(file) && fs.statSync(file).size > 0 ? true : undefined));
  fs.renameSync(file, `${file}.1`);
  await runtime.reopenContainerLog(id);
  await eventually('the new file has lines', async () => (fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('stdout F tick') ? true : undefined));
  await runtime.stopContainer(id, 0);
  await t.rejects(runtime.reopenContainerLog(id), { code: GrpcStatus.FAILED_PRECONDITION });
});

t.test('removal: a running container is killed; filters and NotFound', async (t) => {
  const { runtime, run, sandboxId } = await setup(t);
  const a = await run('a', ['sleep', '100']);
  const b = await run('b', ['sleep', '100']);
  t.same((await runtime.listContainers({ labelSelector: { 'io.kubernetes.container.name': 'b' } })).map((c) => c.id), [b]);
  t.same((await runtime.listContainers({ id: a.slice(0, 12) })).map((c) => c.id), [a], 'an id prefix');
  await runtime.removeContainer(a);
  await t.rejects(runtime.containerStatus(a), { code: GrpcStatus.NOT_FOUND });
  await runtime.removePodSandbox(sandboxId);
  t.same(await runtime.listContainers(), [], 'removing the sandbox removes its containers');
});

t.test('a restarted agent finds its containers, running and exited', async (t) => {
  const { runtime, run, dir } = await setup(t);
  const running = await run('keeps', ['sleep', '100']);
  const quick = await run('quick', ['sh', '-c', 'sleep 0.3; exit 4']);
  // a new runtime over the same state dir: the agent restarted
  const again = new ProcessRuntimeService({ stateDir: path.join(dir, 'state'), hostIP: '10.1.2.3' });
  t.equal((await again.listPodSandbox()).length, 1);
  t.equal((await again.containerStatus(running)).status?.state, 'CONTAINER_RUNNING', 'still running');
  const exited = await eventually('the quick one exits', async () => {
    const status = (await again.containerStatus(quick)).status;
    return status?.state === 'CONTAINER_EXITED' ? status : undefined;
  });
  t.equal(exited.exitCode, 4, 'its exit code from the shim');
  t.equal((await again.execSync(running, ['echo', 'hi'])).stdout.toString(), 'hi\n');
  await again.stopContainer(running, 0);
  t.equal((await again.containerStatus(running)).status?.exitCode, 137);
});

t.test('images are recorded, not pulled', async (t) => {
  const dir = tempDir(t);
  const images = new ProcessImageService({ stateDir: dir });
  t.equal((await images.imageStatus({ image: 'busybox' })).image, null);
  t.equal(await images.pullImage({ image: 'busybox' }), 'process://busybox');
  const status = (await images.imageStatus({ image: 'busybox' })).image;
  t.equal(status?.id, 'process://busybox');
  t.same(status?.repoTags, ['busybox']);
  t.same((await new ProcessImageService({ stateDir: dir }).listImages()).map((i) => i.id), ['process://busybox'], 'kept across restarts');
  await images.pullImage({ image: 'nginx:1.19' });
  t.same((await images.listImages({ image: { image: 'nginx:1.19' } })).map((i) => i.id), ['process://nginx:1.19']);
  await images.removeImage({ image: 'process://busybox' });
  t.same((await images.listImages()).map((i) => i.id), ['process://nginx:1.19']);
  const [fsInfo] = await images.imageFsInfo();
  t.equal(fsInfo?.fsId?.mountpoint, path.resolve(dir));
  t.ok(Number(fsInfo?.usedBytes?.value) > 0);
});
