/**
 * The pod lifecycle's parts without a server: status generation (phase, conditions, container
 * statuses), the sources' merge, static pod defaults, admission, PLEG events and pod workers.
 */
import pino from 'pino';
import t from 'tap';
import { canAdmitPod } from '../../src/nodeagent/pods/admission';
import { generateApiPodStatus, getPhase, type ContainerStatus } from '../../src/nodeagent/pods/api-status';
import { PodConfig, type PodUpdate } from '../../src/nodeagent/pods/pod-config';
import { Pleg, PodCache, type PlegEvent } from '../../src/nodeagent/pods/pleg';
import { PodWorkers } from '../../src/nodeagent/pods/pod-workers';
import { applyStaticPodDefaults, decodeManifest } from '../../src/nodeagent/pods/static-pods';
import type { ContainerRuntimeStatus, Pod, PodRuntimeStatus, RunningPod } from '../../src/nodeagent/types';
import { FakeRuntime } from './pods-fake-runtime';

const logger = pino({ level: 'silent' });

function pod(spec: Record<string, unknown>, meta: Record<string, unknown> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1', ...meta }, spec };
}

function cs(name: string, state: ContainerRuntimeStatus['state'], exitCode = 0, createdAt = 1000): ContainerRuntimeStatus {
  return { id: `fake://${name}-${createdAt}`, name, state, createdAt, startedAt: createdAt, finishedAt: state === 'exited' ? createdAt + 1 : 0, exitCode, image: 'busybox', imageRef: 'sha256:1', hash: 'h', restartCount: 0, reason: '', message: '' };
}

function runtime(containers: ContainerRuntimeStatus[], ips: string[] = ['10.0.0.2']): PodRuntimeStatus {
  return { uid: 'u1', name: 'p', namespace: 'default', ips, sandboxStatuses: [], containerStatuses: containers };
}

function gen(p: Pod, r: PodRuntimeStatus, failures = new Map<string, { reason: string; message: string }>()) {
  return generateApiPodStatus({ pod: p, runtime: r, old: undefined, failures, nodeIP: '192.0.2.1', updateProbes: (s) => s.containerStatuses.forEach((c) => (c.ready = !!c.state.running)) });
}

t.test('status: an init container running keeps the pod Pending and not Initialized', async (t) => {
  const p = pod({ initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'web', image: 'busybox' }] });
  const s = gen(p, runtime([cs('init', 'running')]));
  t.equal(s.phase, 'Pending');
  const init = s.conditions.find((c) => c.type === 'Initialized');
  t.same({ status: init?.status, reason: init?.reason, message: init?.message }, { status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [init]' });
  t.equal(s.containerStatuses[0].state.waiting?.reason, 'PodInitializing');
  t.equal(s.initContainerStatuses?.[0].state.running !== undefined, true);
});

t.test('status: init done, app running: Initialized and Ready; host network pods get the node IP', async (t) => {
  const p = pod({ hostNetwork: true, initContainers: [{ name: 'init' }], containers: [{ name: 'web' }] });
  const s = gen(p, runtime([cs('init', 'exited', 0, 1), cs('web', 'running', 0, 2)], []));
  t.equal(s.phase, 'Running');
  t.equal(s.conditions.find((c) => c.type === 'Initialized')?.status, 'True');
  t.equal(s.conditions.find((c) => c.type === 'Ready')?.status, 'True');
  t.equal(s.initContainerStatuses?.[0].ready, true);
  t.equal(s.podIP, '192.0.2.1');
  t.same(s.podIPs, [{ ip: '192.0.2.1' }]);
});

t.test('status: a readiness gate not True keeps Ready False', async (t) => {
  const p = pod({ containers: [{ name: 'web' }], readinessGates: [{ conditionType: 'example.com/lb' }] });
  const s = gen(p, runtime([cs('web', 'running')]));
  const ready = s.conditions.find((c) => c.type === 'Ready');
  t.same({ status: ready?.status, reason: ready?.reason, message: ready?.message }, { status: 'False', reason: 'ReadinessGatesNotReady', message: 'corresponding condition of pod readiness gate "example.com/lb" does not exist.' });
  t.equal(s.conditions.find((c) => c.type === 'ContainersReady')?.status, 'True');
});

t.test('status: a failed start shows its reason as waiting; the dead instance becomes lastState', async (t) => {
  const p = pod({ containers: [{ name: 'web', image: 'busybox' }] });
  const failures = new Map([['web', { reason: 'CrashLoopBackOff', message: 'back-off 20s restarting failed container=web pod=p_default(u1)' }]]);
  const s = gen(p, runtime([cs('web', 'exited', 2)]), failures);
  t.equal(s.containerStatuses[0].state.waiting?.reason, 'CrashLoopBackOff');
  t.equal(s.containerStatuses[0].lastState.terminated?.exitCode, 2);
  t.equal(s.containerStatuses[0].lastState.terminated?.reason, 'Error');
  const fresh = gen(p, runtime([]), new Map([['web', { reason: 'CreateContainerConfigError', message: 'configmap "x" not found' }]]));
  t.same(fresh.containerStatuses[0].state, { waiting: { reason: 'CreateContainerConfigError', message: 'configmap "x" not found' } });
  t.equal(gen(p, runtime([])).containerStatuses[0].state.waiting?.reason, 'ContainerCreating');
});

t.test('status: two instances give state and lastState; app containers sorted by name', async (t) => {
  const p = pod({ containers: [{ name: 'z' }, { name: 'a' }] });
  const s = gen(p, runtime([cs('z', 'running', 0, 20), cs('z', 'exited', 1, 10), cs('a', 'running', 0, 5)]));
  t.same(s.containerStatuses.map((c) => c.name), ['a', 'z']);
  t.ok(s.containerStatuses[1].state.running);
  t.equal(s.containerStatuses[1].lastState.terminated?.exitCode, 1);
});

t.test('getPhase follows the restart policy', async (t) => {
  const term = (name: string, exitCode: number): ContainerStatus => ({ name, state: { terminated: { exitCode } }, lastState: {}, ready: false, restartCount: 0, image: '', imageID: '' });
  t.equal(getPhase(pod({ restartPolicy: 'Always', containers: [{ name: 'a' }] }), [term('a', 0)], []), 'Running');
  t.equal(getPhase(pod({ restartPolicy: 'OnFailure', containers: [{ name: 'a' }] }), [term('a', 1)], []), 'Running');
  t.equal(getPhase(pod({ restartPolicy: 'OnFailure', containers: [{ name: 'a' }] }), [term('a', 0)], []), 'Succeeded');
  t.equal(getPhase(pod({ restartPolicy: 'Never', containers: [{ name: 'a' }, { name: 'b' }] }), [term('a', 0), term('b', 1)], []), 'Failed');
  t.equal(getPhase(pod({ restartPolicy: 'Never', initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] }), [], [term('i', 1)]), 'Failed');
  t.equal(getPhase(pod({ containers: [{ name: 'a' }] }), [], []), 'Pending');
});

t.test('PodConfig: ADD, UPDATE, DELETE, RECONCILE, REMOVE per source', async (t) => {
  const updates: PodUpdate[] = [];
  const config = new PodConfig({ sources: ['api', 'file'], onUpdate: (u) => updates.push(u), now: () => 0 });
  const a = pod({ containers: [{ name: 'a' }] }, { uid: 'a' });
  config.set('api', [a]);
  t.notOk(config.allSourcesReady());
  t.same(updates.map((u) => u.op), ['ADD']);
  t.equal(updates[0].pods[0].metadata?.annotations?.['kubernetes.io/config.source'], 'api');
  t.equal(updates[0].pods[0].metadata?.annotations?.['kubernetes.io/config.seen'], '1970-01-01T00:00:00.000Z');
  config.set('api', [{ ...a, status: { phase: 'Running' } }]);
  config.set('api', [{ ...a, metadata: { ...a.metadata, labels: { x: 'y' } } }]);
  config.set('api', [{ ...a, metadata: { ...a.metadata, labels: { x: 'y' }, deletionTimestamp: '2026-01-01T00:00:00Z' } }]);
  config.set('api', []);
  config.set('file', []);
  t.same(updates.map((u) => u.op), ['ADD', 'RECONCILE', 'UPDATE', 'DELETE', 'REMOVE']);
  t.ok(config.allSourcesReady());
});

t.test('static pods: name, namespace, hash UID, annotations, toleration; PodList manifests', async (t) => {
  const [m] = decodeManifest('kind: Pod\nmetadata: {name: etcd}\nspec: {containers: [{name: e, image: x}]}\n');
  const p = applyStaticPodDefaults(m, { nodeName: 'Node-1', kind: 'file', location: '/etc/m/etcd.yaml' });
  t.equal(p.metadata?.name, 'etcd-node-1');
  t.equal(p.metadata?.namespace, 'default');
  t.match(p.metadata?.uid, /^[0-9a-f]{32}$/);
  t.equal(p.metadata?.annotations?.['kubernetes.io/config.hash'], p.metadata?.uid);
  t.same((p.spec as { tolerations?: unknown }).tolerations, [{ operator: 'Exists', effect: 'NoExecute' }]);
  t.equal((p.spec as { nodeName?: string }).nodeName, 'Node-1');
  const again = applyStaticPodDefaults(m, { nodeName: 'Node-1', kind: 'file', location: '/etc/m/etcd.yaml' });
  t.equal(again.metadata?.uid, p.metadata?.uid, 'the same manifest hashes alike');
  const other = applyStaticPodDefaults(m, { nodeName: 'Node-1', kind: 'file', location: '/etc/m/other.yaml' });
  t.not(other.metadata?.uid, p.metadata?.uid, 'another file, another UID');
  const fromUrl = applyStaticPodDefaults(m, { nodeName: 'n', kind: 'http', location: 'http://x' });
  t.notOk((fromUrl.spec as { tolerations?: unknown }).tolerations, 'URL pods get no added toleration');
  t.equal(decodeManifest(JSON.stringify({ kind: 'PodList', items: [m, { ...m, metadata: { name: 'b' } }] })).length, 2);
  t.throws(() => decodeManifest('kind: Deployment\nmetadata: {name: d}\n'));
});

t.test('admission: pods, cpu, node affinity, host ports, NoExecute taints', async (t) => {
  const node = { metadata: { name: 'n', labels: { disk: 'ssd' } }, status: { allocatable: { pods: '2', cpu: '1', memory: '1Gi' } }, spec: {} };
  const small = pod({ nodeName: 'n', containers: [{ name: 'a', resources: { requests: { cpu: '600m' } } }] });
  t.same(canAdmitPod(small, [], node, 110), { admit: true });
  t.same(canAdmitPod(small, [small, small], node, 110), { admit: false, reason: 'OutOfpods', message: "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2" });
  t.same(canAdmitPod(small, [small], node, 110), { admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 600, used: 600, capacity: 1000" });
  t.same(canAdmitPod(pod({ nodeName: 'n', nodeSelector: { disk: 'hdd' }, containers: [{ name: 'a' }] }), [], node, 110), { admit: false, reason: 'NodeAffinity', message: 'Predicate NodeAffinity failed' });
  const port = pod({ nodeName: 'n', containers: [{ name: 'a', ports: [{ containerPort: 80, hostPort: 8080 }] }] });
  t.equal(canAdmitPod(port, [port], node, 110).reason, 'NodePorts');
  const tainted = { ...node, spec: { taints: [{ key: 'k', value: 'v', effect: 'NoExecute' }] } };
  t.equal(canAdmitPod(pod({ nodeName: 'n', containers: [{ name: 'a' }] }), [], tainted, 110).reason, 'TaintToleration');
  t.same(canAdmitPod(pod({ nodeName: 'n', tolerations: [{ key: 'k', operator: 'Exists' }], containers: [{ name: 'a' }] }), [], tainted, 110), { admit: true });
  t.same(canAdmitPod(pod({ nodeName: 'n', containers: [{ name: 'a' }] }), [], { ...node, spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } }, 110), { admit: true }, 'NoSchedule taints do not matter');
  t.equal(canAdmitPod(small, [small], undefined, 1).reason, 'OutOfpods', 'maxPods stands in without a Node');
});

t.test('PLEG: started, died, removed events and the cache', async (t) => {
  const fake = new FakeRuntime();
  let pods: RunningPod[] = [];
  fake.getPods = async () => pods;
  const events: PlegEvent[] = [];
  const cache = new PodCache();
  const pleg = new Pleg({ runtime: fake, cache, relistPeriodMs: 1000, now: () => 5, logger, onEvent: (e) => events.push(e) });
  const c = (state: 'running' | 'exited') => ({ uid: 'u', name: 'p', namespace: 'd', sandboxIds: ['sb'], containers: [{ id: 'c1', name: 'web', image: 'i', hash: 'h', state }] });
  pods = [c('running')];
  await pleg.relist();
  t.same(events.map((e) => `${e.type}:${e.data}`).sort(), ['ContainerStarted:c1', 'ContainerStarted:sb']);
  t.equal(cache.get('u')?.at, 5);
  events.length = 0;
  await pleg.relist();
  t.same(events, [], 'no change, no event');
  pods = [c('exited')];
  await pleg.relist();
  t.same(events.map((e) => e.type), ['ContainerDied']);
  events.length = 0;
  pods = [];
  await pleg.relist();
  t.same(events.map((e) => `${e.type}:${e.data}`).sort(), ['ContainerDied:sb', 'ContainerRemoved:c1', 'ContainerRemoved:sb']);
});

t.test('pod workers: one sync at a time per pod, the latest waiting work wins, requeue after the delay', async (t) => {
  let active = 0;
  let maxActive = 0;
  const ran: string[] = [];
  const requeued: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const workers = new PodWorkers({
    logger,
    run: async (uid, work) => {
      active++;
      maxActive = Math.max(maxActive, active);
      ran.push(`${uid}:${work.kind}`);
      if (ran.length === 1) await gate;
      active--;
      return 20;
    },
    requeue: (uid) => requeued.push(uid),
  });
  workers.dispatch('a', { kind: 'sync' });
  workers.dispatch('a', { kind: 'sync' });
  workers.dispatch('a', { kind: 'kill' });
  workers.dispatch('a', { kind: 'sync' });
  t.ok(workers.isBusy('a'));
  release();
  await new Promise((r) => setTimeout(r, 60));
  t.equal(maxActive, 1, 'never two syncs of one pod at once');
  t.same(ran, ['a:sync', 'a:kill'], 'waiting work collapses to the latest, and a kill is not overtaken');
  t.same(requeued, ['a']);
  await workers.stop();
});
