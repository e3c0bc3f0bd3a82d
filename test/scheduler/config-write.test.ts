import t from 'tap';
import { FeatureGates } from '../../src/options/feature-gates';
import { configurationFromText, configurationYaml, defaultConfiguration } from '../../src/scheduler/config';

const gates = new FeatureGates();

t.test('the default configuration is written as kube writes it', async (t) => {
  const text = configurationYaml(defaultConfiguration({}, gates));
  t.equal(
    text,
    [
      'apiVersion: kubescheduler.config.k8s.io/v1beta1',
      'clientConnection:',
      '  acceptContentTypes: ""',
      '  burst: 100',
      '  contentType: application/vnd.kubernetes.protobuf',
      '  kubeconfig: ""',
      '  qps: 50',
      'enableContentionProfiling: true',
      'enableProfiling: true',
      'healthzBindAddress: 0.0.0.0:10251',
      'kind: KubeSchedulerConfiguration',
      'leaderElection:',
      '  leaderElect: true',
      '  leaseDuration: 15s',
      '  renewDeadline: 10s',
      '  resourceLock: leases',
      '  resourceName: kube-scheduler',
      '  resourceNamespace: kube-system',
      '  retryPeriod: 2s',
      'metricsBindAddress: 0.0.0.0:10251',
      'parallelism: 16',
      'percentageOfNodesToScore: 0',
      'podInitialBackoffSeconds: 1',
      'podMaxBackoffSeconds: 10',
      'profiles:',
      '- schedulerName: default-scheduler',
      '',
    ].join('\n'),
  );
});

t.test('what is written reads back to the same configuration', async (t) => {
  const source = [
    'apiVersion: kubescheduler.config.k8s.io/v1beta1',
    'kind: KubeSchedulerConfiguration',
    'parallelism: 8',
    'percentageOfNodesToScore: 40',
    'healthzBindAddress: ""',
    'leaderElection: {leaderElect: false, leaseDuration: 90s}',
    'profiles:',
    '- schedulerName: a',
    '  plugins:',
    '    score:',
    '      disabled: [{name: "*"}]',
    '      enabled: [{name: NodeResourcesMostAllocated, weight: 3}]',
    '  pluginConfig:',
    '  - name: NodeResourcesMostAllocated',
    '    args: {resources: [{name: cpu, weight: 2}]}',
    '  - name: Custom',
    '    args: {x: "1"}',
    '- schedulerName: b',
    'extenders:',
    '- {urlPrefix: "http://e", filterVerb: filter, httpTimeout: 30s}',
    '',
  ].join('\n');
  const cfg = configurationFromText(source, gates);
  const text = configurationYaml(cfg);
  t.match(text, /\n {6}apiVersion: kubescheduler.config.k8s.io\/v1beta1\n {6}kind: NodeResourcesMostAllocatedArgs\n/, 'known args carry their type');
  t.match(text, /\nleaderElection:\n  leaderElect: false\n  leaseDuration: 1m30s\n/);
  t.same(configurationFromText(text, gates), cfg);
  t.equal(configurationYaml(configurationFromText(text, gates)), text, 'writing is stable');
});
