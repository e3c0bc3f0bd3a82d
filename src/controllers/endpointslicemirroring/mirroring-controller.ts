/**
 * kube's endpointslicemirroring controller: the Endpoints of Services WITHOUT a selector (written
 * by a user or another controller) mirrored into EndpointSlices, so that consumers of slices see
 * them too. Endpoints labelled endpointslice.kubernetes.io/skip-mirror=true (the API server's own
 * `kubernetes` Service) or used as a leader-election lock are not mirrored; when an Endpoints goes,
 * or its Service goes or gains a selector, the mirrored slices are deleted.
 */
import type { Logger } from 'pino';
import { isNotFound } from '../../client/errors';
import { NAMESPACE_INDEX, byNamespace } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, splitKey, type KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { finalizeSlices } from '../endpointslice/finalize';
import { asSlice, MANAGED_BY_LABEL, serviceKeyOf, SERVICE_NAME_LABEL } from '../endpointslice/slice-util';
import { EndpointSliceTracker, StaleCacheError, trackedSliceHandlers } from '../endpointslice/tracker';
import { hasSelector } from '../util/service-pods';
import { MIRRORING_CONTROLLER_NAME, planMirror } from './reconciler';

export const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
export const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

/** kube's shouldMirror */
export function shouldMirror(endpoints: KubeObject | undefined): boolean {
  if (!endpoints) return false;
  return endpoints.metadata?.labels?.[SKIP_MIRROR_LABEL] !== 'true' && endpoints.metadata?.annotations?.[LEADER_ANNOTATION] === undefined;
}

export interface MirroringControllerOptions {
  ctx: ControllerContext;
  workers: number;
  batchPeriodMs: number;
  maxEndpointsPerSubset: number;
}

const mirroredByUs = (slice: KubeObject) => slice.metadata?.labels?.[MANAGED_BY_LABEL] === MIRRORING_CONTROLLER_NAME;

export class EndpointSliceMirroringController {
  readonly #ctx: ControllerContext;
  readonly #o: MirroringControllerOptions;
  readonly #queue = new WorkQueue<string>({ name: 'endpoint_slice_mirroring' });
  readonly #services: SharedInformer;
  readonly #endpoints: SharedInformer;
  readonly #slices: SharedInformer;
  readonly #tracker = new EndpointSliceTracker(serviceKeyOf);
  readonly #log: Logger;

  constructor(o: MirroringControllerOptions) {
    this.#ctx = o.ctx;
    this.#o = o;
    this.#log = o.ctx.logger;
    const inf = o.ctx.informers;
    this.#services = inf.informerFor(RESOURCES.services);
    this.#endpoints = inf.informerFor(RESOURCES.endpoints);
    this.#slices = inf.informerFor(RESOURCES.endpointSlices);
    this.#slices.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#services.addEventHandler({
      add: (svc) => this.#queue.add(objectKey(svc)),
      update: (old, svc) => {
        if (hasSelector(old) !== hasSelector(svc)) this.#queue.add(objectKey(svc));
      },
      delete: (svc) => this.#queue.add(objectKey(svc)),
    });
    this.#endpoints.addEventHandler({
      add: (ep) => {
        if (shouldMirror(ep)) this.#queueEndpoints(objectKey(ep));
      },
      update: (old, ep) => {
        if (shouldMirror(old) || shouldMirror(ep)) this.#queueEndpoints(objectKey(ep));
      },
      delete: (ep) => this.#queueEndpoints(objectKey(ep)),
    });
    this.#slices.addEventHandler(trackedSliceHandlers(this.#tracker, mirroredByUs, (s) => this.#queueForSlice(s)));
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    await runWorkers(this.#queue, this.#o.workers, (key) => this.#sync(key), (key, err) => {
      if (err instanceof StaleCacheError) this.#log.debug({ key }, err.message);
      else this.#log.error({ err, key }, 'error mirroring endpoints');
    });
  }

  #queueEndpoints(key: string): void {
    this.#queue.addAfter(key, this.#o.batchPeriodMs);
  }

  #queueForSlice(slice: KubeObject): void {
    const key = serviceKeyOf(slice);
    if (key) this.#queue.addAfter(key, this.#o.batchPeriodMs);
  }

  #mirroredSlices(namespace: string | undefined, name: string): KubeObject[] {
    return this.#slices.store
      .byIndex(NAMESPACE_INDEX, namespace ?? '')
      .filter((s) => s.metadata?.labels?.[SERVICE_NAME_LABEL] === name && mirroredByUs(s));
  }

  async #sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const svc = this.#services.store.get(key);
    const endpoints = this.#endpoints.store.get(key);
    const slices = this.#mirroredSlices(namespace, name);
    if (this.#tracker.stale(key, slices)) throw new StaleCacheError(`endpoints ${key}`);
    if (!svc || hasSelector(svc) || !endpoints || !shouldMirror(endpoints)) {
      await this.#deleteSlices(slices);
      if (!svc) this.#tracker.forgetService(key);
      return;
    }
    const owner: KubeObject = { ...endpoints, apiVersion: 'v1', kind: 'Endpoints' };
    const plan = planMirror(owner, slices.map(asSlice), this.#o.maxEndpointsPerSubset);
    if (plan.invalid > 0) {
      this.#ctx.recorder.event(owner, 'Warning', 'InvalidIPAddress', `Skipped ${plan.invalid} invalid IP addresses when mirroring to EndpointSlices`);
    }
    if (plan.skipped > plan.invalid) {
      this.#ctx.recorder.event(owner, 'Warning', 'TooManyAddressesToMirror',
        `A max of ${this.#o.maxEndpointsPerSubset} addresses can be mirrored to EndpointSlices per Endpoints subset. ${plan.skipped} addresses were skipped`);
    }
    await finalizeSlices({
      client: this.#ctx.client,
      tracker: this.#tracker,
      owner,
      plan,
      // kube's mirroring reuses any slice it is about to delete
      canReuse: () => true,
    });
  }

  async #deleteSlices(slices: KubeObject[]): Promise<void> {
    for (const s of slices) {
      this.#tracker.expectDeletion(s);
      try {
        await this.#ctx.client.delete(RESOURCES.endpointSlices, s.metadata?.namespace, s.metadata?.name ?? '');
      } catch (err) {
        this.#tracker.forget(s);
        if (!isNotFound(err)) throw err;
      }
    }
  }
}
