/**
 * A single-node cluster driven with kubectl as a user drives one: the real API server, the
 * controllers and the scheduler in the test process, `ballast nodeagent` as a process with a private
 * containerd, and pods on a CNI bridge network made from the agent's own configuration (an address
 * from the node's pod CIDR, reached from the host). `kubectl run` and `create deployment` reach Running through the scheduler; logs,
 * exec (exit codes, stdin), attach and port-forward work with kubectl 1.32 (WebSocket or SPDY) and
 * 1.20 (SPDY); a failing liveness probe restarts its container and a readiness probe gates Ready; a
 * Job completes; a ConfigMap volume follows its ConfigMap in place; a deleted pod's container gets
 * its preStop hook and SIGTERM before the pod leaves the API.
 */
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RestClient } from '../../src/client/rest-client';
import { RESOURCES } from '../../src/client/resources';
import { BUSYBOX_IMAGE } from '../../src/nodeagent/cri/busybox-images';
import { cniNames } from '../../src/nodeagent/network/cni-config';
import { containerdSkipReason, startContainerd } from '../helpers/containerd';
import { startControllers } from '../helpers/controllers';
import { defaultProfiles, startScheduler } from '../helpers/scheduler';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir, waitFor, type Kubectl } from './harness';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const skip = containerdSkipReason() ?? (fs.existsSync(MAIN_JS) ? undefined : 'run make build first') ?? missingKubectl('1.32') ?? missingKubectl('1.20');
/** a tag other than latest, so kubectl's generators default to imagePullPolicy IfNotPresent (no registry here) */
const IMAGE = 'busybox:1.36';
const POLL_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('a single-node cluster on containerd, driven with kubectl', { skip }, async (t) => {
  const started = Date.now();
  const server = await startApiServer(t);
  startControllers(t, server, ['deployment', 'replicaset', 'job', 'serviceaccount', 'serviceaccount-token', 'root-ca-cert-publisher', 'garbagecollector', 'endpoint', 'nodelifecycle']);
  startScheduler(t, server, defaultProfiles());
  const containerd = await startContainerd();
  t.teardown(() => containerd.stop());
  execFileSync('ctr', ['-a', containerd.socket, '-n', 'k8s.io', 'images', 'tag', BUSYBOX_IMAGE, `docker.io/library/${IMAGE}`]);

  // the pod network: a random /24 whose bridge + host-local + portmap configuration the agent writes
  // (bridge and address store named after the range, so other agents on this host keep theirs)
  const podSubnet = `10.${100 + (crypto.randomBytes(1)[0] % 100)}.${crypto.randomBytes(1)[0]}`;
  const bridge = cniNames(`${podSubnet}.0/24`).bridge;
  t.teardown(() => {
    if (linkExists(bridge)) execFileSync('ip', ['link', 'delete', bridge], { stdio: 'ignore' });
  });

  const client = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'ballast-test' }), { qps: -1 });
  t.teardown(() => client.close());
  const nodeName = os.hostname().toLowerCase();
  const rootDir = tempDir(t, 'cluster-nodeagent-root-');
  // logs of our own: an agent's container garbage collector removes the log directories of pods it does not know
  const configFile = path.join(rootDir, 'config.yaml');
  // and, as kubeadm sets a node up, client certificates of the cluster CA (the API server's) and SubjectAccessReviews
  fs.writeFileSync(
    configFile,
    [
      'apiVersion: kubelet.config.k8s.io/v1beta1',
      'kind: KubeletConfiguration',
      `podLogsDir: ${tempDir(t, 'cluster-pod-logs-')}`,
      'authentication:',
      '  x509:',
      `    clientCAFile: ${path.join(server.dataDir, 'pki', 'ca.crt')}`,
      '',
    ].join('\n'),
  );
  let output = '';
  const agent = spawn(
    process.execPath,
    [
      MAIN_JS,
      'nodeagent',
      '--config',
      configFile,
      '--kubeconfig',
      server.kubeconfig,
      '--container-runtime-endpoint',
      containerd.endpoint,
      '--root-dir',
      // not made yet: the agent makes its root dir, whose filesystem is the node's ephemeral-storage and gates Ready
      path.join(rootDir, 'agent'),
      '--fail-swap-on=false',
      '--cni-conf-dir',
      containerd.cniConfDir,
      '--pod-cidr',
      `${podSubnet}.0/24`,
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
      // as a cluster with a DNS service has: without it every sync of every pod records MissingClusterDNS,
      // and those events queue up ahead of the ones the subtests look for
      '--cluster-dns',
      '10.96.0.10',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  agent.stdout.on('data', (d: Buffer) => (output += d.toString()));
  agent.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => agent.on('exit', resolve));
  t.teardown(async () => {
    if (agent.exitCode === null) agent.kill('SIGTERM');
    await exited;
    if (process.env.BALLAST_TEST_LOG || !t.passing()) t.comment(`node agent output:\n${output.slice(-8000)}`);
  });
  t.teardown(async () => {
    if (t.passing()) return;
    const pods = (await client.list(RESOURCES.pods, 'default').catch(() => ({ items: [] }))) as { items: Obj[] };
    for (const p of pods.items) t.comment(`pod ${p.metadata.name} on ${p.spec.nodeName}: ${JSON.stringify(p.status)}`);
    const events = (await client.list(RESOURCES.events, 'default').catch(() => ({ items: [] }))) as { items: Obj[] };
    for (const e of events.items) t.comment(`event ${e.involvedObject?.name} ${e.reason} x${e.count}: ${e.message}`);
  });
  t.teardown(() => t.comment(`the cluster test took ${((Date.now() - started) / 1000).toFixed(1)} s`));

  await waitFor(
    `node ${nodeName} Ready`,
    async () => {
      if (agent.exitCode !== null) throw new Error(`the node agent exited with ${agent.exitCode}: ${output}`);
      const n = (await client.get(RESOURCES.nodes, undefined, nodeName).catch(() => undefined)) as Obj | undefined;
      return (n?.status?.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True');
    },
    60_000,
  );
  // the TaintNodesByCondition admission plugin registers the node not-ready:NoSchedule; the node lifecycle controller lifts it
  await waitFor('the not-ready taint lifted', async () => {
    const n = (await client.get(RESOURCES.nodes, undefined, nodeName)) as Obj;
    return !(n.spec?.taints ?? []).some((x: Obj) => x.key === 'node.kubernetes.io/not-ready');
  }, 30_000);
  await waitFor('kube-root-ca.crt in default', () => client.get(RESOURCES.configMaps, 'default', 'kube-root-ca.crt').catch(() => undefined));

  const k132 = kubectlFor(t, '1.32', server);
  const k120 = kubectlFor(t, '1.20', server);
  const getPod = (name: string) => client.get(RESOURCES.pods, 'default', name) as Promise<Obj>;
  const podWhere = (what: string, name: string, test: (p: Obj) => boolean, timeoutMs = 60_000) =>
    poll(`pod ${name} ${what}`, async () => {
      if (agent.exitCode !== null) throw new Error(`the node agent exited with ${agent.exitCode}`);
      const p = await getPod(name).catch(() => undefined);
      return p && test(p) ? p : undefined;
    }, timeoutMs);
  const running = (p: Obj) => p.status?.phase === 'Running' && p.status.containerStatuses?.every((c: Obj) => c.ready);
  const apply = (k: Kubectl, manifest: Obj) => k.ok(['apply', '-f', '-'], JSON.stringify(manifest));

  // everything but the attached pods is created at once, so that the pods start side by side; the subtests check each
  const outDir = tempDir(t, 'cluster-grace-out-');
  await k132.ok(['run', 'web', `--image=${IMAGE}`, '--port=8080', '--', 'sh', '-c', 'echo hello; mkdir -p /www; echo served > /www/index.html; exec httpd -f -p 8080 -h /www']);
  await k132.ok(['create', 'deployment', 'dep', `--image=${IMAGE}`, '--replicas=2', '--', 'sh', '-c', 'echo replica $HOSTNAME; exec sleep 3600']);
  await k132.ok(['create', 'job', 'done', `--image=${IMAGE}`, '--', 'sh', '-c', 'echo finished']);
  const graceScript = "trap 'echo TERM >> /out/log; exit 0' TERM; echo started >> /out/log; while true; do sleep 1; done";
  await apply(k132, podManifest('grace', graceScript, {
    grace: 10,
    volumes: [{ name: 'out', hostPath: { path: outDir, type: 'Directory' } }],
    mounts: [{ name: 'out', mountPath: '/out' }],
    container: { lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo prestop >> /out/log'] } } } },
  }));
  await k132.ok(['create', 'configmap', 'cfg', '--from-literal=greeting=one']);
  await apply(k132, podManifest('reader', 'while true; do cat /cfg/greeting; echo; sleep 1; done', {
    volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }],
    mounts: [{ name: 'cfg', mountPath: '/cfg' }],
  }));
  await apply(k132, podManifest('live', 'touch /tmp/healthy; sleep 4; rm /tmp/healthy; exec sleep 3600', {
    container: { livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 2 } },
  }));
  await apply(k132, podManifest('crash', 'echo bye >/dev/termination-log; exit 3', {}));
  await apply(k132, podManifest('gated', 'exec sleep 3600', {
    container: { readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, periodSeconds: 1 } },
  }));

  await t.test('kubectl run: the scheduler binds the pod, it runs on the pod network', async (t) => {
    const web = await podWhere('Running', 'web', running);
    t.equal(web.spec.nodeName, nodeName, 'bound by the scheduler');
    t.equal(web.spec.containers[0].imagePullPolicy, 'IfNotPresent');
    t.match(web.status.podIP, new RegExp(`^${podSubnet.replace(/\./g, '\\.')}\\.\\d+$`), `an address from the pod CIDR: ${web.status.podIP}`);
    t.not(web.status.podIP, web.status.hostIP);
    t.same(web.status.podIPs, [{ ip: web.status.podIP }]);
    const res = await poll('the pod answers on its address', async () => {
      const r = await fetch(`http://${web.status.podIP}:8080/index.html`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      return r?.ok ? r.text() : undefined;
    }, 15_000);
    t.equal(res, 'served\n', 'the host reaches the pod over the bridge');
    const inside = await k132.ok(['exec', 'web', '--', 'ip', '-4', 'addr', 'show', 'eth0']);
    t.match(inside, `inet ${web.status.podIP}/24`, 'the container sees its address on eth0');
  });

  // without a running pod nothing below can pass: stop here, with the diagnostics of the teardown
  if (!t.passing()) return;

  t.test('kubectl create deployment: 2 replicas Running, rollout status completes', async (t) => {
    const out = await k132.ok(['rollout', 'status', 'deployment/dep', '--timeout=60s']);
    t.match(out, /successfully rolled out/);
    const pods = (await client.list(RESOURCES.pods, 'default', { labelSelector: 'app=dep' })) as { items: Obj[] };
    t.equal(pods.items.length, 2);
    t.ok(pods.items.every(running), 'both pods Running and Ready');
    t.ok(pods.items.every((p) => p.spec.nodeName === nodeName && p.status.podIP.startsWith(`${podSubnet}.`)));
    t.not(pods.items[0].status.podIP, pods.items[1].status.podIP, 'each pod has its own address');
    const logs = await k132.ok(['logs', pods.items[0].metadata.name]);
    t.equal(logs, `replica ${pods.items[0].metadata.name}\n`, 'the pod name is the hostname');
    // the service environment, from the agent's service informer
    const kubernetes = (await client.get(RESOURCES.services, 'default', 'kubernetes')) as Obj;
    const env = await k132.ok(['exec', pods.items[0].metadata.name, '--', 'sh', '-c', 'echo $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT']);
    t.equal(env.trim(), `${kubernetes.spec.clusterIP}:443`, "the kubernetes service's variables");
  });

  for (const [version, k] of [['1.32', k132], ['1.20', k120]] as const) {
    t.test(`kubectl ${version}: logs, exec with exit codes and stdin`, async (t) => {
      t.equal(await k.ok(['logs', 'web']), 'hello\n', 'logs');
      const exec = await k.run(['exec', 'web', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
      t.equal(exec.stdout, 'out\n', `exec's stdout (stderr ${exec.stderr})`);
      t.match(exec.stderr, /err/);
      t.equal(exec.code, 3, 'the exit code passes through');
      const stdin = await k.run(['exec', '-i', 'web', '--', 'sh', '-c', 'tr a-z A-Z; exit 0'], 'from stdin\n');
      t.equal(stdin.stdout, 'FROM STDIN\n', `exec -i reads stdin (stderr ${stdin.stderr})`);
      t.equal(stdin.code, 0);
    });
  }

  // the API server gzips the streamed log (src/http/middleware/compression.ts), so nothing reaches kubectl until 16 KiB or the end
  t.test('kubectl logs -f follows new lines', async (t) => {
    // the pods start side by side: this one may still be starting
    await podWhere('Running', 'reader', running);
    const follow = k132.stream(['logs', '-f', 'reader']);
    t.teardown(() => follow.kill());
    await follow.waitForLine(/^one$/);
    const seen = follow.lines.length;
    await poll('a further line', () => follow.lines.length > seen + 1 || undefined, 10_000);
    t.ok(follow.running, 'still following');
  });

  for (const [version, k] of [['1.32', k132], ['1.20', k120]] as const) {
    t.test(`kubectl ${version}: run -i --rm attaches stdin and stdout`, async (t) => {
      const name = `attach-${version.replace('.', '')}`;
      const r = await k.run(['run', name, '-i', '--rm', '--restart=Never', `--image=${IMAGE}`, '--', 'sh', '-c', 'while read l; do echo got $l; done; echo bye'], 'one\ntwo\n', 90_000);
      t.equal(r.code, 0, `kubectl exits 0 (stderr ${r.stderr})`);
      t.match(r.stdout, /got one\ngot two\nbye\n/, 'the container read stdin and its output came back');
      await poll('the pod deleted by --rm', async () => ((await getPod(name).catch(() => undefined)) ? undefined : true), 30_000);
      t.pass('--rm deleted the pod');
    });
  }

  for (const [version, k] of [['1.32', k132], ['1.20', k120]] as const) {
    t.test(`kubectl ${version}: port-forward reaches the pod's server`, async (t) => {
      const local = await freePort();
      const forward = k.stream(['port-forward', 'pod/web', `${local}:8080`]);
      t.teardown(() => forward.kill());
      await forward.waitForLine(/^Forwarding from 127\.0\.0\.1:/);
      for (let i = 0; i < 2; i++) {
        const body = await poll('an answer through the forward', async () => {
          const res = await fetch(`http://127.0.0.1:${local}/index.html`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
          return res?.ok ? res.text() : undefined;
        }, 20_000);
        t.equal(body, 'served\n', `answer ${i + 1} through kubectl, the API server, the agent and containerd`);
      }
    });
  }

  t.test('a failing liveness probe restarts the container', async (t) => {
    const restarted = await podWhere('restarted', 'live', (p) => p.status?.containerStatuses?.[0]?.restartCount >= 1, 60_000);
    const s = restarted.status.containerStatuses[0];
    t.equal(s.lastState.terminated?.reason, 'Error', `the killed container's state: ${JSON.stringify(s.lastState)}`);
    // the recorder writes events on its own schedule: they may reach the API after the status
    const events = await poll('Unhealthy and Killing events', async () => {
      const list = (await client.list(RESOURCES.events, 'default', { fieldSelector: 'involvedObject.name=live' })) as { items: Obj[] };
      const reasons = list.items.map((e) => e.reason);
      return reasons.includes('Unhealthy') && reasons.includes('Killing') ? list : undefined;
    }, 30_000);
    const unhealthy = events.items.find((e) => e.reason === 'Unhealthy');
    t.ok(unhealthy, 'an Unhealthy event');
    t.match(unhealthy?.message, /^Liveness probe failed: /);
    const killing = events.items.find((e) => e.reason === 'Killing');
    t.match(killing?.message, 'Container main failed liveness probe, will be restarted');
    await podWhere('Running again', 'live', (p) => p.status?.containerStatuses?.[0]?.state?.running !== undefined, 30_000);
  });

  t.test('a crashing container restarts and shows CrashLoopBackOff with its termination message', async (t) => {
    const looping = await podWhere('in CrashLoopBackOff', 'crash', (p) => {
      const s = p.status?.containerStatuses?.[0];
      return s?.restartCount >= 1 && s.state.waiting?.reason === 'CrashLoopBackOff';
    });
    const s = looping.status.containerStatuses[0];
    t.equal(s.lastState.terminated.exitCode, 3);
    t.equal(s.lastState.terminated.message, 'bye\n', 'the termination message is read back');
    // the back-off doubles from 10 s with every restart; which restart the poll caught depends on load
    const backOff = 10 * 2 ** (s.restartCount - 1);
    t.match(s.state.waiting.message, new RegExp(`^back-off ${backOff}s restarting failed container=main pod=crash_default\\(`), `restart ${s.restartCount}`);
  });

  t.test('a readiness probe gates Ready', async (t) => {
    const p = await podWhere('Running', 'gated', (p) => p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.state?.running);
    await poll('a failed readiness probe', async () => {
      const list = (await client.list(RESOURCES.events, 'default', { fieldSelector: 'involvedObject.name=gated' })) as { items: Obj[] };
      return list.items.some((e) => e.reason === 'Unhealthy' && /^Readiness probe failed: /.test(e.message)) || undefined;
    }, 10_000);
    const notYet = await getPod('gated');
    t.equal(notYet.status.containerStatuses[0].ready, false, 'not ready while the probe fails');
    t.equal(notYet.status.conditions.find((c: Obj) => c.type === 'Ready')?.status, 'False');
    t.equal(p.status.containerStatuses[0].restartCount, 0);
    await k132.ok(['exec', 'gated', '--', 'touch', '/tmp/ready']);
    const ready = await podWhere('Ready', 'gated', (p) => p.status.conditions?.find((c: Obj) => c.type === 'Ready')?.status === 'True', 20_000);
    t.equal(ready.status.containerStatuses[0].ready, true, 'ready once the probe passes');
  });

  t.test('kubectl create job: the pod Succeeds, the Job is Complete', async (t) => {
    const waited = await k132.run(['wait', '--for=condition=complete', 'job/done', '--timeout=60s'], undefined, 70_000);
    t.equal(waited.code, 0, `kubectl wait (stderr ${waited.stderr})`);
    t.match(waited.stdout, /job.batch\/done condition met/);
    const job = (await client.get(RESOURCES.jobs, 'default', 'done')) as Obj;
    t.equal(job.status.succeeded, 1);
    const pods = (await client.list(RESOURCES.pods, 'default', { labelSelector: 'job-name=done' })) as { items: Obj[] };
    t.equal(pods.items.length, 1);
    t.equal(pods.items[0].status.phase, 'Succeeded');
    t.equal(await k120.ok(['logs', 'job/done']), 'finished\n', "the job's logs");
  });

  t.test('a ConfigMap volume is updated in place', async (t) => {
    await podWhere('Running', 'reader', running);
    let logs = '';
    await poll("the first value in the logs", async () => (logs = await k132.ok(['logs', 'reader'])).includes('one\n') || undefined, 20_000).catch((err: Error) => {
      throw new Error(`${err.message}; the logs: ${JSON.stringify(logs.slice(-300))}`);
    });
    const before = await getPod('reader');
    await k132.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default' }, data: { greeting: 'two' } }));
    const changed = Date.now();
    await poll('the new value in the logs', async () => (await k132.ok(['logs', 'reader'])).includes('two\n') || undefined, 30_000);
    const seconds = (Date.now() - changed) / 1000;
    t.ok(seconds < 20, `the file changed ${seconds.toFixed(1)} s after the update (sync frequency 5 s)`);
    t.equal(await k132.ok(['exec', 'reader', '--', 'cat', '/cfg/greeting']), 'two');
    const after = await getPod('reader');
    t.equal(after.status.containerStatuses[0].restartCount, before.status.containerStatuses[0].restartCount, 'without a restart');
  });

  t.test('a pod deleted gracefully: preStop, SIGTERM, then gone', async (t) => {
    await podWhere('Running', 'grace', running);
    await poll('the container started', () => fs.readFileSync(path.join(outDir, 'log'), 'utf8').includes('started') || undefined, 10_000);
    const begin = Date.now();
    const deleted = await k132.run(['delete', 'pod', 'grace'], undefined, 60_000);
    const took = (Date.now() - begin) / 1000;
    t.equal(deleted.code, 0, `kubectl delete (stderr ${deleted.stderr})`);
    t.notOk(await getPod('grace').catch(() => undefined), 'the pod is gone when kubectl delete returns');
    t.equal(fs.readFileSync(path.join(outDir, 'log'), 'utf8'), 'started\nprestop\nTERM\n', 'the preStop hook ran, then the container got SIGTERM');
    t.ok(took < 10, `the pod left once its container stopped (${took.toFixed(1)} s), not at the end of the grace period`);
  });

  t.test('the agent stops on SIGTERM', async (t) => {
    agent.kill('SIGTERM');
    t.equal(await exited, 0);
  });
});

interface PodOptions {
  grace?: number;
  volumes?: Obj[];
  mounts?: Obj[];
  container?: Obj;
}

/** a busybox pod running `sh -c script`, scheduled by the scheduler (no nodeName) */
function podManifest(name: string, script: string, o: PodOptions = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { run: name } },
    spec: {
      terminationGracePeriodSeconds: o.grace ?? 1,
      volumes: o.volumes,
      containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', script], volumeMounts: o.mounts, ...o.container }],
    },
  };
}

/** poll every POLL_MS until fn gives a value */
async function poll<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await sleep(POLL_MS);
  }
}

function linkExists(name: string): boolean {
  try {
    execFileSync('ip', ['link', 'show', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
