/**
 * `ballast nodeagent --container-runtime process` as a process against the real API server, with
 * no containerd: a pod's command runs as a host process (Running, Ready), `kubectl logs` and
 * `kubectl exec` work with kubectl 1.32 and 1.20 through the API server, the agent and the
 * runtime's streaming server (exit codes pass through; a terminal with -t), port-forward reaches a
 * port the pod listens on, a container without a command fails with a clear reason, and a deleted
 * pod's process is gone. When the tests run as root the agent runs as `nobody`: the process
 * runtime needs no root.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RestClient } from '../../src/client/rest-client';
import { RESOURCES } from '../../src/client/resources';
import { findScript } from '../../src/nodeagent/runtimes/process/process-streaming';
import { startControllers } from '../helpers/controllers';
import { MAIN_JS, freePort, kubectlFor, kubectlPath, missingKubectl, startApiServer, tempDir, waitFor, type KubectlVersion } from './harness';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const skip = fs.existsSync(MAIN_JS) ? undefined : 'run make build first';
/** nobody's ids, when we are root and can drop to them */
const NOBODY = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** SIGKILL to every container's process group and shim under the runtime's state dir */
function killContainers(containersDir: string): void {
  const ids = fs.existsSync(containersDir) ? fs.readdirSync(containersDir) : [];
  for (const id of ids) {
    const read = (name: string): Obj | undefined => {
      try {
        return JSON.parse(fs.readFileSync(path.join(containersDir, id, name), 'utf8')) as Obj;
      } catch {
        return undefined;
      }
    };
    const pid = Number(read('pid.json')?.pid ?? 0);
    const shimPid = Number(read('container.json')?.shimPid ?? 0);
    for (const target of [-pid, shimPid]) {
      if (target === 0) continue;
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}

t.test('the node agent runs pods as host processes (--container-runtime process)', { skip }, async (t) => {
  const server = await startApiServer(t);
  startControllers(t, server, ['root-ca-cert-publisher']);
  const client = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'ballast-test' }), { qps: -1 });
  const nodeName = os.hostname().toLowerCase();
  const rootDir = tempDir(t, 'ballast-nodeagent-process-');
  // the agent's own copy of the credentials, readable by the user it runs as
  const kubeconfig = path.join(rootDir, 'kubeconfig');
  fs.copyFileSync(server.kubeconfig, kubeconfig);
  if (NOBODY) {
    fs.chownSync(rootDir, NOBODY.uid, NOBODY.gid);
    fs.chownSync(kubeconfig, NOBODY.uid, NOBODY.gid);
  }
  // the agent's root dir does not exist yet: it makes it and the directories under it, as kubelet does
  const agentRoot = path.join(rootDir, 'agent');
  let output = '';
  const agent = spawn(
    process.execPath,
    [
      MAIN_JS,
      'nodeagent',
      '--kubeconfig',
      kubeconfig,
      '--container-runtime',
      'process',
      '--root-dir',
      agentRoot,
      '--cert-dir',
      path.join(rootDir, 'pki'),
      '--fail-swap-on=false',
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
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: rootDir, env: { ...process.env, HOME: rootDir }, ...(NOBODY ?? {}) },
  );
  agent.stdout.on('data', (d: Buffer) => (output += d.toString()));
  agent.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => agent.on('exit', resolve));
  t.teardown(async () => {
    if (agent.exitCode === null) agent.kill('SIGTERM');
    await exited;
    // the shims and their commands outlive the agent by design: end what this test started
    killContainers(path.join(agentRoot, 'process-runtime', 'containers'));
    if (process.env.BALLAST_TEST_LOG || !t.passing()) t.comment(`node agent output:\n${output.slice(-6000)}`);
  });
  t.teardown(async () => {
    if (t.passing()) return;
    const pods = (await client.list(RESOURCES.pods, 'default').catch(() => ({ items: [] }))) as { items: Obj[] };
    for (const p of pods.items) t.comment(`pod ${p.metadata.name}: ${JSON.stringify(p.status)}`);
  });

  const node = await waitFor(
    `node ${nodeName} Ready`,
    async () => {
      if (agent.exitCode !== null) throw new Error(`the node agent exited with ${agent.exitCode}: ${output}`);
      const n = (await client.get(RESOURCES.nodes, undefined, nodeName).catch(() => undefined)) as Obj | undefined;
      const ready = (n?.status?.conditions ?? []).find((c: Obj) => c.type === 'Ready');
      return ready?.status === 'True' ? n : undefined;
    },
    60_000,
  );
  t.match(node.status.nodeInfo.containerRuntimeVersion, /^process:\/\//);
  await waitFor('kube-root-ca.crt in default', () => client.get(RESOURCES.configMaps, 'default', 'kube-root-ca.crt').catch(() => undefined));

  const pod = (name: string, container: Obj): Obj => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName, terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'busybox', imagePullPolicy: 'IfNotPresent', ...container }] },
  });
  const running = (name: string) =>
    waitFor(
      `pod ${name} Running and Ready`,
      async () => {
        const p = (await client.get(RESOURCES.pods, 'default', name)) as Obj;
        return p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.ready ? p : undefined;
      },
      60_000,
    );

  /** `kubectl exec -it` needs a terminal of its own: it runs under script(1) too */
  const execWithTerminal = (t: Test, version: KubectlVersion, command: string[]) =>
    new Promise<{ output: string; code: number | null }>((resolve, reject) => {
      const home = tempDir(t, 'ballast-kubectl-tty-');
      const line = [kubectlPath(version) ?? 'kubectl', '--kubeconfig', server.kubeconfig, 'exec', '-it', 'web', '--', ...command].map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
      const child = spawn('script', ['-q', '-e', '-c', line, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TERM: 'xterm' } });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ output, code });
      });
    });

  t.test('a pod\'s command runs as a host process: Running, Ready', async (t) => {
    await client.create(RESOURCES.pods, 'default', pod('web', { command: ['sh', '-c', 'echo hello; exec sleep 3600'], env: [{ name: 'GREETING', value: 'hello' }] }));
    const p = await running('web');
    t.match(p.status.containerStatuses[0].containerID, /^process:\/\//);
    t.equal(p.status.containerStatuses[0].restartCount, 0);
  });

  for (const version of ['1.32', '1.20'] as const) {
    t.test(`kubectl ${version}: logs and exec`, { skip: missingKubectl(version) }, async (t) => {
      const kubectl = kubectlFor(t, version, server);
      t.equal(await kubectl.ok(['logs', 'web']), 'hello\n', 'kubectl logs shows what the command printed');
      t.equal(await kubectl.ok(['exec', 'web', '--', 'echo', 'hi']), 'hi\n');
      const exec = await kubectl.run(['exec', 'web', '--', 'sh', '-c', 'echo from $GREETING; echo oops >&2; exit 3']);
      t.equal(exec.stdout, 'from hello\n', `exec's stdout (stderr: ${exec.stderr})`);
      t.match(exec.stderr, /oops/);
      t.equal(exec.code, 3, 'the exit code passes through');
      t.equal(await kubectl.ok(['exec', '-i', 'web', '--', 'tr', 'a-z', 'A-Z'], 'shout\n'), 'SHOUT\n', 'stdin with -i');
      if (!findScript()) return t.comment('no util-linux script here: exec -it not tried');
      const tty = await execWithTerminal(t, version, ['sh', '-c', 'tty; stty size; exit 4']);
      t.match(tty.output, /\/dev\/pts\/\d+\r\n\d+ \d+\r\n/, 'exec -it: the command has a terminal, sized as kubectl\'s');
      t.equal(tty.code, 4, 'the exit code passes through the terminal');
    });
  }

  for (const version of ['1.32', '1.20'] as const) {
    t.test(`kubectl ${version} attach -i: input reaches a running container's stdin, its answer comes back`, { skip: missingKubectl(version) }, async (t) => {
      const name = `reader-${version.replace('.', '-')}`;
      const reader = pod(name, { command: ['sh', '-c', 'read line; echo "got $line"'], stdin: true });
      reader.spec.restartPolicy = 'Never';
      await client.create(RESOURCES.pods, 'default', reader);
      await running(name);
      const attach = await kubectlFor(t, version, server).run(['attach', '-i', name], `from ${version}\n`);
      t.match(attach.stdout, new RegExp(`got from ${version.replace('.', '\\.')}`), `attach (stderr: ${attach.stderr})`);
    });
  }

  t.test('port-forward reaches a port the pod listens on', { skip: missingKubectl('1.32') }, async (t) => {
    const port = await freePort();
    const script = `require('http').createServer((q, s) => s.end('served by the pod')).listen(${port}, '127.0.0.1')`;
    await client.create(RESOURCES.pods, 'default', pod('httpd', { command: [process.execPath, '-e', script] }));
    await running('httpd');
    const local = await freePort();
    const kubectl = kubectlFor(t, '1.32', server);
    const forward = kubectl.stream(['port-forward', 'pod/httpd', `${local}:${port}`]);
    t.teardown(() => forward.kill());
    await forward.waitForLine(/Forwarding from/);
    const body = await new Promise<string>((resolve, reject) => {
      http.get(`http://127.0.0.1:${local}/`, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(text));
      }).on('error', reject);
    });
    t.equal(body, 'served by the pod');
  });

  t.test('a container without a command fails with a clear reason', async (t) => {
    await client.create(RESOURCES.pods, 'default', pod('nocommand', {}));
    const waiting = await waitFor(
      'nocommand waiting with a reason',
      async () => {
        const p = (await client.get(RESOURCES.pods, 'default', 'nocommand')) as Obj;
        const w = p.status?.containerStatuses?.[0]?.state?.waiting;
        return w?.reason === 'CreateContainerError' ? w : undefined;
      },
      60_000,
    );
    t.match(waiting.message, /the process runtime needs a command/);
  });

  t.test('a deleted pod\'s process is gone', async (t) => {
    const found = fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number)
      .find((p) => {
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8') === 'sleep\u00003600\u0000' && fs.readFileSync(`/proc/${p}/environ`, 'utf8').includes(`BALLAST_ROOT=${agentRoot}`);
        } catch {
          return false;
        }
      });
    t.ok(found, 'the container\'s sleep runs on the host');
    await client.delete(RESOURCES.pods, 'default', 'web');
    await waitFor('pod web deleted', async () => ((await client.get(RESOURCES.pods, 'default', 'web').catch(() => undefined)) ? undefined : true), 60_000);
    await waitFor('the container process gone', () => (found !== undefined && processAlive(found) ? undefined : true), 20_000);
    t.pass('the process is gone');
  });
});
