import t from 'tap';
import { controllerEnabled, controllersFlagProblem, KNOWN_CONTROLLERS } from '../../src/controllers/names';
import { RESOURCES } from '../../src/client/resources';
import type { ControllerDefinition } from '../../src/controllers/types';
import { runWorkers, WorkQueue } from '../../src/client/workqueue';
import { objectKey, splitKey } from '../../src/client/types';
import { missingKubectl, startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

t.test('--controllers as kube reads it', async (t) => {
  t.ok(controllerEnabled('deployment', ['*']));
  t.notOk(controllerEnabled('bootstrapsigner', ['*']), 'off by default');
  t.ok(controllerEnabled('bootstrapsigner', ['*', 'bootstrapsigner']));
  t.notOk(controllerEnabled('deployment', ['*', '-deployment']));
  t.notOk(controllerEnabled('deployment', ['-deployment', '*']));
  t.notOk(controllerEnabled('job', ['deployment']), 'without * only the named ones');
  t.equal(controllersFlagProblem(['*', '-ttl', 'job']), undefined);
  t.equal(controllersFlagProblem(['bogus']), '"bogus" is not in the list of known controllers');
  t.equal(controllersFlagProblem(['-bogus']), '"bogus" is not in the list of known controllers');
  t.equal(KNOWN_CONTROLLERS.length, 38);
});

/** a toy controller: labels every ConfigMap `seen=yes`, through an informer and a work queue */
const labeller: ControllerDefinition = {
  name: 'test-labeller',
  async start(ctx) {
    const queue = new WorkQueue<string>();
    const informer = ctx.informers.informerFor(RESOURCES.configMaps);
    informer.addEventHandler({ add: (o) => queue.add(objectKey(o)), update: (_o, n) => queue.add(objectKey(n)) });
    ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
    await ctx.informers.waitForCacheSync(ctx.signal);
    await runWorkers(queue, 2, async (key) => {
      const cm = informer.store.get(key);
      if (!cm || cm.metadata?.labels?.seen === 'yes') return;
      const { namespace, name } = splitKey(key);
      await ctx.client.patch(RESOURCES.configMaps, namespace, name, 'merge', { metadata: { labels: { seen: 'yes' } } });
      ctx.recorder.event(cm, 'Normal', 'Labelled', 'seen');
    });
  },
};

t.test('controllers run against the real server through informers and a work queue', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client, stop } = startControllers(t, server, [labeller]);
  await client.create(RESOURCES.configMaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  await waitFor('the label', async () => (await client.get(RESOURCES.configMaps, 'default', 'a')).metadata?.labels?.seen === 'yes');
  await waitFor('the event', async () => (await client.list(RESOURCES.events, 'default')).items.some((e) => e.reason === 'Labelled'));
  await stop();
  t.pass('stops when asked');
});
