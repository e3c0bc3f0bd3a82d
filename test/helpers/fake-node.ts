/**
 * A stand-in for the node agent in controller tests: it watches pods and marks each new one
 * Running and Ready through the status subresource, as a node agent would once its containers
 * started. `hold` keeps chosen pods Pending (to test unavailability); `release` lets them go.
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

export function startFakeNode(t: Test, client: RestClient, opts: { namespace?: string } = {}): FakeNode {
  const abort = new AbortController();
  const informer = new SharedInformer(client, RESOURCES.pods, { namespace: opts.namespace });
  let held: ((pod: KubeObject) => boolean) | undefined;
  const readied = new Set<string>();
  const inFlight = new Set<string>();
  const markReady = async (pod: KubeObject) => {
    const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    if (abort.signal.aborted || pod.metadata?.deletionTimestamp || isReady(pod) || inFlight.has(key)) return;
    if (held?.(pod)) return;
    inFlight.add(key);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const containers = ((pod.spec ?? {}) as { containers?: { name: string; image: string }[] }).containers ?? [];
    try {
      await client.patch(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', 'merge', {
        status: {
          phase: 'Running',
          startTime: now,
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
