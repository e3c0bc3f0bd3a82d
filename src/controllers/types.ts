/**
 * What a controller is to the controller manager: a name (kube's, as `--controllers` spells it),
 * whether kube runs it by default, and a start function that runs it until the context's signal
 * aborts. Controllers reach the cluster only through the API (DESIGN.md): the context gives each a
 * REST client, the manager's shared informers, an event recorder and the settings of its options.
 */
import type { Logger } from 'pino';
import type { EventRecorder } from '../client/events';
import type { InformerFactory } from '../client/informer-factory';
import type { RestClient } from '../client/rest-client';
import type { ControllerSettings } from './settings';

export interface ControllerContext {
  /** the controller's client (its own service account's with --use-service-account-credentials) */
  readonly client: RestClient;
  /** informers shared by every controller of this manager; ask before `started` resolves */
  readonly informers: InformerFactory;
  /** events recorded as the component `<controller>-controller` (kube's sources) */
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly settings: ControllerSettings;
  /** aborts when the manager stops (shutdown, or leadership lost) */
  readonly signal: AbortSignal;
}

export interface ControllerDefinition {
  /** kube's controller name, e.g. `replicaset` */
  readonly name: string;
  /**
   * Set up handlers on ctx.informers, then return a promise of the controller's run (its workers
   * until ctx.signal aborts). The manager starts the informers after every controller has
   * registered its handlers, and waits for their first lists before workers should act: use
   * `await ctx.informers.waitForCacheSync(ctx.signal)` at the start of the run.
   */
  start(ctx: ControllerContext): Promise<void>;
}
