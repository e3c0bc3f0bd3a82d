import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { FeatureGates } from '../../src/options/feature-gates';
import { configurationFromText, loadConfigFile } from '../../src/scheduler/config';

const gates = new FeatureGates();
const HEAD = 'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n';
const load = (body: string) => configurationFromText(HEAD + body, gates);

t.test('an empty configuration gets kube 1.20 v1beta1 defaults', async (t) => {
  const cfg = load('');
  t.equal(cfg.parallelism, 16);
  t.equal(cfg.percentageOfNodesToScore, 0);
  t.equal(cfg.podInitialBackoffSeconds, 1);
  t.equal(cfg.podMaxBackoffSeconds, 10);
  t.same(cfg.leaderElection, {
    leaderElect: true,
    leaseDuration: '15s',
    renewDeadline: '10s',
    retryPeriod: '2s',
    resourceLock: 'leases',
    resourceName: 'kube-scheduler',
    resourceNamespace: 'kube-system',
  });
  t.same(cfg.clientConnection, { kubeconfig: '', acceptContentTypes: '', contentType: 'application/vnd.kubernetes.protobuf', qps: 50, burst: 100 });
  t.equal(cfg.healthzBindAddress, '0.0.0.0:10251');
  t.equal(cfg.metricsBindAddress, '0.0.0.0:10251');
  t.equal(cfg.enableProfiling, true);
  t.equal(cfg.enableContentionProfiling, true);
  t.same(cfg.profiles, [{ schedulerName: 'default-scheduler' }]);
  t.equal(cfg.extenders, undefined);
});

t.test('JSON is read as well as YAML, and given values are kept', async (t) => {
  const cfg = configurationFromText(
    JSON.stringify({
      apiVersion: 'kubescheduler.config.k8s.io/v1beta1',
      kind: 'KubeSchedulerConfiguration',
      parallelism: 4,
      percentageOfNodesToScore: 30,
      podInitialBackoffSeconds: 2,
      podMaxBackoffSeconds: 20,
      clientConnection: { qps: 7, burst: 9, kubeconfig: '/k' },
      leaderElection: { leaderElect: false, leaseDuration: '1m', resourceName: 'mine' },
      enableProfiling: false,
    }),
    gates,
  );
  t.equal(cfg.parallelism, 4);
  t.equal(cfg.percentageOfNodesToScore, 30);
  t.equal(cfg.podMaxBackoffSeconds, 20);
  t.same(cfg.clientConnection, { kubeconfig: '/k', acceptContentTypes: '', contentType: 'application/vnd.kubernetes.protobuf', qps: 7, burst: 9 });
  t.equal(cfg.leaderElection.leaderElect, false);
  t.equal(cfg.leaderElection.leaseDuration, '1m0s', 'durations are rewritten in Go form');
  t.equal(cfg.leaderElection.resourceName, 'mine');
  t.equal(cfg.enableProfiling, false);
  t.equal(cfg.enableContentionProfiling, false, 'contention profiling follows profiling when unset');
});

t.test('bind addresses are defaulted as kube does', async (t) => {
  t.equal(load('healthzBindAddress: ":1234"\n').healthzBindAddress, '0.0.0.0:1234');
  t.equal(load('healthzBindAddress: 127.0.0.1\n').healthzBindAddress, '127.0.0.1:10251');
  t.equal(load('metricsBindAddress: "::1"\n').metricsBindAddress, '[::1]:10251');
  t.equal(load('metricsBindAddress: nonsense\n').metricsBindAddress, '0.0.0.0:10251');
});

t.test('only a lone profile is named default-scheduler', async (t) => {
  t.equal(load('profiles:\n- {}\n').profiles[0].schedulerName, 'default-scheduler');
  t.throws(() => load('profiles:\n- schedulerName: a\n- {}\n'), { message: 'profiles[1].schedulerName: Required value' });
});

t.test('decoding is strict', async (t) => {
  t.throws(() => load('parallelizm: 3\n'), { message: 'unknown field "parallelizm"' });
  t.throws(() => load('profiles:\n- schedulerName: a\n  plugin: {}\n'), { message: 'unknown field "profiles[0].plugin"' });
  t.throws(() => load('leaderElection:\n  leaseDuration: 15\n'), { message: /^leaderElection\.leaseDuration: cannot decode number 15 as duration/ });
  t.throws(() => load('leaderElection:\n  leaseDuration: soon\n'), { message: 'leaderElection.leaseDuration: invalid duration "soon"' });
  t.throws(() => load('parallelism: "4"\n'), { message: 'parallelism: cannot decode string "4" as integer' });
  t.throws(() => load('profiles:\n- plugins:\n    score:\n      enabled:\n      - name: X\n        weight: 1.5\n'), {
    message: 'profiles[0].plugins.score.enabled[0].weight: cannot decode number 1.5 as integer',
  });
  t.throws(() => load('profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeigth: 2\n'), {
    message: 'decoding args for plugin InterPodAffinity: unknown field "profiles[0].pluginConfig[0].args.hardPodAffinityWeigth"',
  });
  t.throws(() => load('profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      kind: VolumeBindingArgs\n'), {
    message: 'args for plugin InterPodAffinity were not of type InterPodAffinityArgs.kubescheduler.config.k8s.io, got VolumeBindingArgs.kubescheduler.config.k8s.io',
  });
});

t.test('the type meta must name v1beta1 KubeSchedulerConfiguration', async (t) => {
  t.throws(() => configurationFromText('kind: KubeSchedulerConfiguration\n', gates), { message: /^Object 'apiVersion' is missing in/ });
  t.throws(() => configurationFromText('apiVersion: kubescheduler.config.k8s.io/v1beta1\n', gates), { message: /^Object 'Kind' is missing in/ });
  t.throws(() => configurationFromText('apiVersion: kubescheduler.config.k8s.io/v1alpha1\nkind: KubeSchedulerConfiguration\n', gates), {
    message: /^no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io\/v1alpha1"/,
  });
  t.throws(() => configurationFromText('apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: Policy\n', gates), { message: /^no kind "Policy" is registered/ });
  t.throws(() => configurationFromText('a: [\n', gates), { message: /^error converting YAML to JSON/ });
});

t.test('plugin args of known types are defaulted; unknown plugins keep theirs', async (t) => {
  const cfg = load(
    'profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n  - name: NodeResourcesMostAllocated\n    args: {}\n  - name: Custom\n    args: {anything: [1]}\n  - name: PodTopologySpread\n    args:\n      defaultConstraints:\n      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}\n',
  );
  const pcs = cfg.profiles[0].pluginConfig!;
  t.same(pcs[0].args, { hardPodAffinityWeight: 1 });
  t.same(pcs[1].args, { resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] });
  t.same(pcs[2].args, { anything: [1] });
  t.equal(pcs[3].args!.defaultingType, 'List', 'constraints given: List defaulting');
});

t.test('validation errors carry kube 1.20 wording and field paths', async (t) => {
  const cases: Array<[string, string]> = [
    ['parallelism: 0\n', 'parallelism: Invalid value: 0: should be an integer value greater than zero'],
    ['percentageOfNodesToScore: 101\n', 'percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]'],
    ['percentageOfNodesToScore: -1\n', 'percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]'],
    ['podInitialBackoffSeconds: 0\npodMaxBackoffSeconds: 5\n', 'podInitialBackoffSeconds: Invalid value: 0: must be greater than 0'],
    ['podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4\n', 'podMaxBackoffSeconds: Invalid value: 4: must be greater than or equal to PodInitialBackoffSeconds'],
    ['clientConnection:\n  burst: -1\n', 'clientConnection.burst: Invalid value: -1: must be non-negative'],
    ['leaderElection:\n  leaseDuration: 5s\n', 'leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration must be greater than RenewDeadline'],
    ['leaderElection:\n  retryPeriod: -1s\n', 'leaderElection.retryPeriod: Invalid value: -1s: must be greater than zero'],
    ['healthzBindAddress: "1.2.3.4:99999"\n', 'healthzBindAddress: Invalid value: "1.2.3.4:99999": must be between 1 and 65535, inclusive'],
    ['metricsBindAddress: "host:80"\n', 'metricsBindAddress: Invalid value: "host:80": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    ['profiles:\n- schedulerName: x\n- schedulerName: x\n', 'profiles[1].schedulerName: Duplicate value: "x"'],
    [
      'profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: NodeLabel\n  - name: NodeLabel\n',
      'profiles[0].pluginConfig[1]: Duplicate value: "NodeLabel"',
    ],
    [
      'profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      enabled:\n      - name: Other\n',
      'profiles[1].plugins.queueSort: Invalid value: {"enabled":[{"name":"Other"}]}: has to match for all profiles',
    ],
    ['extenders:\n- urlPrefix: http://e\n  prioritizeVerb: p\n', 'extenders[0].weight: Invalid value: 0: must have a positive weight applied to it'],
    [
      'extenders:\n- {urlPrefix: a, bindVerb: b}\n- {urlPrefix: c, bindVerb: d}\n',
      'extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind',
    ],
    [
      'extenders:\n- urlPrefix: a\n  managedResources:\n  - name: example.com/foo\n  - name: example.com/foo\n',
      'extenders[0].managedResources[1].name: Invalid value: "example.com/foo": duplicate extender managed resource name',
    ],
    ['extenders:\n- urlPrefix: a\n  managedResources:\n  - name: cpu\n', 'extenders[0].managedResources[0].name: Invalid value: "cpu": cpu is an invalid extended resource name'],
  ];
  for (const [body, message] of cases) t.throws(() => load(body), { message }, message);
});

t.test('several errors are aggregated in brackets', async (t) => {
  t.throws(() => load('parallelism: -1\npercentageOfNodesToScore: 200\n'), {
    message: '[parallelism: Invalid value: -1: should be an integer value greater than zero, percentageOfNodesToScore: Invalid value: 200: not in valid range [0-100]]',
  });
});

t.test('a disabled leader election is not validated', async (t) => {
  t.equal(load('leaderElection:\n  leaderElect: false\n  leaseDuration: 1s\n').leaderElection.leaseDuration, '1s');
});

t.test('loadConfigFile names the file on the one error line', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sched-cfg-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, `${HEAD}profiles:\n- schedulerName: x\n- schedulerName: x\n`);
  t.throws(() => loadConfigFile(file, gates), { message: `invalid configuration file "${file}": profiles[1].schedulerName: Duplicate value: "x"`, name: 'ConfigError' });
  t.throws(() => loadConfigFile(path.join(dir, 'missing.yaml'), gates), { message: `unable to read config file "${path.join(dir, 'missing.yaml')}": ENOENT` });
  writeFileSync(file, `${HEAD}parallelism: 8\n`);
  t.equal(loadConfigFile(file, gates).parallelism, 8);
});
