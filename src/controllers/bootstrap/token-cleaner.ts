/**
 * kube's tokencleaner (pkg/controller/bootstrap/tokencleaner.go): a bootstrap token secret is
 * deleted when its expiration passes; until then it is looked at again when it is due.
 */
import { isConflict, isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import { objectKey } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerDefinition } from '../types';
import { isBootstrapToken, msUntilExpiry } from './bootstrap-tokens';

export const tokenCleanerController: ControllerDefinition = {
  name: 'tokencleaner',
  async start(ctx) {
    const queue = new WorkQueue<string>({ name: 'token_cleaner' });
    const secrets = ctx.informers.informerFor(RESOURCES.secrets);
    const onSecret = (s: Parameters<typeof isBootstrapToken>[0]) => {
      if (isBootstrapToken(s)) queue.add(objectKey(s));
    };
    secrets.addEventHandler({ add: onSecret, update: (_o, s) => onSecret(s) });
    ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
    if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;
    await runWorkers(
      queue,
      1,
      async (key) => {
        const secret = secrets.store.get(key);
        if (!secret || secret.metadata?.deletionTimestamp) return;
        const left = msUntilExpiry(secret, Date.now());
        if (left === undefined) return;
        if (left > 0) return queue.addAfter(key, left + 100);
        ctx.logger.info({ secret: key }, 'Deleting expired bootstrap token secret');
        try {
          await ctx.client.delete(RESOURCES.secrets, secret.metadata?.namespace, secret.metadata?.name ?? '', { preconditions: { uid: secret.metadata?.uid } });
        } catch (err) {
          if (!isNotFound(err) && !isConflict(err)) throw err;
        }
      },
      (key, err) => ctx.logger.error({ err, secret: key }, 'cleaning a bootstrap token failed'),
    );
  },
};
