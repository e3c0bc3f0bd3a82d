/**
 * A ContainerRuntime without containers, for the pod lifecycle tests: it records every call, runs
 * a simplified computePodActions (init containers in order, then the app containers, restarts by
 * restart policy, a crash-loop back-off when the test asks for one), and lets the test end
 * containers with an exit code.
 */
import type { ContainerRuntime, ContainerRuntimeStatus, Pod, PodRuntimeStatus, PodSyncResult, RunningPod, SyncResult } from '../../src/nodeagent/types';

interface FakePod {
  uid: string;
  name: string;
  namespace: string;
  sandboxId: string;
  sandboxReady: boolean;
  containers: ContainerRuntimeStatus[];
}

export interface StartPlan {
  /** refuse to start: the sync result's reason and message */
  fail?: { reason: string; message: string };
  /** exit at once with this code */
  exitCode?: number;
}

export class FakeRuntime implements ContainerRuntime {
  readonly type = 'fake';
  readonly pods = new Map<string, FakePod>();
  readonly calls: { op: string; uid: string; grace?: number }[] = [];
  /** how a container starts (default: it runs) */
  plan: (pod: Pod, container: string) => StartPlan = () => ({});
  /** restarting a dead container is refused with CrashLoopBackOff while this is true */
  crashLoop = false;
  #seq = 0;

  async version(): Promise<string> {
    return 'fake://1.0';
  }

  async status(): Promise<{ runtimeReady: boolean; networkReady: boolean; message: string }> {
    return { runtimeReady: true, networkReady: true, message: '' };
  }

  /** add a pod the API never knew (an orphan) */
  addOrphan(uid: string, name: string): void {
    this.pods.set(uid, { uid, name, namespace: 'default', sandboxId: `sb-${uid}`, sandboxReady: true, containers: [this.#instance('c', 0, 'running')] });
  }

  /** end a container's newest instance */
  exit(podName: string, container: string, exitCode: number): void {
    for (const p of this.pods.values()) {
      if (p.name !== podName) continue;
      const c = p.containers.find((x) => x.name === container);
      if (c && c.state === 'running') {
        c.state = 'exited';
        c.exitCode = exitCode;
        c.finishedAt = Date.now();
        c.reason = exitCode === 0 ? 'Completed' : 'Error';
      }
    }
  }

  #instance(name: string, restartCount: number, state: ContainerRuntimeStatus['state'], exitCode = 0): ContainerRuntimeStatus {
    const now = Date.now() + this.#seq++;
    return {
      id: `fake://${name}-${this.#seq}`,
      name,
      state,
      createdAt: now,
      startedAt: now,
      finishedAt: state === 'exited' ? now : 0,
      exitCode,
      image: 'busybox',
      imageRef: 'sha256:feed',
      hash: '1',
      restartCount,
      reason: state === 'exited' ? (exitCode === 0 ? 'Completed' : 'Error') : '',
      message: '',
    };
  }

  async syncPod(pod: Pod, _status: PodRuntimeStatus, _secrets: unknown[]): Promise<PodSyncResult> {
    const uid = pod.metadata?.uid ?? '';
    this.calls.push({ op: 'syncPod', uid });
    let p = this.pods.get(uid);
    if (!p) {
      p = { uid, name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '', sandboxId: `sb-${uid}`, sandboxReady: true, containers: [] };
      this.pods.set(uid, p);
    }
    const spec = pod.spec as { containers: { name: string }[]; initContainers?: { name: string }[]; restartPolicy?: string };
    const policy = spec.restartPolicy ?? 'Always';
    const results: SyncResult[] = [];
    const start = (name: string): boolean => {
      const previous = p!.containers.find((c) => c.name === name);
      if (previous && this.crashLoop) {
        results.push({ action: 'StartContainer', target: name, error: 'CrashLoopBackOff', message: `back-off 10s restarting failed container=${name} pod=${p!.name}_${p!.namespace}(${uid})` });
        return false;
      }
      const plan = this.plan(pod, name);
      if (plan.fail) {
        results.push({ action: 'StartContainer', target: name, error: plan.fail.reason, message: plan.fail.message });
        return false;
      }
      const restarts = previous ? previous.restartCount + 1 : 0;
      const inst = this.#instance(name, restarts, plan.exitCode === undefined ? 'running' : 'exited', plan.exitCode ?? 0);
      p!.containers.unshift(inst);
      results.push({ action: 'StartContainer', target: name });
      return plan.exitCode === undefined || plan.exitCode === 0;
    };
    const needsStart = (name: string, init: boolean): boolean => {
      const latest = p!.containers.find((c) => c.name === name);
      if (!latest) return true;
      if (latest.state === 'running') return false;
      if (init && latest.exitCode === 0) return false;
      if (policy === 'Never') return false;
      if (policy === 'OnFailure' && latest.exitCode === 0) return false;
      return true;
    };
    for (const c of spec.initContainers ?? []) {
      const latest = p.containers.find((x) => x.name === c.name);
      if (latest?.state === 'running') return { results };
      if (needsStart(c.name, true)) {
        start(c.name);
        return { results };
      }
      if (latest && latest.exitCode !== 0) return { results };
    }
    for (const c of spec.containers) if (needsStart(c.name, false)) start(c.name);
    return { results };
  }

  async killPod(pod: Pod | undefined, running: RunningPod, grace?: number): Promise<void> {
    this.calls.push({ op: 'killPod', uid: running.uid, grace: grace ?? ((pod?.spec as { terminationGracePeriodSeconds?: number } | undefined)?.terminationGracePeriodSeconds ?? 30) });
    const p = this.pods.get(running.uid);
    if (!p) return;
    for (const c of p.containers) {
      if (c.state !== 'running') continue;
      c.state = 'exited';
      c.exitCode = 137;
      c.reason = 'Error';
      c.finishedAt = Date.now();
    }
    p.sandboxReady = false;
  }

  async getPodStatus(uid: string, name: string, namespace: string): Promise<PodRuntimeStatus> {
    const p = this.pods.get(uid);
    return {
      uid,
      name,
      namespace,
      ips: p?.sandboxReady ? ['10.88.0.7'] : [],
      sandboxStatuses: [],
      containerStatuses: p ? p.containers.map((c) => ({ ...c })) : [],
    };
  }

  async getPods(all: boolean): Promise<RunningPod[]> {
    const out: RunningPod[] = [];
    for (const p of this.pods.values()) {
      const containers = p.containers.filter((c) => all || c.state === 'running').map((c) => ({ id: c.id, name: c.name, image: c.image, hash: c.hash, state: c.state }));
      if (!all && containers.length === 0 && !p.sandboxReady) continue;
      out.push({ uid: p.uid, name: p.name, namespace: p.namespace, sandboxIds: p.sandboxReady || all ? [p.sandboxId] : [], containers });
    }
    return out;
  }

  async garbageCollect(): Promise<void> {}

  containerLogPath(): string {
    return '/dev/null';
  }
}
