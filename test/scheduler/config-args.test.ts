import t from 'tap';
import { FeatureGates } from '../../src/options/feature-gates';
import { configurationFromText, defaultArgs, validateArgs } from '../../src/scheduler/config';

const gates = new FeatureGates();

/** a configuration whose one profile configures `plugin` with the YAML flow mapping `args` */
const withArgs = (plugin: string, args: string) =>
  configurationFromText(
    `apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig:\n  - name: ${plugin}\n    args: ${args}\n`,
    gates,
  );

const P = 'profiles[0].pluginConfig[0].args';

t.test('args defaults of kube 1.20 v1beta1', async (t) => {
  t.same(defaultArgs('DefaultPreemption', undefined, gates), { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
  t.same(defaultArgs('InterPodAffinity', {}, gates), { hardPodAffinityWeight: 1 });
  t.same(defaultArgs('VolumeBinding', {}, gates), { bindTimeoutSeconds: 600 });
  t.same(defaultArgs('NodeResourcesLeastAllocated', {}, gates), { resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] });
  t.same(defaultArgs('RequestedToCapacityRatio', { resources: [{ name: 'gpu' }] }, gates).resources, [{ name: 'gpu', weight: 1 }], 'weight 0 means 1');
  t.same(defaultArgs('PodTopologySpread', {}, gates), { defaultingType: 'System' });
  t.same(defaultArgs('PodTopologySpread', {}, new FeatureGates({ DefaultPodTopologySpread: false })), { defaultingType: 'List' });
  t.same(defaultArgs('InterPodAffinity', { apiVersion: 'kubescheduler.config.k8s.io/v1beta1', kind: 'InterPodAffinityArgs', hardPodAffinityWeight: 3 }, gates), {
    hardPodAffinityWeight: 3,
  });
  const given = { hardPodAffinityWeight: 3 };
  defaultArgs('InterPodAffinity', given, gates).hardPodAffinityWeight = 9;
  t.equal(given.hardPodAffinityWeight, 3, 'the given args are not mutated');
});

t.test('args validation in a configuration file names the field', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['InterPodAffinity', '{hardPodAffinityWeight: 101}', `${P}.hardPodAffinityWeight: Invalid value: 101: not in valid range [0-100]`],
    ['DefaultPreemption', '{minCandidateNodesPercentage: 101}', `${P}.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]`],
    ['DefaultPreemption', '{minCandidateNodesAbsolute: -1}', `${P}.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)`],
    [
      'DefaultPreemption',
      '{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}',
      `[${P}.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, ${P}.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]`,
    ],
    ['VolumeBinding', '{bindTimeoutSeconds: -1}', `${P}.bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value`],
    ['NodeResourcesLeastAllocated', '{resources: [{name: cpu, weight: 0}]}', `${P}: resource Weight of cpu should be a positive value, got 0`],
    ['NodeResourcesMostAllocated', '{resources: [{name: cpu, weight: 101}]}', `${P}: resource Weight of cpu should be less than 100, got 101`],
    ['RequestedToCapacityRatio', '{}', `${P}: at least one point must be specified`],
    [
      'RequestedToCapacityRatio',
      '{shape: [{utilization: 50, score: 1}, {utilization: 10, score: 2}]}',
      `${P}: utilization values must be sorted. Utilization[0]==50 >= Utilization[1]==10`,
    ],
    ['RequestedToCapacityRatio', '{shape: [{utilization: 101, score: 1}]}', `${P}: utilization values must not be greater than 100. Utilization[0]==101`],
    ['RequestedToCapacityRatio', '{shape: [{utilization: 10, score: 11}]}', `${P}: score values must not be greater than 10. Score[0]==11`],
    ['NodeLabel', '{presentLabels: [a, b], absentLabels: [b]}', `${P}: detecting at least one label (e.g., "b") that exist in both the present([a b]) and absent([b]) label list`],
    ['NodeResourcesFit', '{ignoredResourceGroups: [example.com/x]}', `${P}.ignoredResourceGroups[0]: Invalid value: "example.com/x": resource group name can't contain '/'`],
    ['PodTopologySpread', '{defaultingType: Sometimes}', `${P}.defaultingType: Unsupported value: "Sometimes": supported values: "List", "System"`],
    [
      'PodTopologySpread',
      '{defaultingType: System, defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}',
      `${P}.defaultingType: Invalid value: "System": when .defaultConstraints are not empty`,
    ],
    ['PodTopologySpread', '{defaultConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}', `${P}.defaultConstraints[0].maxSkew: Invalid value: 0: must be greater than zero`],
    ['PodTopologySpread', '{defaultConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]}', `${P}.defaultConstraints[0].topologyKey: Required value: can not be empty`],
    [
      'PodTopologySpread',
      '{defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Never}]}',
      `${P}.defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"`,
    ],
    [
      'PodTopologySpread',
      '{defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {}}]}',
      `${P}.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod`,
    ],
    [
      'PodTopologySpread',
      '{defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}, {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}',
      `${P}.defaultConstraints[1]: Duplicate value: "{zone, DoNotSchedule}"`,
    ],
  ];
  for (const [plugin, args, message] of cases) t.throws(() => withArgs(plugin, args), { message }, message);
});

t.test('valid args pass, and plugins without an args type are not checked', async (t) => {
  t.same(validateArgs('InterPodAffinity', { hardPodAffinityWeight: 100 }, 'a'), []);
  t.same(validateArgs('TaintToleration', { whatever: -1 }, 'a'), []);
  t.equal(withArgs('RequestedToCapacityRatio', '{shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}').profiles.length, 1);
});
