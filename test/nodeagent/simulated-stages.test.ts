/**
 * The simulated runtime's pure parts: which kwok stage a pod is in, the Running and Succeeded
 * statuses it writes (kubelet's shape), the pod address pool, and the made-up node addresses.
 */
import t from 'tap';
import { fallbackPodCidr, nodePodCidr, parseCidr4, PodIpPool, simulatedNodeAddress } from '../../src/nodeagent/runtimes/simulated/pod-ips';
import { completedStatus, podStage, podStartedAt, runningStatus, simulatedContainerId } from '../../src/nodeagent/runtimes/simulated/pod-stages';
import { simulatedNodeNames } from '../../src/nodeagent/runtimes/simulated/run-simulated';
import type { Pod } from '../../src/nodeagent/types';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NOW = Date.parse('2026-11-24T20:00:00Z');

function pod(extra: Obj = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', uid: 'uid-1', ...(extra.metadata ?? {}) },
    spec: { nodeName: 'n-0', containers: [{ name: 'main', image: 'busybox' }, { name: 'side', image: 'nginx:1.25' }], ...(extra.spec ?? {}) },
    status: { phase: 'Pending', qosClass: 'BestEffort', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-11-24T19:59:00Z' }], ...(extra.status ?? {}) },
  } as Pod;
}

t.test('stages: kwok selectors', async (t) => {
  t.equal(podStage(pod()), 'ready', 'a Pending pod becomes Running');
  t.equal(podStage(pod({ status: { phase: undefined } })), 'ready', 'a pod without a phase too');
  t.equal(podStage(pod({ metadata: { deletionTimestamp: '2026-11-24T20:00:00Z' } })), 'delete', 'a deleted pod is removed, whatever its phase');
  t.equal(podStage(pod({ metadata: { deletionTimestamp: 'x' }, status: { phase: 'Succeeded' } })), 'delete');
  t.equal(podStage(pod({ status: { phase: 'Running' } })), undefined, 'a Running pod of anything but a Job stays Running');
  t.equal(podStage(pod({ metadata: { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'u' }] }, status: { phase: 'Running' } })), 'complete', "a Job's Running pod completes");
  t.equal(podStage(pod({ status: { phase: 'Succeeded' } })), undefined, 'terminal pods stay');
  t.equal(podStage(pod({ status: { phase: 'Failed' } })), undefined);
});

t.test('Running: kubelet-shaped status', async (t) => {
  const s = runningStatus(pod({ spec: { initContainers: [{ name: 'init', image: 'busybox' }, { name: 'sidecar', image: 'envoy', restartPolicy: 'Always' }], readinessGates: [{ conditionType: 'example.com/gate' }] } }), {
    now: NOW,
    hostIP: '172.16.0.1',
    podIP: () => '10.0.0.2',
  }) as Obj;
  t.equal(s.phase, 'Running');
  t.equal(s.qosClass, 'BestEffort', 'fields the API server set are kept');
  t.equal(s.hostIP, '172.16.0.1');
  t.equal(s.podIP, '10.0.0.2');
  t.same(s.podIPs, [{ ip: '10.0.0.2' }]);
  t.equal(s.startTime, '2026-11-24T20:00:00Z');
  const byType = Object.fromEntries((s.conditions as Obj[]).map((c) => [c.type, c]));
  for (const type of ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled', 'example.com/gate']) t.equal(byType[type]?.status, 'True', `${type} True`);
  t.equal(byType.PodScheduled.lastTransitionTime, '2026-11-24T19:59:00Z', 'an unchanged condition keeps its transition time');
  t.equal(byType.Ready.lastTransitionTime, '2026-11-24T20:00:00Z');
  t.equal(s.containerStatuses.length, 2);
  const main = s.containerStatuses[0];
  t.match(main, { name: 'main', image: 'busybox', ready: true, started: true, restartCount: 0, state: { running: { startedAt: '2026-11-24T20:00:00Z' } } });
  t.match(main.containerID, /^simulated:\/\/[0-9a-f]{64}$/);
  t.equal(main.containerID, simulatedContainerId('uid-1', 'main'), 'stable per pod and container');
  t.not(main.containerID, s.containerStatuses[1].containerID);
  t.match(main.imageID, /^simulated:\/\/sha256:[0-9a-f]{64}$/);
  t.match(s.initContainerStatuses[0], { name: 'init', ready: true, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
  t.match(s.initContainerStatuses[1], { name: 'sidecar', started: true, state: { running: {} } }, 'a restartable init container keeps running');
});

t.test('Running: host network pods take the host address and no pod address', async (t) => {
  let asked = false;
  const s = runningStatus(pod({ spec: { hostNetwork: true } }), { now: NOW, hostIP: '172.16.0.9', podIP: () => ((asked = true), '10.9.9.9') }) as Obj;
  t.equal(s.podIP, '172.16.0.9');
  t.notOk(asked, 'no address was taken from the pool');
});

t.test('Succeeded: containers terminated Completed, exit code 0', async (t) => {
  const running = pod({ metadata: { ownerReferences: [{ kind: 'Job', name: 'j', uid: 'u', apiVersion: 'batch/v1' }] } });
  running.status = runningStatus(running, { now: NOW, hostIP: '172.16.0.1', podIP: () => '10.0.0.2' });
  t.equal(podStartedAt(running), NOW);
  const s = completedStatus(running, NOW + 2000) as Obj;
  t.equal(s.phase, 'Succeeded');
  t.equal(s.podIP, '10.0.0.2', 'the address stays in the status');
  const term = s.containerStatuses[0].state.terminated;
  t.match(term, { exitCode: 0, reason: 'Completed', startedAt: '2026-11-24T20:00:00Z', finishedAt: '2026-11-24T20:00:02Z' });
  t.equal(term.containerID, (running.status as Obj).containerStatuses[0].containerID);
  t.equal(s.containerStatuses[0].ready, false);
  const byType = Object.fromEntries((s.conditions as Obj[]).map((c) => [c.type, c]));
  t.match(byType.Ready, { status: 'False', reason: 'PodCompleted' });
  t.match(byType.ContainersReady, { status: 'False', reason: 'PodCompleted' });
  t.match(byType.Initialized, { status: 'True', reason: 'PodCompleted' });
  t.equal(byType.PodScheduled.status, 'True');
});

t.test('pod addresses: host-local style, no address twice', async (t) => {
  const pool = new PodIpPool();
  t.equal(pool.allocate('a', '10.244.1.0/24'), '10.244.1.2', 'the first host after the gateway');
  t.equal(pool.allocate('b', '10.244.1.0/24'), '10.244.1.3');
  t.equal(pool.allocate('a', '10.244.1.0/24'), '10.244.1.2', 'a pod keeps its address');
  pool.reserve('c', '10.244.1.4');
  t.equal(pool.allocate('d', '10.244.1.0/24'), '10.244.1.5', 'a reserved address is skipped');
  pool.release('a');
  t.equal(pool.size, 3);
  const small = new PodIpPool();
  t.equal(small.allocate('x', '10.0.0.0/30'), '10.0.0.2');
  t.throws(() => small.allocate('y', '10.0.0.0/30'), /no free address/);
  t.throws(() => small.allocate('z', 'fd00::/64'), /not an IPv4 range/);
  t.same(parseCidr4('10.1.2.3/16'), { first: 10 * 2 ** 24 + 1 * 2 ** 16, last: 10 * 2 ** 24 + 1 * 2 ** 16 + 65535 });
  t.equal(nodePodCidr({ podCIDR: '10.1.0.0/24', podCIDRs: ['fd00::/64', '10.2.0.0/24'] }), '10.2.0.0/24', 'the IPv4 range of a dual-stack node');
  t.equal(nodePodCidr({}), undefined);
});

t.test('made-up node names and addresses', async (t) => {
  t.same(simulatedNodeNames('sim', 3), ['sim-0', 'sim-1', 'sim-2']);
  t.same(simulatedNodeNames('solo', 1), ['solo'], 'one node keeps the plain name');
  t.equal(simulatedNodeAddress(0), '172.16.0.1');
  t.equal(simulatedNodeAddress(300), '172.16.1.45');
  t.equal(fallbackPodCidr(0), '10.0.0.0/24');
  t.equal(fallbackPodCidr(258), '10.1.2.0/24');
});
