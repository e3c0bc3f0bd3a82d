/**
 * `ballast nodeagent` as a process against the real API server and a private containerd: the node
 * registers and turns Ready, a pod bound to it runs busybox through CRI with kube's status, a
 * crashing container restarts, and a deleted pod's containers stop before the pod is gone.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RestClient } from '../../src/client/rest-client';
import { RESOURCES } from '../../src/client/resources';
import { BUSYBOX_IMAGE } from '../../src/nodeagent/cri/busybox-images';
import { containerdSkipReason, startContainerd } from '../helpers/containerd';
import { startControllers } from '../helpers/controllers';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir, waitFor } from './harness';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const skip = containerdSkipReason() ?? (fs.existsSync(MAIN_JS) ? undefined : 'run make build first');

t.test('the node agent runs pods through containerd', { skip }, async (t) => {
  const server = await startApiServer(t);
  // the pods' kube-api-access volumes project the kube-root-ca.crt ConfigMap this controller publishes
  startControllers(t, server, ['root-ca-cert-publisher']);
  const containerd = await startContainerd();
  t.teardown(() => containerd.stop());
  const client = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'ballast-test' }), { qps: -1 });
  const nodeName = os.hostname().toLowerCase();
  const rootDir = tempDir(t, 'ballast-nodeagent-root-');
  let output = '';
  const agent = spawn(
    process.execPath,
    [
      MAIN_JS,
      'nodeagent',
      '--kubeconfig',
      server.kubeconfig,
      '--container-runtime-endpoint',
      containerd.endpoint,
      '--root-dir',
      rootDir,
      '--fail-swap-on=false',
      '--cni-conf-dir',
      containerd.cniConfDir,
      '--cgroups-per-qos=false',
      '--enforce-node-allocatable=',
      '--port',
      String(await freePort()),
      '--read-only-port',
      '0',
      '--healthz-port',
      '0',
      '--node-status-update-frequency',
      '2s',
      '--sync-frequency',
      '5s',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  agent.stdout.on('data', (d: Buffer) => (output += d.toString()));
  agent.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => agent.on('exit', resolve));
  t.teardown(async () => {
    if (agent.exitCode === null) agent.kill('SIGTERM');
    await exited;
    if (process.env.BALLAST_TEST_LOG || !t.passing()) t.comment(`node agent output:\n${output.slice(-6000)}`);
  });

  let lastNode: Obj | undefined;
  t.teardown(async () => {
    if (t.passing()) return;
    t.comment(`the node: ${JSON.stringify(lastNode?.status?.conditions)}`);
    const pods = (await client.list(RESOURCES.pods, 'default').catch(() => ({ items: [] }))) as { items: Obj[] };
    for (const p of pods.items) t.comment(`pod ${p.metadata.name}: ${JSON.stringify(p.status)}`);
    const events = (await client.list(RESOURCES.events, 'default').catch(() => ({ items: [] }))) as { items: Obj[] };
    for (const e of events.items) t.comment(`event ${e.involvedObject?.name} ${e.reason} x${e.count}: ${e.message}`);
    for (const c of await containerd.runtime.listContainers().catch(() => [])) t.comment(`container ${c.metadata?.name} attempt ${c.metadata?.attempt} ${c.state} ${JSON.stringify(c.labels)}`);
  });
  const node = await waitFor(
    `node ${nodeName} Ready`,
    async () => {
      if (agent.exitCode !== null) throw new Error(`the node agent exited with ${agent.exitCode}: ${output}`);
      const n = (await client.get(RESOURCES.nodes, undefined, nodeName).catch(() => undefined)) as Obj | undefined;
      lastNode = n;
      const ready = (n?.status?.conditions ?? []).find((c: Obj) => c.type === 'Ready');
      return ready?.status === 'True' ? n : undefined;
    },
    60_000,
  );
  t.equal(node.metadata.labels['kubernetes.io/hostname'], nodeName);
  t.match(node.status.nodeInfo.containerRuntimeVersion, /^containerd:\/\//);
  const lease = (await waitFor('the node lease', () => client.get(RESOURCES.leases, 'kube-node-lease', nodeName).catch(() => undefined), 30_000)) as Obj;
  t.equal(lease.spec.holderIdentity, nodeName, 'the node lease is held by the node');
  await waitFor('kube-root-ca.crt in default', () => client.get(RESOURCES.configMaps, 'default', 'kube-root-ca.crt').catch(() => undefined));

  const pod = (name: string, command: string, restartPolicy = 'Always'): Obj => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName,
      hostNetwork: true,
      restartPolicy,
      terminationGracePeriodSeconds: 2,
      containers: [{ name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', command], env: [{ name: 'GREETING', value: 'hello' }] }],
    },
  });

  t.test('a pod runs: phase Running, Ready, container running', async (t) => {
    await client.create(RESOURCES.pods, 'default', pod('web', 'echo $GREETING; exec sleep 3600'));
    const running = await waitFor(
      'pod web Running',
      async () => {
        const p = (await client.get(RESOURCES.pods, 'default', 'web')) as Obj;
        return p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.ready ? p : undefined;
      },
      60_000,
    );
    const status = running.status.containerStatuses[0];
    t.ok(status.state.running?.startedAt, 'the container is running');
    t.match(status.containerID, /^containerd:\/\//);
    t.equal(status.restartCount, 0);
    t.same(
      running.status.conditions.filter((c: Obj) => c.status === 'True').map((c: Obj) => c.type).sort(),
      ['ContainersReady', 'Initialized', 'PodScheduled', 'Ready'],
    );
    t.equal(running.status.hostIP, running.status.podIP, 'a host-network pod has the node IP');
  });

  for (const version of ['1.32', '1.20'] as const) {
    t.test(`kubectl ${version}: logs and exec through the API server and the agent`, { skip: missingKubectl(version) }, async (t) => {
      const kubectl = kubectlFor(t, version, server);
      t.equal(await kubectl.ok(['logs', 'web']), 'hello\n', 'kubectl logs shows what the container printed');
      const exec = await kubectl.run(['exec', 'web', '--', 'sh', '-c', 'echo from $GREETING; echo oops >&2; exit 3']);
      t.equal(exec.stdout, 'from hello\n', `exec's stdout (stderr: ${exec.stderr})`);
      t.match(exec.stderr, /oops/);
      t.equal(exec.code, 3, "exec's exit code");
    });
  }

  t.test('a pod that exits 0 under restartPolicy Never Succeeds', async (t) => {
    await client.create(RESOURCES.pods, 'default', pod('once', 'echo done', 'Never'));
    const done = await waitFor('pod once Succeeded', async () => {
      const p = (await client.get(RESOURCES.pods, 'default', 'once')) as Obj;
      return p.status?.phase === 'Succeeded' ? p : undefined;
    }, 60_000);
    t.equal(done.status.containerStatuses[0].state.terminated.reason, 'Completed');
    t.equal(done.status.containerStatuses[0].state.terminated.exitCode, 0);
  });

  t.test('a crashing container restarts and shows CrashLoopBackOff', async (t) => {
    await client.create(RESOURCES.pods, 'default', pod('crash', 'echo bye >/dev/termination-log; exit 3'));
    const looping = await waitFor('pod crash in CrashLoopBackOff', async () => {
      const p = (await client.get(RESOURCES.pods, 'default', 'crash')) as Obj;
      const s = p.status?.containerStatuses?.[0];
      return s?.restartCount >= 1 && s.state.waiting?.reason === 'CrashLoopBackOff' ? s : undefined;
    }, 60_000);
    t.equal(looping.lastState.terminated.exitCode, 3);
    t.equal(looping.lastState.terminated.message, 'bye\n', 'the termination message is read back');
    t.match(looping.state.waiting.message, /^back-off 10s restarting failed container=main pod=crash_default\(/);
  });

  t.test('kubectl port-forward reaches a server in the pod', { skip: missingKubectl('1.32') }, async (t) => {
    const port = await freePort();
    await client.create(RESOURCES.pods, 'default', pod('http', `mkdir -p /www && echo served > /www/index.html && exec httpd -f -p ${port} -h /www`));
    await waitFor('pod http Running', async () => {
      const p = (await client.get(RESOURCES.pods, 'default', 'http')) as Obj;
      return p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.ready ? p : undefined;
    }, 60_000);
    const local = await freePort();
    const forward = kubectlFor(t, '1.32', server).stream(['port-forward', 'pod/http', `${local}:${port}`]);
    t.teardown(() => forward.kill());
    await forward.waitForLine(/^Forwarding from 127\.0\.0\.1:/);
    const body = await waitFor('an answer through the forward', async () => {
      const res = await fetch(`http://127.0.0.1:${local}/index.html`).catch(() => undefined);
      return res?.ok ? res.text() : undefined;
    }, 20_000);
    t.equal(body, 'served\n', 'the pod answered through kubectl, the API server, the agent and containerd');
  });

  t.test('a running container stays up across syncs', async (t) => {
    await new Promise((r) => setTimeout(r, 7000));
    const p = (await client.get(RESOURCES.pods, 'default', 'web')) as Obj;
    const s = p.status.containerStatuses[0];
    t.equal(s.restartCount, 0, `no restart (last state ${JSON.stringify(s.lastState)})`);
  });

  t.test('a deleted pod stops and leaves the API', async (t) => {
    await client.delete(RESOURCES.pods, 'default', 'web');
    await waitFor('pod web gone', async () => ((await client.get(RESOURCES.pods, 'default', 'web').catch(() => undefined)) ? undefined : true), 60_000);
    const left = await containerd.runtime.listContainers({ labelSelector: { 'io.kubernetes.pod.name': 'web' } } as never);
    t.ok(left.every((c) => String(c.state) !== 'CONTAINER_RUNNING'), 'no container of the pod runs');
  });

  t.test('the agent stops on SIGTERM', async (t) => {
    agent.kill('SIGTERM');
    t.equal(await exited, 0);
  });
});
