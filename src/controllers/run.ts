/**
 * Run a set of controllers against one API server: each gets its context, registers its informer
 * handlers, then the shared informers start and the controllers' workers run until the signal
 * aborts. The controller manager command (leader election, serving, options) wraps this; tests call
 * it directly against a real API server.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { EventRecorder } from '../client/events';
import { InformerFactory } from '../client/informer-factory';
import type { RestClient } from '../client/rest-client';
import { sleep } from '../client/sleep';
import type { ControllerDefinition } from './types';
import type { ControllerSettings } from './settings';

export interface RunControllersOptions {
  /** the manager's own client (informers use it) */
  client: RestClient;
  /** each controller's client; default the manager's (kube's --use-service-account-credentials gives each its own) */
  clientFor?: (controller: string) => RestClient;
  controllers: readonly ControllerDefinition[];
  settings: ControllerSettings;
  logger: Logger;
  signal: AbortSignal;
  /** --controller-start-interval: a pause between two controllers' starts */
  startIntervalMs?: number;
  /** host name in the events' source */
  host?: string;
}

export async function runControllers(o: RunControllersOptions): Promise<void> {
  // every controller, queue and informer listens for the one stop signal: no leak warning for that
  setMaxListeners(0, o.signal);
  // client-go's ResyncPeriod: a random period between the minimum and twice it, per manager
  const resyncMs = Math.floor(o.settings.minResyncPeriodMs * (1 + Math.random()));
  const informers = new InformerFactory(o.client, { resyncMs, logger: o.logger.child({ component: 'informers' }) });
  const runs: Promise<void>[] = [];
  for (const c of o.controllers) {
    if (o.signal.aborted) break;
    const client = o.clientFor?.(c.name) ?? o.client;
    const logger = o.logger.child({ controller: c.name });
    const recorder = new EventRecorder(client, { component: `${c.name}-controller`, host: o.host }, logger);
    logger.info(`Starting "${c.name}"`);
    runs.push(
      c.start({ client, informers, recorder, logger, settings: o.settings, signal: o.signal }).catch((err: unknown) => {
        logger.error({ err }, `controller "${c.name}" stopped with an error`);
      }),
    );
    if (o.startIntervalMs) await sleep(o.startIntervalMs * (1 + Math.random()), o.signal);
  }
  informers.start(o.signal);
  await Promise.all(runs);
  await informers.stopped();
}
