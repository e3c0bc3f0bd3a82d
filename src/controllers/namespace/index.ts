/**
 * kube's namespace controller (`namespace`): every namespace with a deletionTimestamp is emptied
 * (NamespaceContentDeleter) by --concurrent-namespace-syncs workers, looked at again after the
 * estimated wait while content remains, and at every --namespace-sync-period resync.
 */
import { RESOURCES } from '../../client/resources';
import { objectKey, type KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerDefinition } from '../types';
import { NamespaceContentDeleter, ResourcesRemainingError } from './content-deleter';

export const namespaceController: ControllerDefinition = {
  name: 'namespace',
  async start(ctx) {
    const queue = new WorkQueue<string>({ name: 'namespace' });
    const deleter = new NamespaceContentDeleter({ client: ctx.client, logger: ctx.logger });
    const enqueue = (ns: KubeObject) => {
      // kube: only namespaces being deleted are the controller's business
      if (ns.metadata?.deletionTimestamp) queue.add(objectKey(ns));
    };
    ctx.informers.informerFor(RESOURCES.namespaces).addEventHandler({ add: enqueue, update: (_old, ns) => enqueue(ns) }, ctx.settings.namespaceSyncPeriodMs);
    ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
    await ctx.informers.waitForCacheSync(ctx.signal);
    await runWorkers(
      queue,
      ctx.settings.concurrentNamespaceSyncs,
      async (name) => {
        const started = Date.now();
        try {
          await deleter.delete(name);
        } catch (err) {
          if (!(err instanceof ResourcesRemainingError)) throw err;
          // kube looks again after half the estimate (plus a second)
          ctx.logger.debug({ namespace: name, estimateSeconds: err.estimateSeconds }, 'content remaining in namespace');
          queue.addAfter(name, (Math.floor(err.estimateSeconds / 2) + 1) * 1000);
        } finally {
          ctx.logger.debug({ namespace: name, ms: Date.now() - started }, 'finished syncing namespace');
        }
      },
      (name, err) => ctx.logger.info({ namespace: name, err: (err as Error).message }, 'deletion of namespace failed; will retry'),
    );
  },
};
