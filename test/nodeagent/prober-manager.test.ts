/**
 * The prober's workers and manager (src/nodeagent/prober/probe-manager.ts, worker.ts) on a fake
 * clock and a fake RuntimeService: periods, initial delay, thresholds, startup gating, readiness
 * flipping the status, the hold after a liveness failure, new container instances, jitter, cleanup,
 * and the Killing message.
 */
import t, { type Test } from 'tap';
import type { ExecSyncResponse__Output } from '../../src/nodeagent/cri/generated/runtime/v1/ExecSyncResponse';
import type { ProberClock } from '../../src/nodeagent/prober/clock';
import { probeKillMessage, recordProbeKilling } from '../../src/nodeagent/prober/killing';
import { ProbeManager } from '../../src/nodeagent/prober/probe-manager';
import type { ProbeUpdate } from '../../src/nodeagent/prober/results';
import type { ApiPodStatus } from '../../src/nodeagent/prober/worker';
import type { Pod } from '../../src/nodeagent/types';

class FakeClock implements ProberClock {
  time = Date.parse('2026-01-01T00:00:00Z');
  readonly timers = new Map<number, { at: number; fn: () => void }>();
  #next = 1;
  now(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.timers.set(id, { at: this.time + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** runs the timers due within `ms`, in order, letting each probe finish */
  async advance(ms: number, manager: ProbeManager): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers].filter(([, timer]) => timer.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].fn();
      await manager.idle();
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.time = end;
  }
}

/** an exec-probe runtime whose answer per command the test sets */
function fakeRuntime() {
  const exitCodes = new Map<string, number>();
  const calls: string[] = [];
  return {
    exitCodes,
    calls,
    execSync: async (_id: string, cmd: string[]): Promise<ExecSyncResponse__Output> => {
      calls.push(cmd.join(' '));
      return { exitCode: exitCodes.get(cmd.join(' ')) ?? 0, stdout: Buffer.from(`${cmd.join(' ')} said no`), stderr: Buffer.alloc(0) };
    },
  };
}

function makePod(container: Record<string, unknown>, restartPolicy = 'Always'): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'pod-1' }, spec: { restartPolicy, containers: [{ name: 'app', ...container }] } };
}

function runningStatus(clock: FakeClock, containerID = 'process://c1', startedAgoMs = 0): ApiPodStatus {
  return {
    phase: 'Running',
    podIP: '127.0.0.1',
    containerStatuses: [{ name: 'app', containerID, ready: false, state: { running: { startedAt: new Date(clock.time - startedAgoMs).toISOString() } } }],
  };
}

function setup(t: Test) {
  const clock = new FakeClock();
  const runtime = fakeRuntime();
  const events: string[] = [];
  const recorder = { event: (_pod: Pod, type: string, reason: string, message: string) => void events.push(`${type} ${reason} ${message}`) };
  const manager = new ProbeManager({ runtime, recorder, clock, random: () => 0.5 });
  // the prober started an hour ago: no jitter on first probes
  clock.time += 3_600_000;
  const updates: ProbeUpdate[] = [];
  manager.onUpdate((update) => updates.push(update));
  t.teardown(() => manager.stop());
  return { clock, runtime, events, manager, updates };
}

const exec = (command: string, extra: Record<string, unknown> = {}) => ({ exec: { command: ['sh', '-c', command] }, periodSeconds: 10, ...extra });

t.test('readiness: not ready until the probe passes, then flips with it', async (t) => {
  const { clock, runtime, manager, updates } = setup(t);
  const pod = makePod({ readinessProbe: exec('ready', { failureThreshold: 2 }) });
  manager.addPod(pod);
  const status = runningStatus(clock);
  manager.updatePodStatus('pod-1', status);
  t.equal(status.containerStatuses?.[0]?.ready, false, 'a readiness probe not yet run: not ready');
  t.equal(status.containerStatuses?.[0]?.started, true, 'no startup probe: started');
  await clock.advance(0, manager);
  t.same(updates.map((u) => [u.probeType, u.result]), [['readiness', 'failure'], ['readiness', 'success']], 'the initial failure, then the first success');
  manager.updatePodStatus('pod-1', status);
  t.equal(status.containerStatuses?.[0]?.ready, true);

  runtime.exitCodes.set('sh -c ready', 1);
  await clock.advance(10_000, manager);
  manager.updatePodStatus('pod-1', status);
  t.equal(status.containerStatuses?.[0]?.ready, true, 'one failure is below failureThreshold 2');
  await clock.advance(10_000, manager);
  manager.updatePodStatus('pod-1', status);
  t.equal(status.containerStatuses?.[0]?.ready, false, 'two failures: not ready');
  t.equal(runtime.calls.length, 3, 'one probe per period');
});

t.test('initialDelaySeconds and successThreshold', async (t) => {
  const { clock, runtime, manager } = setup(t);
  manager.addPod(makePod({ readinessProbe: exec('ready', { initialDelaySeconds: 15, periodSeconds: 5, successThreshold: 2 }) }));
  manager.updatePodStatus('pod-1', runningStatus(clock));
  await clock.advance(10_000, manager);
  t.equal(runtime.calls.length, 0, 'no probe within the initial delay');
  await clock.advance(5_000, manager);
  t.equal(runtime.calls.length, 1, 'the first probe once the delay passed');
  t.equal(manager.readiness.get('process://c1'), 'failure', 'one success is below successThreshold 2');
  await clock.advance(5_000, manager);
  t.equal(manager.readiness.get('process://c1'), 'success');
});

t.test('liveness: failure after failureThreshold, a Killing message, the hold until a new container', async (t) => {
  const { clock, runtime, manager, events, updates } = setup(t);
  const pod = makePod({ livenessProbe: exec('alive', { failureThreshold: 3 }) });
  manager.addPod(pod);
  manager.updatePodStatus('pod-1', runningStatus(clock));
  await clock.advance(0, manager);
  t.equal(manager.liveness.get('process://c1'), 'success', 'liveness starts as success');
  runtime.exitCodes.set('sh -c alive', 1);
  await clock.advance(20_000, manager);
  t.equal(manager.liveness.get('process://c1'), 'success', 'two failures: still alive');
  await clock.advance(10_000, manager);
  t.equal(manager.liveness.get('process://c1'), 'failure');
  t.same(updates.at(-1), { probeType: 'liveness', containerId: 'process://c1', result: 'failure', podUid: 'pod-1' });
  t.equal(events.filter((e) => e === 'Warning Unhealthy Liveness probe failed: sh -c alive said no').length, 3, 'an Unhealthy event per failure');
  const calls = runtime.calls.length;
  await clock.advance(30_000, manager);
  t.equal(runtime.calls.length, calls, 'on hold: no probes until the container is replaced');

  const message = probeKillMessage('app', 'process://c1', manager, true);
  t.equal(message, 'Container app failed liveness probe, will be restarted');
  t.equal(probeKillMessage('app', 'process://c1', manager, false), 'Container app failed liveness probe');
  recordProbeKilling({ event: (_p, type, reason, m) => void events.push(`${type} ${reason} ${m}`) }, pod, message ?? '');
  t.equal(events.at(-1), 'Normal Killing Container app failed liveness probe, will be restarted');

  runtime.exitCodes.delete('sh -c alive');
  manager.updatePodStatus('pod-1', runningStatus(clock, 'process://c2'));
  await clock.advance(10_000, manager);
  t.equal(manager.liveness.get('process://c1'), undefined, "the old instance's result is gone");
  t.equal(manager.liveness.get('process://c2'), 'success', 'the new instance is probed');
  t.equal(probeKillMessage('app', 'process://c2', manager, true), undefined);
});

t.test('startup gates liveness and readiness', async (t) => {
  const { clock, runtime, manager, updates } = setup(t);
  manager.addPod(makePod({ startupProbe: exec('started', { failureThreshold: 30 }), livenessProbe: exec('alive'), readinessProbe: exec('ready') }));
  runtime.exitCodes.set('sh -c started', 1);
  const status = runningStatus(clock);
  manager.updatePodStatus('pod-1', status);
  t.equal(status.containerStatuses?.[0]?.started, false, 'a startup probe not yet run: not started');
  t.equal(status.containerStatuses?.[0]?.ready, false);
  await clock.advance(20_000, manager);
  t.same(runtime.calls.filter((c) => c !== 'sh -c started'), [], 'only the startup probe runs before the container started');
  t.equal(manager.startup.get('process://c1'), undefined, 'below failureThreshold: no startup result yet');

  runtime.exitCodes.delete('sh -c started');
  await clock.advance(10_000, manager);
  t.equal(manager.startup.get('process://c1'), 'success');
  manager.updatePodStatus('pod-1', status);
  t.equal(status.containerStatuses?.[0]?.started, true);
  const startupCalls = runtime.calls.filter((c) => c === 'sh -c started').length;
  await clock.advance(10_000, manager);
  t.ok(runtime.calls.includes('sh -c alive') && runtime.calls.includes('sh -c ready'), 'liveness and readiness run once started');
  t.equal(runtime.calls.filter((c) => c === 'sh -c started').length, startupCalls, 'no more startup probes');
  manager.updatePodStatus('pod-1', status);
  t.equal(status.containerStatuses?.[0]?.ready, true);
  t.ok(updates.some((u) => u.probeType === 'startup' && u.result === 'success'));
});

t.test('a startup failure holds and tells the runtime', async (t) => {
  const { clock, runtime, manager } = setup(t);
  manager.addPod(makePod({ startupProbe: exec('started', { failureThreshold: 2 }) }));
  runtime.exitCodes.set('sh -c started', 1);
  manager.updatePodStatus('pod-1', runningStatus(clock));
  await clock.advance(10_000, manager);
  t.equal(manager.startup.get('process://c1'), 'failure');
  t.equal(probeKillMessage('app', 'process://c1', manager, true), 'Container app failed startup probe, will be restarted');
});

t.test('a container not running reads as failure; a finished pod ends its workers', async (t) => {
  const { clock, manager } = setup(t);
  manager.addPod(makePod({ readinessProbe: exec('ready') }, 'Never'));
  manager.updatePodStatus('pod-1', runningStatus(clock));
  await clock.advance(0, manager);
  t.equal(manager.readiness.get('process://c1'), 'success');
  const status: ApiPodStatus = { phase: 'Running', containerStatuses: [{ name: 'app', containerID: 'process://c1', state: { terminated: { exitCode: 1 } } }] };
  manager.updatePodStatus('pod-1', status);
  t.equal(status.containerStatuses?.[0]?.ready, false, 'a terminated container is not ready');
  await clock.advance(10_000, manager);
  t.equal(manager.workerCount, 0, 'terminated under restartPolicy Never: the worker ends');
  t.equal(manager.readiness.get('process://c1'), undefined, 'and its result is removed');
});

t.test('jitter: a young prober waits a random part of the period before the first probe', async (t) => {
  const clock = new FakeClock();
  const runtime = fakeRuntime();
  const manager = new ProbeManager({ runtime, recorder: { event: () => undefined }, clock, random: () => 0.3 });
  t.teardown(() => manager.stop());
  manager.addPod(makePod({ readinessProbe: exec('ready') }));
  manager.updatePodStatus('pod-1', runningStatus(clock));
  await clock.advance(2_999, manager);
  t.equal(runtime.calls.length, 0);
  await clock.advance(1, manager);
  t.equal(runtime.calls.length, 1, 'the first probe after 0.3 of the 10 s period');
});

t.test('removePod and cleanupPods stop workers and forget results; init containers', async (t) => {
  const { clock, manager } = setup(t);
  const pod = makePod({ readinessProbe: exec('ready'), livenessProbe: exec('alive') });
  manager.addPod(pod);
  manager.addPod(pod);
  t.equal(manager.workerCount, 2, 'one worker per container and probe type, added once');
  manager.updatePodStatus('pod-1', runningStatus(clock));
  await clock.advance(0, manager);
  t.equal(manager.readiness.get('process://c1'), 'success');
  manager.cleanupPods(['pod-1']);
  t.equal(manager.workerCount, 2, 'a desired pod keeps its workers');
  manager.cleanupPods([]);
  t.equal(manager.workerCount, 0);
  t.equal(manager.readiness.get('process://c1'), undefined);
  manager.addPod(pod);
  manager.removePod(pod);
  t.equal(manager.workerCount, 0);
  t.equal(clock.timers.size, 0, 'no timers left');

  const status: ApiPodStatus = {
    initContainerStatuses: [
      { name: 'init-ok', state: { terminated: { exitCode: 0 } } },
      { name: 'init-bad', state: { terminated: { exitCode: 1 } } },
    ],
  };
  manager.updatePodStatus('pod-2', status);
  t.same(status.initContainerStatuses?.map((c) => c.ready), [true, false]);
});
