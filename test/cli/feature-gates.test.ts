import t from 'tap';
import { apiServerOptionGroups } from '../../src/options/apiserver';
import { FEATURE_GATES, featureGateHelpLines, validateFeatureGates } from '../../src/options/feature-gates';
import { renderHelp } from '../../src/options/help';
import { parseOptions } from '../../src/options/parse';

const parse = (...argv: string[]) => parseOptions(apiServerOptionGroups, argv);

t.test('kube 1.32 gates are known with their stage and default; 1.20 gates stay known', async (t) => {
  t.same(FEATURE_GATES.get('WatchList'), { stage: 'BETA', default: true, lockToDefault: false });
  t.same(FEATURE_GATES.get('InPlacePodVerticalScaling'), { stage: 'ALPHA', default: false, lockToDefault: false });
  t.same(FEATURE_GATES.get('MemoryManager'), { stage: 'GA', default: true, lockToDefault: true });
  t.same(FEATURE_GATES.get('KMSv1'), { stage: 'DEPRECATED', default: false, lockToDefault: false });
  t.same(FEATURE_GATES.get('AllowServiceLBStatusOnNonLB'), { stage: 'DEPRECATED', default: false, lockToDefault: true });
  t.same(FEATURE_GATES.get('ServerSideApply'), { stage: 'BETA', default: true, lockToDefault: false }, 'a 1.20-only gate keeps 1.20\'s stage');
  t.same(FEATURE_GATES.get('AnyVolumeDataSource'), { stage: 'BETA', default: true, lockToDefault: false }, '1.32 wins where both know a gate');
  for (const name of ['ConsistentListFromCache', 'SidecarContainers', 'JobManagedBy', 'CRDValidationRatcheting', 'ContextualLogging', 'WatchListClient', 'AllAlpha', 'AllBeta', 'DynamicKubeletConfig', 'IPv6DualStack']) {
    t.ok(FEATURE_GATES.has(name), name);
  }
  t.ok(FEATURE_GATES.size > 200);
});

t.test('parsing: known gates set, unknown ones and locked values refused with kube\'s messages', async (t) => {
  t.same(parse('--feature-gates=WatchList=false,InPlacePodVerticalScaling=true,DynamicKubeletConfig=false').value('feature-gates'), {
    WatchList: false,
    InPlacePodVerticalScaling: true,
    DynamicKubeletConfig: false,
  });
  t.same(parse('--feature-gates=MemoryManager=true,APIListChunking=true').value('feature-gates'), { MemoryManager: true, APIListChunking: true }, 'a locked gate at its default is fine');
  t.throws(() => parse('--feature-gates=MemoryManager=false'), /invalid argument "MemoryManager=false" for "--feature-gates" flag: cannot set feature gate MemoryManager to false, feature is locked to true/);
  t.throws(() => parse('--feature-gates=NoSuchGate=true'), /unrecognized feature gate: NoSuchGate/);
  t.equal(validateFeatureGates({ ExecProbeTimeout: false }), undefined, 'GA but not locked');
});

t.test('--help lists the alpha and beta gates one a line, as kube-apiserver does', async (t) => {
  const lines = featureGateHelpLines();
  t.ok(lines.includes('WatchList=true|false (BETA - default=true)'));
  t.ok(lines.includes('InPlacePodVerticalScaling=true|false (ALPHA - default=false)'));
  t.ok(lines.includes('AllAlpha=true|false (ALPHA - default=false)'));
  t.notOk(lines.some((l) => l.startsWith('MemoryManager=')), 'GA gates are not listed');
  t.same(lines, [...lines].sort(), 'Go string order');
  const help = renderHelp({ usage: 'u', description: 'd', groups: apiServerOptionGroups });
  t.match(help, /--feature-gates mapStringBool\n[^]*?\n {12}APIPriorityAndFairness=true\|false \(BETA - default=true\)\n/);
  t.match(help, /\n {12}WatchList=true\|false \(BETA - default=true\)\n/);
});
