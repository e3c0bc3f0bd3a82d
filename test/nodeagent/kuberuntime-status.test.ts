/**
 * KubeRuntimeManager's killPod (preStop hook, grace periods, Killing events, sandbox last),
 * getPodStatus (termination messages from the file or the log), getPods, garbageCollect, version
 * and status, over the in-memory runtime.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { capPodTerminationMessages, lastStringFromContainerLog } from '../../src/nodeagent/kuberuntime/termination-message';
import { harness, makePod } from './kuberuntime-harness';

const PRESTOP = { name: 'app', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent', lifecycle: { preStop: { exec: { command: ['sleep', '0'] } } } };

t.test('killPod: preStop hook, then StopContainer with the grace period, then the sandbox', async (t) => {
  for (const [label, spec, metadata, override, expected] of [
    ['terminationGracePeriodSeconds', { terminationGracePeriodSeconds: 30 }, {}, undefined, 30],
    ['deletionGracePeriodSeconds wins, at least 2 s', { terminationGracePeriodSeconds: 30 }, { deletionGracePeriodSeconds: 1 }, undefined, 2],
    ['the override wins', { terminationGracePeriodSeconds: 30 }, {}, 0, 0],
  ] as const) {
    const h = harness();
    h.cri.images.set('busybox:1.36', 'sha256:bb');
    const pod = makePod({ ...spec, containers: [PRESTOP] }, metadata);
    await h.sync(pod);
    const running = (await h.manager.getPods(false))[0];
    t.equal(running.containers[0].id.startsWith('fake://'), true);
    await h.manager.killPod(pod, running, override);
    t.same(h.cri.calls.slice(-3), ['ExecSync app sleep 0', `StopContainer app ${expected}`, `StopPodSandbox ${running.sandboxIds[0]}`], label);
    t.same(h.events.at(-1), { type: 'Normal', reason: 'Killing', message: 'Stopping container app', fieldPath: 'spec.containers{app}' });
    t.same(await h.manager.getPods(false), [], 'nothing runs');
    h.cleanup();
  }
});

t.test('killPod of an orphan restores the spec from the labels', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  h.cri.execResults.set('sleep 0', { exitCode: 1, stdout: 'no' });
  const pod = makePod({ terminationGracePeriodSeconds: 7, containers: [PRESTOP] });
  await h.sync(pod);
  const running = (await h.manager.getPods(true))[0];
  t.same([running.name, running.namespace, running.uid], ['web', 'default', 'uid-1']);
  await h.manager.killPod(undefined, running);
  t.same(h.cri.calls.slice(-3), ['ExecSync app sleep 0', 'StopContainer app 7', `StopPodSandbox ${running.sandboxIds[0]}`]);
  t.ok(h.events.some((e) => e.reason === 'FailedPreStopHook' && e.message.startsWith('Exec lifecycle hook ([sleep 0]) for Container "app" in Pod "web_default(uid-1)" failed')));
});

t.test('getPodStatus: states, restart counts, ips and termination messages', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  const pod = makePod({
    containers: [
      { name: 'file', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' },
      { name: 'logs', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'FallbackToLogsOnError' },
    ],
  });
  await h.sync(pod);
  const [file, logs] = [...h.cri.containers.values()];
  fs.writeFileSync(file.config.mounts!.find((m) => m.containerPath === '/dev/termination-log')!.hostPath!, 'x'.repeat(5000) + 'the end');
  fs.writeFileSync(logs.logPath, '2024-01-01T00:00:00Z stdout F first\n2024-01-01T00:00:01Z stderr P par\n2024-01-01T00:00:01Z stderr F tial\n');
  h.cri.exit(file.id, 0);
  h.cri.exit(logs.id, 2);
  const status = await h.manager.getPodStatus('uid-1', 'web', 'default');
  t.equal(status.ips.length, 1);
  t.equal(status.sandboxStatuses[0].state, 'SANDBOX_READY');
  const byName = Object.fromEntries(status.containerStatuses.map((c) => [c.name, c]));
  t.equal(byName.file.message.length, 4096, 'the file is read up to its last 4096 bytes');
  t.ok(byName.file.message.endsWith('the end'));
  t.equal(byName.logs.message, 'first\npartial\n', "the log's tail when the file is empty and the container failed");
  t.equal(byName.logs.exitCode, 2);
  t.equal(byName.logs.state, 'exited');
  t.match(byName.logs.hash, /^[0-9a-f]{8}$/);
  t.ok(byName.logs.finishedAt > byName.logs.startedAt && byName.logs.startedAt > 0, 'times in ms');
});

t.test('termination message limits', async (t) => {
  const dir = fs.mkdtempSync('/tmp/tm-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const log = path.join(dir, 'log');
  fs.writeFileSync(log, Array.from({ length: 100 }, (_, i) => `2024-01-01T00:00:00Z stdout F line ${i}\n`).join(''));
  const tail = lastStringFromContainerLog(log);
  t.ok(tail.startsWith('line 20\n') && tail.endsWith('line 99\n'), '80 lines');
  fs.writeFileSync(log, Array.from({ length: 50 }, () => `2024-01-01T00:00:00Z stdout F ${'y'.repeat(100)}\n`).join(''));
  t.equal(Buffer.byteLength(lastStringFromContainerLog(log)), 2048, 'at most 2048 bytes');
  t.match(lastStringFromContainerLog(path.join(dir, 'absent')), /^Error on reading termination message from logs: /);
  const capped = capPodTerminationMessages(['a'.repeat(4096), 'b'.repeat(4096), 'c'.repeat(4096), 'd'.repeat(4096)]);
  t.same(capped.map((m) => m.length), [3072, 3072, 3072, 3072], '12 KiB shared across the pod');
  t.same(capPodTerminationMessages(['short', '']), ['short', ''], 'under the budget: unchanged');
});

t.test('garbageCollect', async (t) => {
  const deleted = new Set<string>();
  const h = harness({ podStateProvider: { isPodDeleted: (uid) => deleted.has(uid), isPodTerminated: () => false } });
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  const pod = makePod();
  await h.sync(pod);
  for (let i = 0; i < 3; i++) {
    h.cri.exit([...h.cri.containers.values()].find((c) => c.state === 'CONTAINER_RUNNING')!.id, 1);
    h.advance(400_000);
    await h.sync(pod);
  }
  t.equal(h.cri.containers.size, 4, 'three dead instances and the running one');
  await h.manager.garbageCollect({ minAgeMs: 60_000, maxPerPodContainer: 1, maxContainers: -1 }, true, false);
  t.same([...h.cri.containers.values()].map((c) => [c.config.metadata?.attempt, c.state]), [[2, 'CONTAINER_EXITED'], [3, 'CONTAINER_RUNNING']], 'keeps the newest dead one');

  const other = makePod({}, { uid: 'uid-gone', name: 'gone' });
  await h.sync(other);
  const orphan = (await h.manager.getPods(false)).find((p) => p.uid === 'uid-gone')!;
  await h.manager.killPod(undefined, orphan);
  const logDir = path.join(h.dir, 'logs', 'default_gone_uid-gone');
  t.ok(fs.existsSync(logDir));
  deleted.add('uid-gone');
  await h.manager.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, true, false);
  t.notOk([...h.cri.sandboxes.values()].some((s) => s.config.metadata?.uid === 'uid-gone'), "a deleted pod's sandbox is removed");
  t.notOk([...h.cri.containers.values()].some((c) => c.config.labels?.['io.kubernetes.pod.uid'] === 'uid-gone'), 'and its containers');
  t.notOk(fs.existsSync(logDir), 'and its log directory');
  t.ok([...h.cri.sandboxes.values()].some((s) => s.config.metadata?.uid === 'uid-1'), 'the live pod keeps its sandbox');
});

t.test('version, status and log paths', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  t.equal(await h.manager.version(), 'fake://1.2.3');
  t.same(await h.manager.status(), {
    runtimeReady: true,
    networkReady: false,
    message: 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni config uninitialized',
  });
  t.equal(h.manager.containerLogPath('default', 'web', 'uid-1', 'app', 3), path.join(h.dir, 'logs', 'default_web_uid-1', 'app', '3.log'));
});
