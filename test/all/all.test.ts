/**
 * `ballast all`'s configuration (each component's command line: Ballast's flags, then the user's
 * pass-through ones, which win) and its choice of runtime when nothing is configured.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import { isStaticElf, offlineImagesUnavailable } from '../../src/all/images';
import { chooseRuntime } from '../../src/all/runtime';
import { allConfig, allNodeAgentConfig, allOptionGroups } from '../../src/options/all';
import { parseOptions } from '../../src/options/parse';

const config = (...argv: string[]) => allConfig(parseOptions(allOptionGroups, ['--data-dir', '/srv/ballast', ...argv]), {});

t.test('each component gets the data dir\'s kubeconfig and the generated CA; the user\'s flags come last and win', async (t) => {
  const c = config('--controller-manager-arg=--concurrent-deployment-syncs=9', '--scheduler-arg', 'leader-elect=true', '--nodeagent-arg=--max-pods=20', '--nodeagent-arg=--root-dir=/srv/agent');
  t.equal(c.controllerManager?.kubeconfig, '/srv/ballast/controller-manager.kubeconfig');
  t.equal(c.controllerManager?.settings.concurrentDeploymentSyncs, 9);
  t.equal(c.controllerManager?.leaderElection.enabled, false, 'one process per data dir: no election');
  t.equal(c.scheduler?.kubeconfig, '/srv/ballast/scheduler.kubeconfig');
  t.equal(c.scheduler?.leaderElection.enabled, true, 'a pass-through flag without dashes is taken as --flag');
  const agent = allNodeAgentConfig(c.nodeAgentArgs!, ['--container-runtime=process']);
  t.equal(agent.kubeconfig, c.nodeKubeconfig);
  t.equal(agent.maxPods, 20);
  t.equal(agent.rootDir, '/srv/agent', 'the user\'s --root-dir overrides Ballast\'s');
  t.equal(agent.containerRuntime, 'process');
  t.equal(agent.authentication.x509.clientCAFile, '/srv/ballast/pki/ca.crt', 'the API server\'s kubelet client certificate is trusted');
  t.equal(agent.authentication.anonymous.enabled, false);
  t.equal(agent.authorization.mode, 'Webhook');
  t.same([agent.kubeAPIQPS, agent.kubeAPIBurst, agent.eventRecordQPS, agent.eventBurst], [50, 100, 50, 100], "kubelet 1.27's client limits");
  const limited = allNodeAgentConfig(config('--nodeagent-arg=--kube-api-qps=7').nodeAgentArgs!, ['--container-runtime=process']);
  t.equal(limited.kubeAPIQPS, 7, "the user's limit wins");
});

t.test('the API server: nodes reached by address first; namespaces finished by the controller manager when it runs', async (t) => {
  t.same(config().apiserver.kubelet.preferredAddressTypes.slice(0, 2), ['InternalIP', 'ExternalIP']);
  t.same(config('--kubelet-preferred-address-types=Hostname').apiserver.kubelet.preferredAddressTypes, ['Hostname'], 'unless given');
  t.equal(config().apiserver.inprocessNamespaceController, false);
  t.equal(config('--disable-controller-manager').apiserver.inprocessNamespaceController, true);
  t.equal(config('--disable-controller-manager').controllerManager, null);
  t.equal(config('--disable-scheduler').scheduler, null);
  t.equal(config('--disable-agent').nodeAgentArgs, null);
});

t.test('a --node-name other than the host name gets a kubeconfig of its own', async (t) => {
  t.equal(config('--node-name', os.hostname()).nodeKubeconfig, '/srv/ballast/kubelet.kubeconfig');
  t.equal(config('--node-name', 'Edge-1').nodeKubeconfig, '/srv/ballast/kubelet-edge-1.kubeconfig');
  t.equal(config('--node-name', 'Edge-1').nodeName, 'edge-1');
});

t.test('auto: without containerd anywhere, the process runtime with a warning saying why', async (t) => {
  const saved = process.env.PATH;
  process.env.PATH = '/nonexistent';
  t.teardown(() => void (process.env.PATH = saved));
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(s) });
  const chosen = await chooseRuntime({ config: config(), logger });
  t.equal(chosen.kind, 'process');
  t.same(chosen.agentArgs, ['--container-runtime=process']);
  t.match(lines.join(''), /"level":40.*containers run as host processes/);
  t.match(lines.join(''), process.getuid?.() === 0 ? 'containerd, ctr, runc, containerd-shim-runc-v2 not found on PATH' : 'not running as root');
  await t.rejects(chooseRuntime({ config: config('--container-runtime', 'containerd'), logger }), /Ballast cannot start containerd/);
  await t.rejects(chooseRuntime({ config: config('--container-runtime-endpoint', 'unix:///nonexistent.sock'), logger }), /does not answer/);
});

t.test('offline images need a statically linked busybox', async (t) => {
  t.equal(isStaticElf(process.execPath), false, 'node is dynamically linked');
  const dir = t.testdir({ 'not-elf': 'hello' });
  t.equal(isStaticElf(path.join(dir, 'not-elf')), false);
  t.match(offlineImagesUnavailable(path.join(dir, 'missing')), 'does not exist');
  t.match(offlineImagesUnavailable(process.execPath), 'not statically linked');
  if (fs.existsSync('/bin/busybox') && isStaticElf('/bin/busybox')) t.equal(offlineImagesUnavailable('/bin/busybox'), undefined);
});
