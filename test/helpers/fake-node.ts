/**
 * A stand-in for the node agent in controller tests: it watches pods and marks each new one
 * Running and Ready through the status subresource, as a node agent would once its containers
 * started. `hold` keeps chosen pods Pending (to test unavailability); `release` lets them go.
 * With `finish`, a running pod for which it names a phase then ends Succeeded or Failed, its
 * containers terminated (exit code 0 or 1), as a node agent reports a run-to-completion pod.
 */
import type { Test } from 'tap';
import { SharedInformer } from '../../src/client/informer';
import { RESOURCES } from '../../src/client/resources';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject } from '../../src/client/types';

export interface FakeNode {
  /** pods for which this returns true stay Pending until released */
  hold(pred: (pod: KubeObject) => boolean): void;
  /** stop holding pods and mark the held ones ready */
  release(): void;
  /** names of pods marked ready so far */
  readonly readied: ReadonlySet<string>;
}

function isReady(pod: KubeObject): boolean {
  const conditions = ((pod.status ?? {}) as { conditions?: { type: string; status: string }[] }).conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

export interface FakeNodeOptions {
  namespace?: string;
  /** the phase a running pod ends in (undefined: it keeps running) */
  finish?: (pod: KubeObject) => 'Succeeded' | 'Failed' | undefined;
  /** give running pods an IP (10.244.0.<n>), as a node's network would: endpoints need one */
  podIPs?: boolean;
}

function phaseOf(pod: KubeObject): string | undefined {
  return ((pod.status ?? {}) as { phase?: string }).phase;
}

export function startFakeNode(t: Test, client: RestClient, opts: FakeNodeOptions = {}): FakeNode {
  const abort = new AbortController();
  const informer = new SharedInformer(client, RESOURCES.pods, { namespace: opts.namespace });
  let held: ((pod: KubeObject) => boolean) | undefined;
  const readied = new Set<string>();
  const inFlight = new Set<string>();
  let nextIp = 0;
  const markReady = async (pod: KubeObject) => {
    const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    if (abort.signal.aborted || pod.metadata?.deletionTimestamp || inFlight.has(key)) return;
    if (isReady(pod)) {
      const end = opts.finish?.(pod);
      if (end && phaseOf(pod) === 'Running') await finish(pod, key, end);
      return;
    }
    if (opts.finish && (phaseOf(pod) === 'Succeeded' || phaseOf(pod) === 'Failed')) return;
    if (held?.(pod)) return;
    inFlight.add(key);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const containers = ((pod.spec ?? {}) as { containers?: { name: string; image: string }[] }).containers ?? [];
    let running: KubeObject | undefined;
    try {
      running = await client.patch(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', 'merge', {
        status: {
          phase: 'Running',
          startTime: now,
          ...(opts.podIPs ? (() => {
            const ip = `10.244.0.${(nextIp++ % 250) + 2}`;
            return { podIP: ip, podIPs: [{ ip }], hostIP: '10.0.0.1' };
          })() : {}),
          conditions: [
            { type: 'Initialized', status: 'True', lastTransitionTime: now },
            { type: 'Ready', status: 'True', lastTransitionTime: now },
            { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
            { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
          ],
          containerStatuses: containers.map((c) => ({ name: c.name, image: c.image, imageID: '', ready: true, restartCount: 0, started: true, state: { running: { startedAt: now } } })),
        },
      }, { subresource: 'status' });
      readied.add(pod.metadata?.name ?? '');
    } catch {
      // gone or changed: the next event tries again
    } finally {
      inFlight.delete(key);
    }
    // the Running event may have come while this patch was in flight: end the pod from its result
    if (running && opts.finish) await markReady(running);
  };
  const finish = async (pod: KubeObject, key: string, phase: 'Succeeded' | 'Failed') => {
    inFlight.add(key);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const containers = ((pod.spec ?? {}) as { containers?: { name: string; image: string }[] }).containers ?? [];
    const exitCode = phase === 'Succeeded' ? 0 : 1;
    try {
      await client.patch(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', 'merge', {
        status: {
          phase,
          conditions: [
            { type: 'Initialized', status: 'True', lastTransitionTime: now },
            { type: 'Ready', status: 'False', reason: 'PodCompleted', lastTransitionTime: now },
            { type: 'ContainersReady', status: 'False', reason: 'PodCompleted', lastTransitionTime: now },
            { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
          ],
          containerStatuses: containers.map((c) => ({
            name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0, started: false,
            state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: now, finishedAt: now } },
          })),
        },
      }, { subresource: 'status' });
    } catch {
      // gone or changed: the next event tries again
    } finally {
      inFlight.delete(key);
    }
  };
  informer.addEventHandler({ add: (p) => void markReady(p), update: (_o, p) => void markReady(p) });
  const run = informer.run(abort.signal);
  t.teardown(async () => {
    abort.abort();
    await run.catch(() => undefined);
  });
  return {
    hold(pred) {
      held = pred;
    },
    release() {
      held = undefined;
      for (const p of informer.store.list()) void markReady(p);
    },
    readied,
  };
}
