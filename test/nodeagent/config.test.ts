import t from 'tap';
import { withDefaults } from '../../src/nodeagent/config/defaults';
import { parseThresholds } from '../../src/nodeagent/config/eviction';
import { decodeKubeletConfiguration } from '../../src/nodeagent/config/file';
import { parseColonMultimap, parseLangleMap, parseTaint } from '../../src/nodeagent/config/flag-values';
import { isKubeletLabel, nodeLabelsProblem } from '../../src/nodeagent/config/node-labels';
import { hostSwapProblem, swapProblem } from '../../src/nodeagent/config/swap';
import { validateKubeletConfiguration } from '../../src/nodeagent/config/validate';
import type { FieldValue } from '../../src/nodeagent/config/schema';

const errorsWith = (fields: Record<string, FieldValue>): string[] => validateKubeletConfiguration(withDefaults(new Map(Object.entries(fields))));

t.test('node labels: kube 1.20\'s allowed set and namespaces', async (t) => {
  for (const k of ['kubernetes.io/hostname', 'kubernetes.io/arch', 'beta.kubernetes.io/os', 'topology.kubernetes.io/zone', 'node.kubernetes.io/instance-type', 'kubelet.kubernetes.io/x', 'a.node.kubernetes.io/y']) {
    t.ok(isKubeletLabel(k), k);
  }
  t.notOk(isKubeletLabel('node-role.kubernetes.io/master'));
  t.equal(nodeLabelsProblem({ 'example.com/a': '1', plain: '2', 'kubernetes.io/os': 'linux' }), undefined);
  t.match(nodeLabelsProblem({ 'x.k8s.io/a': '1', 'kubernetes.io/b': '2' }), /\[kubernetes\.io\/b x\.k8s\.io\/a\] --node-labels in the 'kubernetes\.io' namespace must begin with an allowed prefix \(kubelet\.kubernetes\.io, node\.kubernetes\.io\) or be in the specifically allowed set \(kubernetes\.io\/hostname, /);
});

t.test('eviction thresholds: syntax, percentages, grace periods, minimum reclaim', async (t) => {
  const th = parseThresholds({
    hard: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'imagefs.available': '0%', 'nodefs.inodesFree': '100%' },
    soft: { 'memory.available': '1Gi' },
    softGracePeriod: { 'memory.available': '1m30s' },
    minimumReclaim: { 'memory.available': '5%' },
  });
  t.equal(th.length, 3, '0% and 100% are ignored');
  t.same(th[0].value, { quantity: 100 * 2 ** 20, text: '100Mi' });
  t.same(th[1].value, { percentage: 0.1 });
  t.equal(th[2].gracePeriodMs, 90_000);
  t.same(th[0].minReclaim, { percentage: 0.05 });
  const bad = (s: Partial<Parameters<typeof parseThresholds>[0]>) => () => parseThresholds({ hard: {}, soft: {}, softGracePeriod: {}, minimumReclaim: {}, ...s });
  t.throws(bad({ hard: { 'memory.available': 'lots' } }), /quantities must match the regular expression/);
  t.throws(bad({ hard: { 'memory.available': '-5%' } }), /eviction percentage threshold memory.available must be >= 0%: -5%/);
  t.throws(bad({ softGracePeriod: { 'memory.available': '-1s' } }), /invalid eviction grace period specified: -1s, must be a positive value/);
  t.throws(bad({ minimumReclaim: { 'memory.available': '0%' } }), /eviction percentage minimum reclaim memory.available must be positive/);
  t.throws(bad({ minimumReclaim: { 'memory.available': '-1Mi' } }), /negative eviction minimum reclaim specified for memory.available/);
});

t.test('flag value syntaxes', async (t) => {
  t.same(parseLangleMap(['memory.available<1Gi', 'nodefs.available< 5%']), { 'memory.available': '1Gi', 'nodefs.available': '5%' });
  t.same(parseColonMultimap(['a:1,b:x:y', 'a:2']), { a: ['1', '2'], b: ['x:y'] });
  t.same(parseTaint('dedicated=gpu:NoSchedule'), { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' });
  t.throws(() => parseTaint('novalue'), /invalid taint spec: novalue/);
  t.throws(() => parseTaint('bad key=v:NoSchedule'), /invalid taint spec/);
});

t.test('swap: only a listed device refuses start-up', async (t) => {
  t.equal(swapProblem('Filename\tType\tSize\tUsed\tPriority\n'), undefined);
  t.match(swapProblem('Filename\tType\n/dev/sda2 partition 1 0 -2\n'), /^running with swap on is not supported/);
  t.equal(hostSwapProblem(() => { throw Object.assign(new Error('no'), { code: 'ENOENT' }); }), undefined);
});

t.test('ValidateKubeletConfiguration rules not reachable by a flag', async (t) => {
  t.same(errorsWith({}), [], 'the defaults are valid');
  t.same(errorsWith({ nodeLeaseDurationSeconds: -1 }), ['invalid configuration: nodeLeaseDurationSeconds must be greater than 0']);
  t.same(errorsWith({ healthzPort: 0 }), [], 'healthz port 0 disables');
  t.match(errorsWith({ healthzPort: 70000 }).join(), 'healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive');
  t.match(errorsWith({ shutdownGracePeriod: 500 }).join('|'), 'ShutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec');
  t.match(errorsWith({ shutdownGracePeriod: 5000, featureGates: { GracefulNodeShutdown: false } }).join(), 'requires feature gate GracefulNodeShutdown');
  t.match(errorsWith({ featureGates: { NoSuchGate: true } }).join(), 'unrecognized feature gate: NoSuchGate');
  t.match(errorsWith({ serverTLSBootstrap: true, featureGates: { RotateKubeletServerCertificate: false } }).join(), 'serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate');
  t.match(errorsWith({ topologyManagerScope: 'node' }).join(), 'topologyManagerScope (--topology-manager-scope) "node" must be one of: "container", or "pod"');
  t.match(errorsWith({ configMapAndSecretChangeDetectionStrategy: 'Poll' }).join(), 'unknown configmap and secret manager mode: Poll');
  t.match(errorsWith({ reservedSystemCPUs: '0-1', kubeReservedCgroup: '/k' }).join(), "can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup");
});

t.test('v1beta1 defaulting: plain zero values defaulted, pointer fields kept', async (t) => {
  const v = withDefaults(new Map<string, FieldValue>([['port', 0], ['healthzPort', 0], ['evictionHard', {}], ['enforceNodeAllocatable', []], ['nodeStatusUpdateFrequency', 0]]));
  t.equal(v.get('port'), 10250);
  t.equal(v.get('healthzPort'), 0);
  t.same(v.get('evictionHard'), {});
  t.same(v.get('enforceNodeAllocatable'), []);
  t.equal(v.get('nodeStatusUpdateFrequency'), 10_000);
  t.equal(v.get('nodeStatusReportFrequency'), 300_000);
  t.equal(v.get('authorization.mode'), 'Webhook');
  t.equal(withDefaults(new Map(), { legacy: true }).get('authorization.mode'), 'AlwaysAllow');
});

t.test('decoding: nested objects must be objects, null leaves a field unset', async (t) => {
  const head = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' };
  t.throws(() => decodeKubeletConfiguration({ ...head, authentication: 'x' }, 'f.yaml'), /cannot unmarshal string into Go struct field KubeletConfiguration\.authentication/);
  t.equal(decodeKubeletConfiguration({ ...head, maxPods: null }, 'f.yaml').has('maxPods'), false);
  t.throws(() => decodeKubeletConfiguration([], 'f.yaml'), /failed to load Kubelet config file f\.yaml/);
});
