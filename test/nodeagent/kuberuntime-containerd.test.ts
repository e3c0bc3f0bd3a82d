/**
 * KubeRuntimeManager against a real containerd (test/helpers/containerd.ts): a host-network pod
 * whose sandbox and busybox container run, a container exiting 1 whose termination message is read
 * back and which restarts with restartCount 1, then waits out its crash-loop back-off, and killPod
 * stopping everything.
 */
import path from 'node:path';
import t from 'tap';
import { Backoff } from '../../src/nodeagent/backoff';
import { BUSYBOX_IMAGE } from '../../src/nodeagent/cri/busybox-images';
import { KubeRuntimeManager } from '../../src/nodeagent/kuberuntime/kube-runtime-manager';
import type { Pod, PodRuntimeStatus } from '../../src/nodeagent/types';
import { containerdSkipReason, startContainerd } from '../helpers/containerd';

async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

t.test('KubeRuntimeManager against containerd', { skip: containerdSkipReason() ?? false }, async (t) => {
  const containerd = await startContainerd();
  t.teardown(() => containerd.stop());
  const events: string[] = [];
  const manager = new KubeRuntimeManager({
    runtime: containerd.runtime,
    images: containerd.images,
    helper: {
      generateRunContainerOptions: async () => ({ envs: [{ name: 'WHO', value: 'world' }], mounts: [], hostname: 'hello', hostDomain: '' }),
      getPodDNS: () => ({ servers: [], searches: [], options: [] }),
      getPodCgroupParent: () => '',
      getPodDir: (uid) => path.join(containerd.dir, 'kubelet-pods', uid),
    },
    recorder: { event: (_pod, type, reason, message) => events.push(`${type} ${reason} ${message}`) },
    podLogsDir: containerd.podLogRoot,
    crashLoopBackoff: new Backoff(1000, 2000),
  });
  const busybox = { image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' };
  const pod: Pod = {
    metadata: { name: 'hello', namespace: 'default', uid: 'c0ffee00-0000-4000-8000-000000000001' },
    spec: {
      hostNetwork: true,
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 1,
      containers: [
        { ...busybox, name: 'sleeper', command: ['sh', '-c', 'echo hello $(WHO); sleep 3600'] },
        { ...busybox, name: 'crasher', command: ['sh', '-c', 'echo bye > /dev/termination-log; exit 1'] },
      ],
    },
  };
  const status = (): Promise<PodRuntimeStatus> => manager.getPodStatus(pod.metadata!.uid!, 'hello', 'default');
  const latest = (s: PodRuntimeStatus, name: string) => s.containerStatuses.find((c) => c.name === name);

  const first = await manager.syncPod(pod, await status(), []);
  t.same(first.results.filter((r) => r.error), [], 'the first sync succeeds');
  const running = await status();
  t.equal(running.sandboxStatuses[0].state, 'SANDBOX_READY');
  t.equal(latest(running, 'sleeper')?.state, 'running');
  t.ok(events.includes('Normal Started Started container sleeper'));

  const exited = await eventually('the crasher exits', async () => {
    const s = await status();
    return latest(s, 'crasher')?.state === 'exited' ? s : undefined;
  });
  const crashed = latest(exited, 'crasher')!;
  t.equal(crashed.exitCode, 1);
  t.equal(crashed.message, 'bye\n', 'the termination message read back from its file');
  t.equal(crashed.restartCount, 0);

  await manager.syncPod(pod, exited, []);
  const restarted = await status();
  t.equal(latest(restarted, 'crasher')?.restartCount, 1, 'restarted with restartCount 1');
  t.equal(latest(restarted, 'sleeper')?.restartCount, 0, 'the running container is left alone');

  const again = await eventually('the crasher exits again', async () => {
    const s = await status();
    return latest(s, 'crasher')?.state === 'exited' && latest(s, 'crasher')?.restartCount === 1 ? s : undefined;
  });
  const inBackOff = await manager.syncPod(pod, again, []);
  t.match(inBackOff.results.find((r) => r.target === 'crasher'), { error: 'CrashLoopBackOff', message: /^back-off 1s restarting failed container=crasher pod=hello_default\(/ });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const afterBackOff = await manager.syncPod(pod, await status(), []);
  t.equal(afterBackOff.results.find((r) => r.target === 'crasher')?.error, undefined, 'restarted once the back-off passed');
  t.equal(latest(await status(), 'crasher')?.restartCount, 2);

  // the crasher's third run ends at once; stopping a task while it exits races in containerd
  await eventually('the crasher exits a third time', async () => (latest(await status(), 'crasher')?.state === 'exited' ? true : undefined));
  const pods = await manager.getPods(false);
  const runningPod = pods.find((p) => p.uid === pod.metadata!.uid)!;
  await manager.killPod(pod, runningPod);
  const stopped = await status();
  t.equal(stopped.sandboxStatuses[0].state, 'SANDBOX_NOTREADY', 'sandbox stopped');
  t.ok(stopped.containerStatuses.every((c) => c.state === 'exited'), 'every container stopped');
  t.ok(events.includes('Normal Killing Stopping container sleeper'));
  await manager.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 0, maxContainers: -1 }, true, false);
  t.same((await status()).containerStatuses, [], 'GC removed the dead containers');
});
