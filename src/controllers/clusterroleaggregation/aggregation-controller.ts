/**
 * kube's ClusterRoleAggregationController (pkg/controller/clusterroleaggregation): a ClusterRole with
 * an aggregationRule holds the union of the rules of every cluster role its selectors match
 * (src/api/kinds/rbac/aggregation.ts computes it, as the API server's bootstrap does). Any change to
 * any cluster role re-queues every aggregated role, as kube does.
 */
import { aggregatedRules } from '../../api/kinds/rbac/aggregation';
import { jsonEqual } from '../../api/json-value';
import { isConflict, isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerDefinition } from '../types';

const aggregated = (role: KubeObject) => !!role.aggregationRule && typeof role.aggregationRule === 'object';

export const clusterRoleAggregationController: ControllerDefinition = {
  name: 'clusterrole-aggregation',
  async start(ctx) {
    const queue = new WorkQueue<string>({ name: 'ClusterRoleAggregator' });
    const roles = ctx.informers.informerFor(RESOURCES.clusterRoles);
    const enqueueAggregated = () => {
      for (const r of roles.store.list()) if (aggregated(r)) queue.add(r.metadata?.name ?? '');
    };
    roles.addEventHandler({ add: enqueueAggregated, update: enqueueAggregated, delete: enqueueAggregated });
    ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
    if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;
    enqueueAggregated();
    await runWorkers(
      queue,
      5,
      async (name) => {
        const role = roles.store.get(name);
        if (!role || !aggregated(role)) return;
        const rules = aggregatedRules(role as never, roles.store.list() as never);
        if (jsonEqual(rules, role.rules ?? [])) return;
        try {
          await ctx.client.update(RESOURCES.clusterRoles, { ...role, rules });
        } catch (err) {
          // a stale cache: the role's next event brings the newest version back here
          if (isNotFound(err)) return;
          if (isConflict(err)) queue.add(name);
          else throw err;
        }
      },
      (key, err) => ctx.logger.error({ err, clusterRole: key }, 'aggregating cluster role rules failed'),
    );
  },
};
