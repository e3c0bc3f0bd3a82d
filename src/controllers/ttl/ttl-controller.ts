/**
 * kube's TTL controller (pkg/controller/ttl): every node carries the annotation
 * node.alpha.kubernetes.io/ttl, the seconds node agents may cache secrets and config maps, chosen
 * by cluster size. The steps overlap (a step is left downwards only below its lower bound, upwards
 * only above its upper bound) so a cluster at a boundary does not flap.
 */
import type { Logger } from 'pino';
import { isNotFound } from '../../client/errors';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';

export const TTL_ANNOTATION = 'node.alpha.kubernetes.io/ttl';

export interface TtlBoundary {
  sizeMin: number;
  sizeMax: number;
  ttlSeconds: number;
}

/** kube's ttlBoundaries */
export const TTL_BOUNDARIES: readonly TtlBoundary[] = Object.freeze([
  { sizeMin: 0, sizeMax: 100, ttlSeconds: 0 },
  { sizeMin: 90, sizeMax: 500, ttlSeconds: 15 },
  { sizeMin: 450, sizeMax: 1000, ttlSeconds: 30 },
  { sizeMin: 900, sizeMax: 2000, ttlSeconds: 60 },
  { sizeMin: 1800, sizeMax: Number.MAX_SAFE_INTEGER, ttlSeconds: 300 },
]);

/** the step after a change of the node count, from the current step (kube's hysteresis) */
export function nextBoundaryStep(step: number, nodeCount: number): number {
  while (step + 1 < TTL_BOUNDARIES.length && nodeCount > TTL_BOUNDARIES[step]!.sizeMax) step++;
  while (step > 0 && nodeCount < TTL_BOUNDARIES[step]!.sizeMin) step--;
  return step;
}

/** kube's workers for this controller */
const WORKERS = 5;

export class TtlController {
  readonly #ctx: ControllerContext;
  readonly #log: Logger;
  readonly #nodes: SharedInformer;
  readonly #queue = new WorkQueue<string>({ name: 'ttlcontroller' });
  #nodeCount = 0;
  #step = 0;

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#log = ctx.logger;
    this.#nodes = ctx.informers.informerFor(RESOURCES.nodes);
    this.#nodes.addEventHandler({
      add: (node) => {
        this.#nodeCount++;
        this.#recount();
        this.#queue.add(node.metadata?.name ?? '');
      },
      update: (_old, node) => this.#queue.add(node.metadata?.name ?? ''),
      delete: () => {
        this.#nodeCount = Math.max(0, this.#nodeCount - 1);
        this.#recount();
      },
    });
  }

  #recount(): void {
    const step = nextBoundaryStep(this.#step, this.#nodeCount);
    if (step === this.#step) return;
    this.#step = step;
    // every node's desired TTL changed
    for (const name of this.#nodes.store.keys()) this.#queue.add(name);
  }

  get desiredTtlSeconds(): number {
    return TTL_BOUNDARIES[this.#step]!.ttlSeconds;
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    this.#log.info('Starting TTL controller');
    await runWorkers(this.#queue, WORKERS, (name) => this.#sync(name), (key, err) => this.#log.error({ err, key }, 'error updating the ttl annotation'));
  }

  async #sync(name: string): Promise<void> {
    const node: KubeObject | undefined = this.#nodes.store.get(name);
    if (!node) return;
    const want = String(this.desiredTtlSeconds);
    if (node.metadata?.annotations?.[TTL_ANNOTATION] === want) return;
    try {
      await this.#ctx.client.patch(RESOURCES.nodes, undefined, name, 'strategic', { metadata: { annotations: { [TTL_ANNOTATION]: want } } });
      this.#log.debug({ node: name, ttl: want }, 'changed the ttl annotation');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
