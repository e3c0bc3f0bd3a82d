/** Pure logic of the DaemonSet controller: node eligibility, manage and rolling-update plans, status. */
import t from 'tap';
import type { KubeObject } from '../../src/client/types';
import { calculateStatus, isPodUpdated, planManage, planRollingUpdate, podsByNode, scaledValue } from '../../src/controllers/daemonset/daemon-plan';
import { fitsNodeAffinity, nodeShouldRunDaemonPod, targetNodeName, withDaemonTolerations, withNodeNameAffinity } from '../../src/controllers/daemonset/node-eligibility';
import { toleratesTaint as tolerates } from '../../src/controllers/util/taints';

const node = (name: string, labels: Record<string, string> = {}, taints: unknown[] = []): KubeObject => ({ metadata: { name, labels }, spec: { taints } });
const ds = (podSpec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'agent', namespace: 'ns', annotations: { 'deprecated.daemonset.template.generation': '2' } },
  spec: { template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'x' }], ...podSpec } }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } }, ...extra },
});
const pod = (name: string, nodeName: string, hash: string, ready = true): KubeObject => ({
  metadata: { name, labels: { 'controller-revision-hash': hash }, creationTimestamp: '2020-01-01T00:00:00Z' },
  spec: withNodeNameAffinity({}, nodeName),
  status: ready ? { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } : { phase: 'Pending' },
});

t.test('tolerations', async (t) => {
  const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  t.ok(tolerates({ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }, taint));
  t.ok(tolerates({ key: 'k', value: 'v' }, taint), 'empty effect matches every effect; empty operator is Equal');
  t.notOk(tolerates({ key: 'k', value: 'w' }, taint));
  t.ok(tolerates({ key: 'k', operator: 'Exists' }, taint));
  t.ok(tolerates({ operator: 'Exists' }, taint), 'an empty key with Exists tolerates everything');
  t.notOk(tolerates({ key: 'k', operator: 'Exists', effect: 'NoExecute' }, taint));
  const spec = withDaemonTolerations({ hostNetwork: true, tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Equal', value: 'x', effect: 'NoSchedule' }] });
  t.equal(spec.tolerations!.length, 7, 'six defaults plus network-unavailable for hostNetwork, replacing the same key and effect');
  t.match(spec.tolerations!.find((x) => x.key === 'node.kubernetes.io/unschedulable'), { operator: 'Exists' });
});

t.test('node selector and required affinity', async (t) => {
  const n = node('n1', { zone: 'a', size: '10' });
  t.ok(fitsNodeAffinity({ nodeSelector: { zone: 'a' } }, n));
  t.notOk(fitsNodeAffinity({ nodeSelector: { zone: 'b' } }, n));
  const affinity = (terms: unknown[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } }) as never;
  t.ok(fitsNodeAffinity(affinity([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }]), n));
  t.ok(fitsNodeAffinity(affinity([{ matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }, { matchExpressions: [{ key: 'size', operator: 'Gt', values: ['5'] }] }]), n), 'terms are ORed');
  t.notOk(fitsNodeAffinity(affinity([{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }]), n));
  t.notOk(fitsNodeAffinity(affinity([]), n), 'no terms match nothing');
  t.notOk(fitsNodeAffinity(affinity([{}]), n), 'an empty term matches nothing');
  t.ok(fitsNodeAffinity(affinity([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]), n));
  t.equal(targetNodeName({ spec: withNodeNameAffinity({}, 'n9') }), 'n9');
  t.equal(targetNodeName({ spec: { nodeName: 'n2' } }), 'n2');
});

t.test('nodeShouldRunDaemonPod', async (t) => {
  t.same(nodeShouldRunDaemonPod(node('n1'), ds()), { shouldRun: true, shouldContinueRunning: true });
  t.same(nodeShouldRunDaemonPod(node('n1', {}, [{ key: 'd', effect: 'NoSchedule' }]), ds()), { shouldRun: false, shouldContinueRunning: true }, 'NoSchedule: keep what runs');
  t.same(nodeShouldRunDaemonPod(node('n1', {}, [{ key: 'd', effect: 'NoExecute' }]), ds()), { shouldRun: false, shouldContinueRunning: false }, 'NoExecute evicts');
  t.same(nodeShouldRunDaemonPod(node('n1', {}, [{ key: 'd', effect: 'PreferNoSchedule' }]), ds()), { shouldRun: true, shouldContinueRunning: true });
  t.same(nodeShouldRunDaemonPod(node('n1', {}, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }]), ds()), { shouldRun: true, shouldContinueRunning: true }, 'daemon tolerations');
  t.same(nodeShouldRunDaemonPod(node('n1', {}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]), ds()), { shouldRun: false, shouldContinueRunning: true }, 'a node not yet ready waits');
  t.same(nodeShouldRunDaemonPod(node('n1', {}, [{ key: 'd', effect: 'NoSchedule' }]), ds({ tolerations: [{ key: 'd', operator: 'Exists' }] })).shouldRun, true);
  t.same(nodeShouldRunDaemonPod(node('n1'), ds({ nodeName: 'n2' })).shouldRun, false);
  t.same(nodeShouldRunDaemonPod(node('n1', { role: 'x' }), ds({ nodeSelector: { role: 'y' } })).shouldContinueRunning, false);
});

t.test('manage: missing pods, extra pods, failed pods, pods for vanished nodes', async (t) => {
  const nodes = [node('n1'), node('n2'), node('n3', {}, [{ key: 'd', effect: 'NoExecute' }])];
  const extra = { ...pod('p1b', 'n1', 'h'), metadata: { name: 'p1b', labels: {}, creationTimestamp: '2021-01-01T00:00:00Z' } };
  const failed = { ...pod('p2', 'n2', 'h'), status: { phase: 'Failed' } };
  const pods = [pod('p1', 'n1', 'h'), extra, failed, pod('p3', 'n3', 'h'), pod('p4', 'gone', 'h')];
  const plan = planManage(ds(), nodes, podsByNode(pods));
  t.same(plan.nodesNeedingPods, []);
  t.same(plan.podsToDelete.map((p) => p.metadata?.name).sort(), ['p1b', 'p2', 'p3', 'p4']);
  t.same(plan.failed.map((f) => f.node), ['n2']);
  const inBackoff = planManage(ds(), nodes, podsByNode(pods), () => true);
  t.notOk(inBackoff.podsToDelete.some((p) => p.metadata?.name === 'p2'), 'failed pods wait out the backoff');
  t.same(planManage(ds(), nodes, new Map()).nodesNeedingPods, ['n1', 'n2']);
});

t.test('rolling update and status', async (t) => {
  const nodes = [node('n1'), node('n2'), node('n3'), node('n4')];
  const pods = [pod('a', 'n1', 'old'), pod('b', 'n2', 'old'), pod('c', 'n3', 'old', false), pod('d', 'n4', 'new')];
  const d = ds();
  t.same(planRollingUpdate(d, nodes, podsByNode(pods), 'new').map((p) => p.metadata?.name), ['c'], 'the unavailable old pod uses up maxUnavailable');
  const wide = ds({}, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '50%' } } });
  t.same(planRollingUpdate(wide, nodes, podsByNode(pods), 'new').map((p) => p.metadata?.name), ['c', 'a']);
  t.equal(scaledValue('25%', 3, 1), 1);
  t.equal(scaledValue(undefined, 3, 1), 1);
  t.ok(isPodUpdated({ metadata: { labels: { 'pod-template-generation': '2' } } }, 'x', '2'), 'by template generation');
  t.ok(isPodUpdated({ metadata: { labels: { 'controller-revision-hash': 'x' } } }, 'x', undefined), 'by hash');
  const status = calculateStatus(d, [...nodes, node('n5', {}, [{ key: 'd', effect: 'NoSchedule' }])], podsByNode([...pods, pod('e', 'n5', 'new')]), 'new');
  t.same(status, { currentNumberScheduled: 4, numberMisscheduled: 1, desiredNumberScheduled: 4, numberReady: 3, updatedNumberScheduled: 1, numberAvailable: 3, numberUnavailable: 1 });
});
