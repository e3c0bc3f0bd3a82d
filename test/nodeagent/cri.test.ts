/**
 * The CRI client against a real containerd (test/helpers/containerd.ts): the runtime's version,
 * the imported images, and a host-network pod running busybox through its whole life (sandbox,
 * container, CRI-format log, exec, streaming URLs, stop, removal).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import t from 'tap';
import { BUSYBOX_IMAGE, PAUSE_IMAGE } from '../../src/nodeagent/cri/busybox-images';
import { CriError } from '../../src/nodeagent/cri/cri-error';
import type { PodSandboxConfig } from '../../src/nodeagent/cri/generated/runtime/v1/PodSandboxConfig';
import { containerdSkipReason, startContainerd, type Containerd } from '../helpers/containerd';

async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** a sandbox config as kubelet builds one for a hostNetwork pod */
function hostNetworkSandbox(containerd: Containerd, name: string): PodSandboxConfig {
  const uid = crypto.randomUUID();
  return {
    metadata: { name, namespace: 'default', uid, attempt: 0 },
    logDirectory: path.join(containerd.podLogRoot, `default_${name}_${uid}`),
    labels: { 'io.kubernetes.pod.name': name, 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': uid },
    linux: { securityContext: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } } },
  };
}

t.test('CRI against containerd', { skip: containerdSkipReason() ?? false }, async (t) => {
  const containerd = await startContainerd();
  t.teardown(() => containerd.stop());
  const { runtime, images } = containerd;

  t.test('Version and Status', async (t) => {
    const version = await runtime.version();
    t.equal(version.runtimeName, 'containerd');
    t.equal(version.runtimeApiVersion, 'v1');
    t.match(version.runtimeVersion, /\d+\.\d+/);
    const status = await runtime.status();
    const conditions = Object.fromEntries((status.status?.conditions ?? []).map((c) => [c.type, c.status]));
    t.equal(conditions.RuntimeReady, true, 'RuntimeReady');
  });

  t.test('the imported images', async (t) => {
    const busybox = (await images.imageStatus({ image: BUSYBOX_IMAGE })).image;
    t.ok(busybox, 'busybox is known to the image service');
    t.ok(busybox?.repoTags.includes(BUSYBOX_IMAGE), 'by its full name');
    t.match(busybox?.id, /^sha256:[0-9a-f]{64}$/);
    t.ok(Number(busybox?.size) > 500_000, `size ${busybox?.size}`);
    const short = (await images.imageStatus({ image: 'busybox' })).image;
    t.equal(short?.id, busybox?.id, '"busybox" is normalized to docker.io/library/busybox:latest');
    const all = await images.listImages();
    const tags = all.flatMap((image) => image.repoTags);
    t.ok(tags.includes(PAUSE_IMAGE) && tags.includes(BUSYBOX_IMAGE), `ListImages: ${tags.join(', ')}`);
    t.equal((await images.imageStatus({ image: 'docker.io/library/absent:1' })).image, null, 'an absent image is null, not an error');
    const filesystems = await images.imageFsInfo();
    // usage itself is sampled every 10 s by containerd: 0 this early
    t.ok(filesystems[0]?.fsId?.mountpoint.startsWith(containerd.dir), `ImageFsInfo: the snapshotter's directory ${filesystems[0]?.fsId?.mountpoint}`);
  });

  t.test('a host-network pod running busybox', async (t) => {
    const sandboxConfig = hostNetworkSandbox(containerd, 'hello');
    const sandboxId = await runtime.runPodSandbox(sandboxConfig);
    const sandbox = await runtime.podSandboxStatus(sandboxId);
    t.equal(sandbox.status?.state, 'SANDBOX_READY');
    t.equal(sandbox.status?.linux?.namespaces?.options?.network, 'NODE', 'host network');
    t.same((await runtime.listPodSandbox({ id: sandboxId })).map((s) => s.metadata?.name), ['hello']);

    // kubelet creates <pod log dir>/<container name>/ and passes <name>/<restart count>.log
    fs.mkdirSync(path.join(sandboxConfig.logDirectory!, 'hello'), { recursive: true });
    const containerId = await runtime.createContainer(
      sandboxId,
      {
        metadata: { name: 'hello', attempt: 0 },
        image: { image: BUSYBOX_IMAGE },
        command: ['sh', '-c', 'echo hello; sleep 3600'],
        logPath: 'hello/0.log',
      },
      sandboxConfig,
    );
    t.equal((await runtime.containerStatus(containerId)).status?.state, 'CONTAINER_CREATED');
    await runtime.startContainer(containerId);
    const running = (await runtime.containerStatus(containerId)).status;
    t.equal(running?.state, 'CONTAINER_RUNNING');
    t.ok(BigInt(running?.startedAt ?? '0') > 0n, 'startedAt set (nanoseconds, as a decimal string)');
    t.equal(running?.logPath, path.join(sandboxConfig.logDirectory!, 'hello/0.log'));

    const logFile = path.join(sandboxConfig.logDirectory!, 'hello', '0.log');
    const log = await eventually('the container log says hello', async () => {
      const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
      return text.includes('hello') ? text : undefined;
    });
    t.match(log, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d) stdout F hello$/m, `CRI log format: ${JSON.stringify(log)}`);

    const exec = await runtime.execSync(containerId, ['echo', 'hi'], 10);
    t.equal(exec.stdout.toString(), 'hi\n');
    t.equal(exec.exitCode, 0);
    const failing = await runtime.execSync(containerId, ['sh', '-c', 'echo oops >&2; exit 3']);
    t.equal(failing.stderr.toString(), 'oops\n');
    t.equal(failing.exitCode, 3, 'a failed command is an exit code, not an error');

    t.match(await runtime.exec({ containerId, cmd: ['sh'], stdin: true, stdout: true, tty: true }), /^http:\/\/127\.0\.0\.1:\d+\/exec\//);
    t.match(await runtime.attach({ containerId, stdout: true, stderr: true }), /^http:\/\/127\.0\.0\.1:\d+\/attach\//);
    t.match(await runtime.portForward(sandboxId, [80]), /^http:\/\/127\.0\.0\.1:\d+\/portforward\//);
    await runtime.reopenContainerLog(containerId);
    t.pass('ReopenContainerLog on a running container');

    const listed = await runtime.listContainers({ podSandboxId: sandboxId });
    t.same(listed.map((c) => [c.id, c.state]), [[containerId, 'CONTAINER_RUNNING']]);

    // SIGTERM, then SIGKILL after the 1 s grace period: either ends it
    await runtime.stopContainer(containerId, 1);
    const exited = (await runtime.containerStatus(containerId)).status;
    t.equal(exited?.state, 'CONTAINER_EXITED');
    t.ok([137, 143].includes(exited?.exitCode ?? 0), `killed by a signal: exit code ${exited?.exitCode}`);
    await runtime.removeContainer(containerId);
    t.same(await runtime.listContainers({ podSandboxId: sandboxId }), [], 'container removed');

    await runtime.stopPodSandbox(sandboxId);
    t.equal((await runtime.podSandboxStatus(sandboxId)).status?.state, 'SANDBOX_NOTREADY');
    await runtime.removePodSandbox(sandboxId);
    await runtime.removePodSandbox(sandboxId);
    t.pass('RemovePodSandbox twice: the second finds nothing to do');
    t.same(await runtime.listPodSandbox({ id: sandboxId }), [], 'sandbox removed');
  });

  t.test('errors name the call and the gRPC status', async (t) => {
    const err = await runtime.containerStatus('no-such-container').then(
      () => undefined,
      (e: unknown) => e,
    );
    t.type(err, CriError);
    const criError = err as CriError;
    t.equal(criError.code, GrpcStatus.NOT_FOUND);
    t.equal(criError.call, 'RuntimeService/ContainerStatus');
    t.match(criError.message, /^RuntimeService\/ContainerStatus: rpc error: code = NotFound desc = .*no-such-container/);

    // nothing listens on port 1: the pull fails at once, with the runtime's reason
    const pull = await images.pullImage({ image: '127.0.0.1:1/nothing:latest' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.type(pull, CriError);
    t.match((pull as CriError).message, /^ImageService\/PullImage: rpc error: code = \w+ desc = .*127\.0\.0\.1:1/);
  });

  t.test('RemoveImage', async (t) => {
    await images.removeImage({ image: BUSYBOX_IMAGE });
    t.equal((await images.imageStatus({ image: BUSYBOX_IMAGE })).image, null, 'gone');
    await images.removeImage({ image: BUSYBOX_IMAGE });
    t.pass('removing it again succeeds');
  });
});
