/**
 * kube's ServiceAccountsController (pkg/controller/serviceaccount/serviceaccounts_controller.go):
 * every active namespace has the `default` ServiceAccount. A namespace is synced when it appears or
 * changes, and when one of the accounts it should hold is deleted, so a deleted account comes back.
 * Terminating namespaces are left alone (creating there would fail anyway).
 */
import { isAlreadyExists } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerDefinition } from '../types';

/** the accounts every namespace gets (kube's --service-account names default to ["default"]) */
export const ENSURED_SERVICE_ACCOUNTS = Object.freeze(['default']);

export function namespaceActive(ns: KubeObject | undefined): ns is KubeObject {
  if (!ns || ns.metadata?.deletionTimestamp) return false;
  return (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating';
}

export const serviceAccountController: ControllerDefinition = {
  name: 'serviceaccount',
  async start(ctx) {
    const queue = new WorkQueue<string>({ name: 'serviceaccount' });
    const namespaces = ctx.informers.informerFor(RESOURCES.namespaces);
    const accounts = ctx.informers.informerFor(RESOURCES.serviceAccounts);
    namespaces.addEventHandler({ add: (ns) => queue.add(ns.metadata?.name ?? ''), update: (_o, ns) => queue.add(ns.metadata?.name ?? '') });
    accounts.addEventHandler({
      delete: (sa) => {
        if (ENSURED_SERVICE_ACCOUNTS.includes(sa.metadata?.name ?? '')) queue.add(sa.metadata?.namespace ?? '');
      },
    });
    ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
    if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;
    await runWorkers(
      queue,
      1,
      async (name) => {
        const ns = namespaces.store.get(name);
        if (!namespaceActive(ns)) return;
        for (const sa of ENSURED_SERVICE_ACCOUNTS) {
          if (accounts.store.getObject(name, sa)) continue;
          try {
            await ctx.client.create(RESOURCES.serviceAccounts, name, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } });
          } catch (err) {
            if (!isAlreadyExists(err)) throw err;
          }
        }
      },
      (key, err) => ctx.logger.error({ err, namespace: key }, 'syncing service accounts failed'),
    );
  },
};
