/**
 * KubeRuntimeManager.syncPod over the in-memory runtime: the sandbox and container configs kube
 * builds, computePodActions' decisions (restart policies, spec changes, liveness, sandbox changes,
 * init containers), the crash-loop back-off, postStart hooks and kube's events.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { harness, makePod } from './kuberuntime-harness';

t.test('sandbox and container configs', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  const pod = makePod({
    securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] },
    containers: [
      {
        name: 'app',
        image: 'busybox:1.36',
        imagePullPolicy: 'IfNotPresent',
        command: ['sh', '-c'],
        args: ['echo $(GREETING) $(MISSING) $$(GREETING)'],
        workingDir: '/work',
        ports: [{ containerPort: 80, hostPort: 8080, protocol: 'TCP' }],
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        resources: { requests: { cpu: '250m', memory: '1Gi' }, limits: { cpu: '500m', memory: '2Gi' } },
        securityContext: { privileged: true, capabilities: { add: ['NET_ADMIN'] }, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
      },
    ],
  });
  const result = await h.sync(pod);
  t.same(result.results.map((r) => [r.action, r.error]), [['KillPodSandbox', undefined], ['CreatePodSandbox', undefined], ['StartContainer', undefined]], 'no sandbox: kill (nothing), create, start, as kube');
  const sandbox = [...h.cri.sandboxes.values()][0];
  const sc = sandbox.config;
  t.same(sc.metadata, { name: 'web', namespace: 'default', uid: 'uid-1', attempt: 0 });
  t.equal(sc.hostname, 'web');
  t.equal(sc.logDirectory, path.join(h.dir, 'logs', 'default_web_uid-1'));
  t.ok(fs.statSync(sc.logDirectory!).isDirectory(), 'log directory created');
  t.same(sc.dnsConfig, { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] });
  t.same(sc.portMappings, [{ protocol: 'TCP', containerPort: 80, hostPort: 8080, hostIp: '' }]);
  t.same(sc.labels, { app: 'web', 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'uid-1' });
  t.same(sc.annotations, { note: 'x' });
  t.equal(sc.linux?.cgroupParent, '/kubepods/burstable/pod1');
  t.same(sc.linux?.sysctls, { 'net.core.somaxconn': '1024' });
  t.equal(sc.linux?.securityContext?.privileged, true, 'privileged because a container is');
  t.same(sc.linux?.securityContext?.namespaceOptions, { network: 'POD', pid: 'CONTAINER', ipc: 'POD' });
  t.same(sc.linux?.securityContext?.runAsUser, { value: 1000 });
  t.same(sc.linux?.securityContext?.runAsGroup, { value: 3000 });
  t.same(sc.linux?.securityContext?.supplementalGroups, [2000]);

  const c = [...h.cri.containers.values()][0].config;
  t.same(c.metadata, { name: 'app', attempt: 0 });
  t.equal(c.image?.image, 'sha256:bb', 'the image reference the image manager found');
  t.same(c.command, ['sh', '-c'], 'the spec command is the entrypoint');
  t.same(c.args, ['echo hello $(MISSING) $(GREETING)'], '$(VAR) expanded, unknown kept, $$ escaped');
  t.equal(c.workingDir, '/work');
  t.same(c.envs, [{ key: 'GREETING', value: 'hello' }]);
  t.equal(c.logPath, 'app/0.log');
  t.ok(fs.statSync(path.join(sc.logDirectory!, 'app')).isDirectory(), 'container log dir created');
  t.same(c.labels, { 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'uid-1', 'io.kubernetes.container.name': 'app' });
  t.match(c.annotations, { 'io.kubernetes.container.hash': /^[0-9a-f]{8}$/, 'io.kubernetes.container.restartCount': '0', 'io.kubernetes.container.terminationMessagePath': '/dev/termination-log', 'io.kubernetes.container.terminationMessagePolicy': 'File', 'io.kubernetes.container.ports': '[{"containerPort":80,"hostPort":8080,"protocol":"TCP"}]' });
  const mounts = c.mounts ?? [];
  t.same(mounts[0], { containerPath: '/data', hostPath: path.join(h.dir, 'data'), readonly: true, propagation: 'PROPAGATION_PRIVATE' });
  t.equal(mounts[1].containerPath, '/dev/termination-log');
  t.match(mounts[1].hostPath, new RegExp(`^${path.join(h.dir, 'pods', 'uid-1', 'containers', 'app')}/[0-9a-f]{8}$`));
  t.equal(fs.statSync(mounts[1].hostPath!).mode & 0o777, 0o666, 'termination file 0666');
  t.same(c.linux?.resources, { cpuShares: 256, oomScoreAdj: 875, memoryLimitInBytes: 2 * 2 ** 30, cpuPeriod: 100000, cpuQuota: 50000 }, 'Burstable: 1000 - 1000*1Gi/8Gi');
  t.match(c.linux?.securityContext, {
    privileged: true,
    readonlyRootfs: true,
    noNewPrivs: true,
    capabilities: { addCapabilities: ['NET_ADMIN'], dropCapabilities: [] },
    runAsUser: { value: 1000 },
    runAsGroup: { value: 3000 },
    supplementalGroups: [2000],
    namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' },
  });
  t.same(h.events.map((e) => [e.reason, e.message, e.fieldPath]), [
    ['Pulled', 'Container image "busybox:1.36" already present on machine', 'spec.containers{app}'],
    ['Created', 'Created container app', 'spec.containers{app}'],
    ['Started', 'Started container app', 'spec.containers{app}'],
  ]);
  t.same(h.cri.pulls, [], 'IfNotPresent and present: no pull');

  // a host-network pod: no hostname, node namespaces
  const hostPod = makePod({ hostNetwork: true, hostPID: true, hostIPC: true }, { uid: 'uid-2', name: 'host' });
  await h.sync(hostPod);
  const hostSandbox = [...h.cri.sandboxes.values()].find((s) => s.config.metadata?.uid === 'uid-2')!;
  t.equal(hostSandbox.config.hostname, undefined);
  t.same(hostSandbox.config.linux?.securityContext?.namespaceOptions, { network: 'NODE', pid: 'NODE', ipc: 'NODE' });
});

t.test('a crashing container restarts behind the crash-loop back-off', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  const pod = makePod();
  await h.sync(pod);
  const first = [...h.cri.containers.values()][0];
  h.cri.exit(first.id, 1);
  h.advance(1000);

  let result = await h.sync(pod);
  t.same(result.results.map((r) => [r.action, r.error]), [['StartContainer', undefined]], 'first restart at once');
  const second = [...h.cri.containers.values()].find((c) => c.id !== first.id)!;
  t.same(second.config.metadata, { name: 'app', attempt: 1 }, 'restart count 1');
  t.equal(second.config.logPath, 'app/1.log');
  const status = await h.manager.getPodStatus('uid-1', 'web', 'default');
  t.same(status.containerStatuses.map((c) => [c.restartCount, c.state]), [[1, 'running'], [0, 'exited']], 'newest first');

  h.cri.exit(second.id, 1);
  h.advance(1000);
  result = await h.sync(pod);
  t.same(result.results, [{ action: 'StartContainer', target: 'app', error: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=app pod=web_default(uid-1)' }]);
  t.equal(h.events.at(-1)?.reason, 'BackOff');
  t.equal(h.events.at(-1)?.message, 'Back-off restarting failed container');

  h.advance(10_000);
  result = await h.sync(pod);
  t.equal(result.results[0].error, undefined, 'started after 10 s');
  const third = [...h.cri.containers.values()].at(-1)!;
  t.equal(third.config.metadata?.attempt, 2);
  h.cri.exit(third.id, 1);
  h.advance(1000);
  result = await h.sync(pod);
  t.equal(result.results[0].message, 'back-off 20s restarting failed container=app pod=web_default(uid-1)', 'the delay doubles');
});

t.test('restart policies', async (t) => {
  for (const [policy, exitCode, restarts] of [
    ['Never', 1, false],
    ['OnFailure', 0, false],
    ['OnFailure', 1, true],
    ['Always', 0, true],
  ] as const) {
    const h = harness();
    h.cri.images.set('busybox:1.36', 'sha256:bb');
    const pod = makePod({ restartPolicy: policy });
    await h.sync(pod);
    h.cri.exit([...h.cri.containers.values()][0].id, exitCode);
    const result = await h.sync(pod);
    const started = result.results.some((r) => r.action === 'StartContainer');
    t.equal(started, restarts, `${policy} after exit ${exitCode}: ${restarts ? 'restarted' : 'not restarted'}`);
    if (!restarts) t.ok(h.cri.calls.some((c) => c.startsWith('StopPodSandbox')), 'nothing left to run: the sandbox is stopped');
    h.cleanup();
  }
});

t.test('spec changes and liveness failures restart a running container', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  h.cri.images.set('busybox:1.37', 'sha256:bc');
  const pod = makePod();
  await h.sync(pod);
  t.same((await h.sync(pod)).results, [], 'nothing to do when all runs as specified');

  const changed = makePod({ containers: [{ ...(pod.spec!.containers as Record<string, unknown>[])[0], image: 'busybox:1.37' }] });
  const result = await h.sync(changed);
  t.same(result.results.map((r) => r.action), ['KillContainer', 'StartContainer']);
  t.ok(h.events.some((e) => e.reason === 'Killing' && e.message === 'Container app definition changed, will be restarted'));
  t.same(h.cri.stops.at(-1)?.timeout, 2, 'no grace period set: kube minimum 2 s');

  const running = [...h.cri.containers.values()].find((c) => c.state === 'CONTAINER_RUNNING')!;
  h.liveness.set(`fake://${running.id}`, 'failure');
  await h.sync(changed);
  t.ok(h.events.some((e) => e.reason === 'Killing' && e.message === 'Container app failed liveness probe, will be restarted'));
  t.equal([...h.cri.containers.values()].filter((c) => c.state === 'CONTAINER_RUNNING').length, 1);
});

t.test('a sandbox that is not ready is recreated with the next attempt', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  const pod = makePod();
  await h.sync(pod);
  const [sandbox] = h.cri.sandboxes.values();
  sandbox.state = 'SANDBOX_NOTREADY';
  const result = await h.sync(pod);
  t.same(result.results.map((r) => r.action), ['KillContainer', 'KillPodSandbox', 'CreatePodSandbox', 'StartContainer']);
  t.ok(h.events.some((e) => e.reason === 'SandboxChanged' && e.message === 'Pod sandbox changed, it will be killed and re-created.'));
  const newest = [...h.cri.sandboxes.values()].at(-1)!;
  t.equal(newest.config.metadata?.attempt, 1);
});

t.test('init containers run one at a time, in order', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  const init = (name: string) => ({ name, image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' });
  const pod = makePod({ initContainers: [init('one'), init('two')] });
  const names = () => [...h.cri.containers.values()].map((c) => c.config.metadata?.name);
  await h.sync(pod);
  t.same(names(), ['one']);
  await h.sync(pod);
  t.same(names(), ['one'], 'waits while the first runs');
  h.cri.exit([...h.cri.containers.values()][0].id, 0);
  await h.sync(pod);
  t.same(names(), ['one', 'two']);
  h.cri.exit([...h.cri.containers.values()][1].id, 0);
  await h.sync(pod);
  t.same(names(), ['one', 'two', 'app']);

  const never = harness();
  t.teardown(never.cleanup);
  never.cri.images.set('busybox:1.36', 'sha256:bb');
  const failing = makePod({ restartPolicy: 'Never', initContainers: [init('one')] }, { uid: 'uid-9' });
  await never.sync(failing);
  never.cri.exit([...never.cri.containers.values()][0].id, 1);
  const result = await never.sync(failing);
  t.same(result.results.map((r) => r.action), ['KillPodSandbox'], 'a failed init container with Never fails the pod');
  t.notOk([...never.cri.containers.values()].some((c) => c.config.metadata?.name === 'app'));
});

t.test('failures before the container runs', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  const pod = makePod({ containers: [{ name: 'broken', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }] });
  const result = await h.sync(pod);
  t.same(result.results.at(-1), { action: 'StartContainer', target: 'broken', error: 'CreateContainerConfigError', message: 'configmap "settings" not found' });
  t.same(h.events.at(-1), { type: 'Warning', reason: 'Failed', message: 'Error: configmap "settings" not found', fieldPath: 'spec.containers{broken}' });

  const nonRoot = makePod({ securityContext: { runAsNonRoot: true, runAsUser: 0 } }, { uid: 'uid-3' });
  const r2 = await h.sync(nonRoot);
  t.same(r2.results.at(-1)?.message, `container's runAsUser breaks non-root policy (pod: "web_default(uid-3)", container: app)`);
});

t.test('postStart hooks', async (t) => {
  const h = harness();
  t.teardown(h.cleanup);
  h.cri.images.set('busybox:1.36', 'sha256:bb');
  h.cri.execResults.set('sh -c exit 3', { exitCode: 3, stderr: 'boom' });
  const pod = makePod({
    containers: [{ name: 'app', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent', lifecycle: { postStart: { exec: { command: ['sh', '-c', 'exit 3'] } } } }],
  });
  const result = await h.sync(pod);
  const message = `Exec lifecycle hook ([sh -c exit 3]) for Container "app" in Pod "web_default(uid-1)" failed - error: command 'sh -c exit 3' exited with 3: boom, message: "boom"`;
  t.same(result.results.at(-1), { action: 'StartContainer', target: 'app', error: 'PostStartHookError', message });
  t.ok(h.events.some((e) => e.reason === 'FailedPostStartHook' && e.message === message));
  t.ok(h.events.some((e) => e.reason === 'Killing' && e.message === 'FailedPostStartHook'));
  t.same(h.cri.calls.slice(-3), ['StartContainer app', 'ExecSync app sh -c exit 3', 'StopContainer app 2'], 'started, hook, killed');

  let url = '';
  const web = harness({ httpGet: async (u) => ((url = u), 'ok') });
  t.teardown(web.cleanup);
  web.cri.images.set('busybox:1.36', 'sha256:bb');
  const httpPod = makePod({
    containers: [{ name: 'app', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent', ports: [{ name: 'http', containerPort: 8080 }], lifecycle: { postStart: { httpGet: { path: 'ready', port: 'http' } } } }],
  });
  const ok = await web.sync(httpPod);
  t.equal(ok.results.at(-1)?.error, undefined);
  t.match(url, /^http:\/\/10\.0\.0\.\d+:8080\/ready$/, 'the pod IP and the named port');
});
