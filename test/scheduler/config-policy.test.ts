import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { FeatureGates } from '../../src/options/feature-gates';
import { decodePolicy, loadPolicyConfigMap, policyToProfiles, readPolicyFile } from '../../src/scheduler/config';
import type { KubeObject } from '../../src/client/types';
import type { KubeSchedulerConfiguration, Policy, SchedulerProfile } from '../../src/scheduler/config';

const gates = new FeatureGates();
const profiles = [{ schedulerName: 'default-scheduler' }];
const map = (policy: Policy, g = gates, cliHardPodAffinityWeight?: number) => policyToProfiles(policy, profiles, { gates: g, cliHardPodAffinityWeight });
const names = (refs: ReadonlyArray<{ name: string }>) => refs.map((r) => r.name);

t.test('a Policy decodes strictly from JSON or YAML', async (t) => {
  const p = decodePolicy('{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"PodFitsResources"}],"priorities":[{"name":"LeastRequestedPriority","weight":2}],"hardPodAffinitySymmetricWeight":3,"alwaysCheckAllPredicates":true}');
  t.same(p, { predicates: [{ name: 'PodFitsResources' }], priorities: [{ name: 'LeastRequestedPriority', weight: 2 }], hardPodAffinitySymmetricWeight: 3, alwaysCheckAllPredicates: true });
  t.same(decodePolicy('kind: Policy\napiVersion: v1\npredicates: []\n').predicates, []);
  t.throws(() => decodePolicy('kind: Policy\napiVersion: v1\npredicate: []\n'), { message: 'unknown field "predicate"' });
  t.throws(() => decodePolicy('kind: Policy\napiVersion: v2\n'), { message: /^no kind "Policy" is registered for version "v2"/ });
});

t.test('predicates and priorities map onto 1.20 plugins, in predicate order', async (t) => {
  const r = map({
    predicates: [{ name: 'MatchInterPodAffinity' }, { name: 'PodFitsResources' }, { name: 'GeneralPredicates' }, { name: 'NoDiskConflict' }],
    priorities: [{ name: 'LeastRequestedPriority', weight: 3 }, { name: 'InterPodAffinityPriority', weight: 2 }, { name: 'EqualPriority', weight: 1 }],
  });
  const p = r.profiles[0].plugins;
  // mandatory: CheckNodeUnschedulable first, PodToleratesNodeTaints in its place
  t.same(names(p.filter), ['NodeUnschedulable', 'NodeResourcesFit', 'NodeName', 'NodePorts', 'NodeAffinity', 'VolumeRestrictions', 'TaintToleration', 'InterPodAffinity']);
  t.same(names(p.preFilter), ['NodeResourcesFit', 'NodePorts', 'InterPodAffinity']);
  t.same(p.score, [
    { name: 'InterPodAffinity', weight: 2 },
    { name: 'NodeResourcesLeastAllocated', weight: 3 },
  ], 'priorities in sorted key order; EqualPriority skipped');
  t.same(names(p.preScore), ['InterPodAffinity']);
  t.same(names(p.queueSort), ['PrioritySort']);
  t.same(names(p.postFilter), ['DefaultPreemption']);
  t.same(names(p.bind), ['DefaultBinder']);
  t.same(names(p.reserve), []);
  t.same(r.profiles[0].pluginConfig.InterPodAffinity, { hardPodAffinityWeight: 1 });
  t.equal(r.alwaysCheckAllPredicates, false);
});

t.test('a policy without predicates or priorities uses the legacy defaults', async (t) => {
  const p = map({}).profiles[0];
  t.same(names(p.plugins.filter), [
    'NodeUnschedulable',
    'NodeResourcesFit',
    'NodeName',
    'NodePorts',
    'NodeAffinity',
    'VolumeRestrictions',
    'TaintToleration',
    'EBSLimits',
    'GCEPDLimits',
    'NodeVolumeLimits',
    'AzureDiskLimits',
    'VolumeBinding',
    'VolumeZone',
    'PodTopologySpread',
    'InterPodAffinity',
  ]);
  t.same(names(p.plugins.reserve), ['VolumeBinding']);
  t.same(names(p.plugins.preBind), ['VolumeBinding']);
  t.same(p.plugins.score, [
    { name: 'NodeResourcesBalancedAllocation', weight: 1 },
    // EvenPodsSpreadPriority (2) comes first in key order and keeps its weight; SelectorSpread joins it
    { name: 'PodTopologySpread', weight: 2 },
    { name: 'ImageLocality', weight: 1 },
    { name: 'InterPodAffinity', weight: 1 },
    { name: 'NodeResourcesLeastAllocated', weight: 1 },
    { name: 'NodeAffinity', weight: 1 },
    { name: 'NodePreferAvoidPods', weight: 10000 },
    { name: 'TaintToleration', weight: 1 },
  ]);
  t.same(p.pluginConfig.PodTopologySpread, { defaultingType: 'System' }, 'SelectorSpreadPriority asks for the system defaults');
});

t.test('priorities alone keep the pods own spreading constraints', async (t) => {
  t.same(map({ priorities: [{ name: 'EvenPodsSpreadPriority', weight: 1 }] }).profiles[0].pluginConfig.PodTopologySpread, { defaultingType: 'List' });
  const off = map({ priorities: [{ name: 'SelectorSpreadPriority', weight: 4 }] }, new FeatureGates({ DefaultPodTopologySpread: false })).profiles[0];
  t.same(off.plugins.score, [{ name: 'SelectorSpread', weight: 4 }]);
  t.same(names(off.plugins.preScore), ['SelectorSpread']);
  t.same(map({ priorities: [{ name: 'ServiceSpreadingPriority', weight: 1 }] }).profiles[0].plugins.score, [{ name: 'PodTopologySpread', weight: 1 }]);
});

t.test('custom arguments become ServiceAffinity, NodeLabel and RequestedToCapacityRatio args', async (t) => {
  const r = map({
    predicates: [
      { name: 'zone', argument: { serviceAffinity: { labels: ['zone'] } } },
      { name: 'rack', argument: { labelsPresence: { labels: ['rack'], presence: true } } },
      { name: 'nogpu', argument: { labelsPresence: { labels: ['gpu'], presence: false } } },
      { name: 'PodFitsPorts' },
    ],
    priorities: [
      { name: 'spreadZone', weight: 2, argument: { serviceAntiAffinity: { label: 'zone' } } },
      { name: 'preferSSD', weight: 3, argument: { labelPreference: { label: 'ssd', presence: true } } },
      { name: 'avoidSpot', weight: 3, argument: { labelPreference: { label: 'spot', presence: false } } },
      { name: 'ratio', weight: 1, argument: { requestedToCapacityRatioArguments: { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }], resources: [{ name: 'cpu', weight: 2 }] } } },
    ],
  }).profiles[0];
  t.same(names(p(r).filter), ['NodeUnschedulable', 'NodePorts', 'TaintToleration', 'NodeLabel', 'ServiceAffinity']);
  t.same(names(p(r).preFilter), ['NodePorts', 'ServiceAffinity']);
  t.same(p(r).score, [
    { name: 'NodeLabel', weight: 6 },
    { name: 'RequestedToCapacityRatio', weight: 1 },
    { name: 'ServiceAffinity', weight: 2 },
  ]);
  t.same(r.pluginConfig.ServiceAffinity, { affinityLabels: ['zone'], antiAffinityLabelsPreference: ['zone'] });
  t.same(r.pluginConfig.NodeLabel, { presentLabels: ['rack'], absentLabels: ['gpu'], presentLabelsPreference: ['ssd'], absentLabelsPreference: ['spot'] });
  t.same(r.pluginConfig.RequestedToCapacityRatio, { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }], resources: [{ name: 'cpu', weight: 2 }] });
  function p(x: typeof r) {
    return x.plugins;
  }
});

t.test('hardPodAffinitySymmetricWeight: the policy first, then the flag', async (t) => {
  const prio = [{ name: 'InterPodAffinityPriority', weight: 1 }];
  t.same(map({ priorities: prio, hardPodAffinitySymmetricWeight: 9 }, gates, 5).profiles[0].pluginConfig.InterPodAffinity, { hardPodAffinityWeight: 9 });
  t.same(map({ priorities: prio }, gates, 5).profiles[0].pluginConfig.InterPodAffinity, { hardPodAffinityWeight: 5 });
  t.same(map({ priorities: prio }).profiles[0].pluginConfig.InterPodAffinity, { hardPodAffinityWeight: 1 });
});

t.test('alwaysCheckAllPredicates and extenders are kept', async (t) => {
  const r = map({ alwaysCheckAllPredicates: true, extenders: [{ urlPrefix: 'http://x', filterVerb: 'filter' }] });
  t.equal(r.alwaysCheckAllPredicates, true);
  t.same(r.extenders, [{ urlPrefix: 'http://x', filterVerb: 'filter' }]);
});

t.test('policy errors carry kube wording', async (t) => {
  const pre = "couldn't create scheduler from policy: ";
  t.throws(() => map({ predicates: [{ name: 'Nope' }] }), { message: `${pre}predicate type not found for "Nope"` });
  t.throws(() => map({ priorities: [{ name: 'Nope', weight: 1 }] }), { message: `${pre}priority type not found for "Nope"` });
  t.throws(() => map({ priorities: [{ name: 'LeastRequestedPriority', weight: 0 }] }), { message: `${pre}Priority LeastRequestedPriority should have a positive weight applied to it or it has overflown` });
  t.throws(() => map({ hardPodAffinitySymmetricWeight: 101 }), { message: `${pre}hardPodAffinitySymmetricWeight: Invalid value: 101: not in valid range [0-100]` });
  t.throws(
    () =>
      map({
        priorities: [
          { name: 'a', weight: 1, argument: { labelPreference: { label: 'x' } } },
          { name: 'b', weight: 2, argument: { labelPreference: { label: 'y' } } },
        ],
      }),
    { message: `${pre}LabelPreference  priority "b" has a different weight with "a"` },
  );
  const ratio = { requestedToCapacityRatioArguments: { shape: [{ utilization: 1, score: 1 }] } };
  t.throws(() => map({ priorities: [{ name: 'r1', weight: 1, argument: ratio }, { name: 'r2', weight: 1, argument: ratio }] }), {
    message: `${pre}Priority "r2" redeclares custom priority "RequestedToCapacityRatio", from:"r1"`,
  });
  t.throws(() => map({ priorities: [{ name: 'x', weight: 1, argument: {} }] }), { message: new RegExp(`^${pre.replace('(', '\\(')}\\[?No priority arguments set for priority x`) });
  t.throws(() => map({ predicates: [{ name: 'x', argument: { serviceAffinity: { labels: [] }, labelsPresence: { labels: [] } } }] }), {
    message: `${pre}exactly 1 predicate argument is required, numArgs: 2, predicate x`,
  });
});

t.test('policy files and ConfigMaps are read as kube reads them', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sched-policy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'policy.json');
  t.throws(() => readPolicyFile(file), { message: `missing policy config file ${file}` });
  writeFileSync(file, '{"kind":"Policy","apiVersion":"v1","predicatez":[]}');
  t.throws(() => readPolicyFile(file), { message: 'invalid policy: unknown field "predicatez"' });
  writeFileSync(file, '{"kind":"Policy","apiVersion":"v1","priorities":[]}');
  t.same(readPolicyFile(file), { priorities: [] });

  const base = {
    componentConfig: { profiles: [{ schedulerName: 'default-scheduler' }] } as unknown as KubeSchedulerConfiguration,
    featureGates: gates,
    hardPodAffinitySymmetricWeight: 1,
    profiles: [] as SchedulerProfile[],
    extenders: [],
    alwaysCheckAllPredicates: false,
  };
  const cm = (data: Record<string, string>) => async (ns: string, name: string): Promise<KubeObject> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name }, data }) as KubeObject;
  const withSource = { ...base, algorithmSource: { policy: { configMap: { namespace: 'kube-system', name: 'sched' } } } };
  const loaded = await loadPolicyConfigMap(cm({ 'policy.cfg': 'kind: Policy\napiVersion: v1\npredicates: [{name: HostName}]\npriorities: []\n' }), withSource);
  t.same(names(loaded.profiles[0].plugins.filter), ['NodeUnschedulable', 'NodeName', 'TaintToleration']);
  await t.rejects(loadPolicyConfigMap(cm({}), withSource), { message: 'missing policy config map value at key "policy.cfg"' });
  await t.rejects(
    loadPolicyConfigMap(async () => {
      throw new Error('configmaps "sched" not found');
    }, withSource),
    { message: 'couldn\'t get policy config map kube-system/sched: configmaps "sched" not found' },
  );
  const provider = { ...base, algorithmSource: { provider: 'DefaultProvider' } };
  t.equal(await loadPolicyConfigMap(cm({}), provider), provider, 'other sources pass through');
});
