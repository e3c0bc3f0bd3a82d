import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parseOptions } from '../../src/options/parse';
import { schedulerConfig, schedulerOptionGroups } from '../../src/options/scheduler';
import { configurationFromText, configurationYaml } from '../../src/scheduler/config';

const parse = (...argv: string[]) => parseOptions(schedulerOptionGroups, argv);
const config = (...argv: string[]) => schedulerConfig(parse('--kubeconfig=/etc/k.conf', ...argv));

const tempDir = (t: { teardown(fn: () => void): void }): string => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sched-opts-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const HEAD = 'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n';

t.test('flag defaults are kube-scheduler 1.20 ones', async (t) => {
  const p = parse();
  t.equal(p.number('secure-port'), 10259);
  t.equal(p.number('port'), 10251);
  t.equal(p.string('address'), '0.0.0.0');
  t.equal(p.string('scheduler-name'), 'default-scheduler');
  t.equal(p.number('hard-pod-affinity-symmetric-weight'), 1);
  t.equal(p.number('kube-api-qps'), 50);
  t.equal(p.number('kube-api-burst'), 100);
  t.equal(p.string('kube-api-content-type'), 'application/vnd.kubernetes.protobuf');
  t.equal(p.string('leader-elect-resource-name'), 'kube-scheduler');
  t.equal(p.string('leader-elect-resource-namespace'), 'kube-system');
  t.equal(p.string('leader-elect-resource-lock'), 'leases');
  t.equal(p.string('lock-object-name'), 'kube-scheduler');
  t.equal(p.string('policy-configmap-namespace'), 'kube-system');
  t.equal(p.bool('profiling'), true);
  t.equal(p.bool('contention-profiling'), true);
  t.equal(p.bool('authentication-tolerate-lookup-failure'), true);
  t.same(p.list('authorization-always-allow-paths'), ['/healthz']);
  t.same(p.list('requestheader-username-headers'), ['x-remote-user']);
  t.throws(() => parse('--controllers=*'), { message: 'unknown flag: --controllers' });
  t.throws(() => parse('--cloud-provider=aws'), { message: 'unknown flag: --cloud-provider' });
  for (const flag of ['--version', '--help', '--feature-gates=DefaultPodTopologySpread=false', '--v=2', '--write-config-to=/x', '--tls-cert-file=/c']) {
    t.doesNotThrow(() => parse(flag), flag);
  }
});

t.test('without --config the flags fill the configuration', async (t) => {
  const c = config();
  t.equal(c.kubeconfig, '/etc/k.conf');
  t.equal(c.qps, 50);
  t.equal(c.burst, 100);
  t.equal(c.contentType, 'application/vnd.kubernetes.protobuf');
  t.same(c.leaderElection, { enabled: true, lock: 'leases', name: 'kube-scheduler', namespace: 'kube-system', leaseDurationMs: 15000, renewDeadlineMs: 10000, retryPeriodMs: 2000 });
  t.equal(c.serving.securePort, 10259);
  t.equal(c.healthzBindAddress, '0.0.0.0:10251');
  t.equal(c.metricsBindAddress, '0.0.0.0:10251');
  t.same(c.algorithmSource, { provider: 'DefaultProvider' });
  t.equal(c.profiles.length, 1);
  t.equal(c.profiles[0].schedulerName, 'default-scheduler');
  t.equal(c.parallelism, 16);
  t.equal(c.percentageOfNodesToScore, 0);
  t.equal(c.podInitialBackoffSeconds, 1);
  t.equal(c.podMaxBackoffSeconds, 10);
  t.equal(c.auth.tolerateLookupFailure, true);
  t.equal(c.featureGates.enabled('DefaultPodTopologySpread'), true);

  const d = config('--scheduler-name=mine', '--kube-api-qps=5', '--kube-api-burst=7', '--kube-api-content-type=application/json', '--leader-elect=false', '--address=127.0.0.1', '--port=10300', '--profiling=false');
  t.equal(d.profiles[0].schedulerName, 'mine');
  t.equal(d.qps, 5);
  t.equal(d.burst, 7);
  t.equal(d.contentType, 'application/json');
  t.equal(d.leaderElection.enabled, false);
  t.equal(d.healthzBindAddress, '127.0.0.1:10300');
  t.equal(d.enableProfiling, false);
  t.equal(d.componentConfig.enableContentionProfiling, true);
  t.equal(config('--port=0').healthzBindAddress, '', 'port 0: no insecure server');
});

t.test('--lock-object-* set the lock unless --leader-elect-resource-* are given', async (t) => {
  const c = config('--lock-object-name=old', '--lock-object-namespace=ns');
  t.equal(c.leaderElection.name, 'old');
  t.equal(c.leaderElection.namespace, 'ns');
  const d = config('--lock-object-name=old', '--leader-elect-resource-name=new');
  t.equal(d.leaderElection.name, 'new');
});

t.test('leader election flags are validated as kube does', async (t) => {
  t.throws(() => config('--leader-elect-lease-duration=5s'), { message: 'leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration must be greater than RenewDeadline' });
  t.throws(() => config('--leader-elect-resource-name='), { message: 'leaderElection.resourceName: Invalid value: "": resourceName is required' });
  t.throws(() => config('--leader-elect-resource-lock=files'), { message: "couldn't create resource lock: Invalid lock-type files" });
  t.doesNotThrow(() => config('--leader-elect=false', '--leader-elect-lease-duration=5s'));
});

t.test('--hard-pod-affinity-symmetric-weight becomes InterPodAffinity args', async (t) => {
  const c = config('--hard-pod-affinity-symmetric-weight=10');
  t.same(c.profiles[0].pluginConfig.InterPodAffinity, { hardPodAffinityWeight: 10 });
  t.same(c.componentConfig.profiles[0].pluginConfig, [{ name: 'InterPodAffinity', args: { hardPodAffinityWeight: 10 } }]);
  t.equal(config().componentConfig.profiles[0].pluginConfig, undefined, 'the default weight adds no plugin config');
  t.throws(() => config('--hard-pod-affinity-symmetric-weight=101'), { message: 'hardPodAffinitySymmetricWeight: Invalid value: 101: not in valid range [0-100]' });
});

t.test('the algorithm source follows kube precedence', async (t) => {
  t.same(config('--algorithm-provider=ClusterAutoscalerProvider').profiles[0].plugins.score[3], { name: 'NodeResourcesMostAllocated', weight: 1 });
  t.throws(() => config('--algorithm-provider=Nope'), { message: /algorithm provider "Nope" is not registered/ });
  const cm = config('--policy-configmap=sched', '--policy-configmap-namespace=ops', '--algorithm-provider=ClusterAutoscalerProvider');
  t.same(cm.algorithmSource, { policy: { configMap: { namespace: 'ops', name: 'sched' } } });
  t.same(cm.profiles, [], 'a ConfigMap policy waits for loadPolicyConfigMap');
  t.throws(() => config('--use-legacy-policy-config'), { message: 'policyConfigFile: Required value: required when --use-legacy-policy-config is true' });
  t.throws(() => config('--policy-config-file=/nonexistent/policy.json'), { message: 'missing policy config file /nonexistent/policy.json' });
});

t.test('a policy file replaces the provider; --use-legacy-policy-config beats the ConfigMap', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'policy.json');
  writeFileSync(file, JSON.stringify({ kind: 'Policy', apiVersion: 'v1', predicates: [{ name: 'HostName' }], priorities: [{ name: 'ImageLocalityPriority', weight: 4 }], hardPodAffinitySymmetricWeight: 0 }));
  const c = config(`--policy-config-file=${file}`, '--policy-configmap=cm', '--use-legacy-policy-config');
  t.same(c.algorithmSource, { policy: { file } });
  t.same(c.profiles[0].plugins.filter.map((p) => p.name), ['NodeUnschedulable', 'NodeName', 'TaintToleration']);
  t.same(c.profiles[0].plugins.score, [{ name: 'ImageLocality', weight: 4 }]);
  t.same(config(`--policy-config-file=${file}`, '--policy-configmap=cm').algorithmSource, { policy: { configMap: { namespace: 'kube-system', name: 'cm' } } });
});

t.test('--config: the file wins over deprecated flags; --address/--port and the policy flags override it', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, `${HEAD}clientConnection:\n  kubeconfig: /from/file\n  qps: 11\nprofiles:\n- schedulerName: fromfile\n`);
  const c = schedulerConfig(parse(`--config=${file}`, '--scheduler-name=flag', '--kube-api-qps=99', '--hard-pod-affinity-symmetric-weight=50'));
  t.equal(c.configFile, file);
  t.equal(c.kubeconfig, '/from/file');
  t.equal(c.qps, 11);
  t.equal(c.profiles[0].schedulerName, 'fromfile');
  t.same(c.profiles[0].pluginConfig.InterPodAffinity, { hardPodAffinityWeight: 1 }, 'the weight flag is ignored with --config');
  t.equal(c.healthzBindAddress, '0.0.0.0:10251');
  t.same(c.ignoredFlags, ['hard-pod-affinity-symmetric-weight', 'kube-api-qps', 'scheduler-name'], 'the flags the file overrides are reported as ignored');
  t.same(config('--kube-api-qps=3').ignoredFlags, []);
  t.equal(schedulerConfig(parse(`--config=${file}`, '--port=12000')).metricsBindAddress, '0.0.0.0:12000');
  t.equal(schedulerConfig(parse(`--config=${file}`, '--algorithm-provider=ClusterAutoscalerProvider')).profiles[0].plugins.score[3].name, 'NodeResourcesMostAllocated');

  const policy = path.join(dir, 'policy.yaml');
  writeFileSync(policy, 'kind: Policy\napiVersion: v1\n');
  t.equal(schedulerConfig(parse(`--config=${file}`, `--policy-config-file=${policy}`)).profiles[0].schedulerName, 'fromfile');
  writeFileSync(file, `${HEAD}clientConnection:\n  kubeconfig: /k\nprofiles:\n- pluginConfig:\n  - name: InterPodAffinity\n`);
  t.throws(() => schedulerConfig(parse(`--config=${file}`, `--policy-config-file=${policy}`)), { message: 'cannot set a Plugin config and Policy config' });
});

t.test('a bad --config stops start-up with one line naming the file and field', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, `${HEAD}percentageOfNodesToScore: 120\n`);
  t.throws(() => schedulerConfig(parse(`--config=${file}`)), {
    name: 'FlagError',
    message: `invalid configuration file "${file}": percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]`,
  });
});

t.test('a client needs --kubeconfig or --master, unless only writing the configuration', async (t) => {
  t.throws(() => schedulerConfig(parse()), { message: 'neither --kubeconfig nor --master was specified' });
  t.equal(schedulerConfig(parse('--master=https://127.0.0.1:6443')).master, 'https://127.0.0.1:6443');
  const dir = tempDir(t);
  const out = path.join(dir, 'out.yaml');
  const c = schedulerConfig(parse(`--write-config-to=${out}`, '--scheduler-name=w', '--policy-config-file=/nowhere'));
  t.equal(c.writeConfigTo, out);
  writeFileSync(out, configurationYaml(c.componentConfig));
  const back = configurationFromText(readFileSync(out, 'utf8'), c.featureGates);
  t.same(back, c.componentConfig, 'the written file reads back as the same configuration');
  t.equal(back.profiles[0].schedulerName, 'w');
});

t.test('TLS files go together', async (t) => {
  t.throws(() => config('--tls-cert-file=/c'), { message: '--tls-cert-file and --tls-private-key-file must be given together' });
  const c = config('--tls-cert-file=/c', '--tls-private-key-file=/k', '--secure-port=0');
  t.equal(c.serving.tlsCertFile, '/c');
  t.equal(c.serving.securePort, 0);
});
