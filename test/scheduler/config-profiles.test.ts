import t from 'tap';
import { FeatureGates } from '../../src/options/feature-gates';
import { configurationFromText, providerPlugins, resolveProfile, resolveProfiles } from '../../src/scheduler/config';
import type { KubeSchedulerProfile } from '../../src/scheduler/config';

const gates = new FeatureGates();
const names = (refs: ReadonlyArray<{ name: string }>) => refs.map((r) => r.name);

t.test('the DefaultProvider is kube 1.20 algorithmprovider registry', async (t) => {
  const p = providerPlugins('DefaultProvider', gates);
  t.same(names(p.queueSort), ['PrioritySort']);
  t.same(names(p.preFilter), ['NodeResourcesFit', 'NodePorts', 'PodTopologySpread', 'InterPodAffinity', 'VolumeBinding']);
  t.same(names(p.filter), [
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
  t.same(names(p.postFilter), ['DefaultPreemption']);
  t.same(names(p.preScore), ['InterPodAffinity', 'PodTopologySpread', 'TaintToleration']);
  t.same(p.score, [
    { name: 'NodeResourcesBalancedAllocation', weight: 1 },
    { name: 'ImageLocality', weight: 1 },
    { name: 'InterPodAffinity', weight: 1 },
    { name: 'NodeResourcesLeastAllocated', weight: 1 },
    { name: 'NodeAffinity', weight: 1 },
    { name: 'NodePreferAvoidPods', weight: 10000 },
    { name: 'PodTopologySpread', weight: 2 },
    { name: 'TaintToleration', weight: 1 },
  ]);
  t.same(names(p.reserve), ['VolumeBinding']);
  t.same(names(p.permit), []);
  t.same(names(p.preBind), ['VolumeBinding']);
  t.same(names(p.bind), ['DefaultBinder']);
  t.same(names(p.postBind), []);
});

t.test('ClusterAutoscalerProvider packs: MostAllocated instead of LeastAllocated', async (t) => {
  const score = providerPlugins('ClusterAutoscalerProvider', gates).score;
  t.same(score[3], { name: 'NodeResourcesMostAllocated', weight: 1 });
  t.notOk(score.some((s) => s.name === 'NodeResourcesLeastAllocated'));
});

t.test('DefaultPodTopologySpread off brings SelectorSpread back', async (t) => {
  const off = providerPlugins('DefaultProvider', new FeatureGates({ DefaultPodTopologySpread: false }));
  t.same(off.preScore.at(-1), { name: 'SelectorSpread' });
  t.same(off.score.at(-1), { name: 'SelectorSpread', weight: 1 });
  t.notOk(providerPlugins('DefaultProvider', gates).score.some((s) => s.name === 'SelectorSpread'));
});

t.test('an unknown provider is kube error', async (t) => {
  t.throws(() => providerPlugins('Fancy', gates), { message: 'couldn\'t create scheduler using provider "Fancy": algorithm provider "Fancy" is not registered' });
});

t.test('enabled and disabled lists merge as kube 1.20 Plugins.Apply', async (t) => {
  const base = providerPlugins('DefaultProvider', gates);
  const profile: KubeSchedulerProfile = {
    schedulerName: 'custom',
    plugins: {
      score: { disabled: [{ name: 'ImageLocality' }, { name: 'NodeResourcesLeastAllocated' }], enabled: [{ name: 'NodeResourcesMostAllocated', weight: 5 }, { name: 'Mine' }] },
      filter: { disabled: [{ name: '*' }], enabled: [{ name: 'NodeName' }] },
      permit: { enabled: [{ name: 'Gate', weight: 3 }] },
    },
  };
  const r = resolveProfile(profile, base, gates);
  t.equal(r.schedulerName, 'custom');
  t.same(names(r.plugins.filter), ['NodeName'], '* drops every default of the point');
  t.same(r.plugins.score.slice(-2), [
    { name: 'NodeResourcesMostAllocated', weight: 5 },
    { name: 'Mine', weight: 1 },
  ], 'enabled ones are appended; an unset score weight is 1');
  t.notOk(r.plugins.score.some((s) => s.name === 'ImageLocality' || s.name === 'NodeResourcesLeastAllocated'));
  t.same(r.plugins.permit, [{ name: 'Gate' }], 'only score plugins keep a weight');
  t.same(names(r.plugins.preFilter), names(base.preFilter), 'untouched points keep the defaults');
  t.same(r.pluginConfig.NodeResourcesMostAllocated, { resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] });
  t.notOk('NodeResourcesLeastAllocated' in r.pluginConfig, 'args only for plugins that run');
});

t.test('enabling a default plugin again is the framework error', async (t) => {
  const base = providerPlugins('DefaultProvider', gates);
  t.throws(() => resolveProfile({ schedulerName: 's', plugins: { filter: { enabled: [{ name: 'NodeName' }] } } }, base, gates), {
    message: 'initializing profiles: creating profile for scheduler name s: plugin "NodeName" already registered as "FilterPlugin"',
  });
});

t.test('each enabled plugin with an args type gets its defaulted args; given args win', async (t) => {
  const cfg = configurationFromText(
    'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 7}\n- schedulerName: b\n',
    gates,
  );
  const { profiles } = resolveProfiles({ componentConfig: cfg, algorithmSource: { provider: 'DefaultProvider' }, featureGates: gates, hardPodAffinitySymmetricWeight: 1 });
  t.same(profiles.map((p) => p.schedulerName), ['a', 'b']);
  t.same(profiles[0].pluginConfig.InterPodAffinity, { hardPodAffinityWeight: 7 });
  t.same(profiles[1].pluginConfig.InterPodAffinity, { hardPodAffinityWeight: 1 });
  t.same(Object.keys(profiles[1].pluginConfig).sort(), [
    'DefaultPreemption',
    'InterPodAffinity',
    'NodeAffinity',
    'NodeResourcesFit',
    'NodeResourcesLeastAllocated',
    'PodTopologySpread',
    'VolumeBinding',
  ]);
  t.same(profiles[1].pluginConfig.PodTopologySpread, { defaultingType: 'System' });
  t.same(profiles[1].pluginConfig.VolumeBinding, { bindTimeoutSeconds: 600 });
});
