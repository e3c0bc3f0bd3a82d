/**
 * kube's garbage collector controller (`garbagecollector`): discovery names the resources to
 * monitor (re-read every 30 s and when CRDs or APIServices change), the monitors build the
 * dependency graph, and two queues act on it: attemptToDelete (collect objects whose owners are all
 * gone, finish foreground deletions) with --concurrent-gc-syncs workers, and attemptToOrphan.
 * With --enable-garbage-collector=false it does nothing, as kube then does not start it.
 */
import { DiscoveryClient, ResourceWatcher } from '../../client/discovery';
import { RESOURCES } from '../../client/resources';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { OwnerReference } from '../../client/types';
import type { ControllerDefinition } from '../types';
import { GarbageCollector, NamespacedOwnerOfClusterScopedObjectError, VirtualDeleteError } from './garbage-collector';
import { DependencyGraph, type GraphNode } from './graph';
import { deletableResources, Monitors } from './monitors';

/** kube's resync of the monitored resources with discovery */
export const DISCOVERY_PERIOD_MS = 30_000;

const API_SERVICES = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false } as const;

/** kube's message for an owner reference the dependent cannot reach */
export function invalidNamespaceMessage(ref: OwnerReference, namespace: string): string {
  return `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}] does not exist in namespace "${namespace}"`;
}

export const garbageCollectorController: ControllerDefinition = {
  name: 'garbagecollector',
  async start(ctx) {
    if (!ctx.settings.enableGarbageCollector) {
      ctx.logger.info('garbage collector disabled (--enable-garbage-collector=false)');
      return;
    }
    const deleteQueue = new WorkQueue<GraphNode>({ name: 'garbage_collector_attempt_to_delete' });
    const orphanQueue = new WorkQueue<GraphNode>({ name: 'garbage_collector_attempt_to_orphan' });
    let collector: GarbageCollector | undefined;
    const graph = new DependencyGraph(
      {
        attemptToDelete: (n) => deleteQueue.add(n),
        attemptToOrphan: (n) => orphanQueue.add(n),
        invalidOwnerNamespace: (dep, ref, namespace) => {
          const { apiVersion, kind, name, uid } = dep.identity;
          const involved = { apiVersion, kind, metadata: { name, uid, namespace: dep.identity.namespace || undefined } };
          ctx.recorder.event(involved, 'Warning', 'OwnerRefInvalidNamespace', invalidNamespaceMessage(ref, namespace));
        },
      },
      (apiVersion, kind) => collector?.isNamespaced(apiVersion, kind),
    );
    collector = new GarbageCollector({ client: ctx.client, graph, recorder: ctx.recorder, logger: ctx.logger, enqueueDelete: (n) => deleteQueue.add(n) });
    const gc = collector;
    const monitors = new Monitors({ client: ctx.client, graph, logger: ctx.logger, signal: ctx.signal });
    const watcher = new ResourceWatcher({
      discovery: new DiscoveryClient(ctx.client),
      periodMs: DISCOVERY_PERIOD_MS,
      logger: ctx.logger,
      signal: ctx.signal,
      async onChange(result) {
        // kube keeps what it could read when a group fails; the rest is retried next period
        const unreadable = new Set(result.failed.keys());
        gc.setResources(result.resources, unreadable);
        await monitors.sync(deletableResources(result.resources), ctx.signal, unreadable);
      },
    });
    // new kinds come from CRDs and aggregated APIs: re-read discovery when they change
    const retrigger = { add: (_o: unknown, initial: boolean) => !initial && watcher.trigger(), update: () => watcher.trigger(), delete: () => watcher.trigger() };
    ctx.informers.informerFor(RESOURCES.customResourceDefinitions).addEventHandler(retrigger, 0);
    ctx.informers.informerFor(API_SERVICES).addEventHandler(retrigger, 0);
    ctx.signal.addEventListener('abort', () => {
      deleteQueue.shutDown();
      orphanQueue.shutDown();
    }, { once: true });

    await ctx.informers.waitForCacheSync(ctx.signal);
    // the first monitors must have listed before any decision (kube waits for the graph to sync)
    for (;;) {
      if (ctx.signal.aborted) return;
      try {
        await watcher.refresh();
        break;
      } catch (err) {
        ctx.logger.warn({ err: (err as Error).message }, 'garbage collector: initial discovery failed; retrying');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    const watching = watcher.run();
    const onError = (what: string) => (node: GraphNode, err: unknown) => {
      if (err instanceof VirtualDeleteError) return;
      ctx.logger.info({ object: node.identity, err: (err as Error).message }, `${what} failed; will retry`);
    };
    const deleting = runWorkers(
      deleteQueue,
      ctx.settings.concurrentGcSyncs,
      async (node) => {
        try {
          await gc.attemptToDelete(node);
        } catch (err) {
          if (err instanceof VirtualDeleteError) return;
          // kube: retrying cannot resolve a cluster-scoped object's namespaced owner
          if (err instanceof NamespacedOwnerOfClusterScopedObjectError) {
            ctx.logger.info({ object: node.identity }, err.message);
            return;
          }
          throw err;
        }
        // an owner we know only from references stays in the queue until it is observed
        if (!node.observed && graph.node(node.identity.uid) === node) deleteQueue.addRateLimited(node);
      },
      onError('attemptToDelete'),
    );
    // kube runs as many orphaning workers as deleting ones
    const orphaning = runWorkers(orphanQueue, ctx.settings.concurrentGcSyncs, (node) => gc.attemptToOrphan(node), onError('attemptToOrphan'));
    await Promise.all([deleting, orphaning, watching]);
    await monitors.stopped();
  },
};
