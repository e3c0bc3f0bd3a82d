/**
 * kube's endpointslice controller (pkg/controller/endpointslice): for every Service with a
 * selector, EndpointSlices (managed-by endpointslice-controller.k8s.io, owned by the Service)
 * holding the selected pods as endpoints, at most --max-endpoints-per-slice each. Pod changes are
 * batched for --endpointslice-updates-batch-period. Slices of a deleted Service are left to the
 * garbage collector (they carry its owner reference), as kube does.
 */
import type { Logger } from 'pino';
import { NAMESPACE_INDEX, byNamespace } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, splitKey, type KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { hasSelector, serviceSelects, servicesForPodChange, servicesSelecting } from '../util/service-pods';
import { TriggerTimeTracker } from '../util/trigger-time';
import { finalizeSlices } from './finalize';
import { ownedBy, planSlices } from './reconciler';
import { asSlice, CONTROLLER_NAME, MANAGED_BY_LABEL, serviceKeyOf, SERVICE_NAME_LABEL } from './slice-util';
import { EndpointSliceTracker, StaleCacheError, trackedSliceHandlers } from './tracker';
import { errorMessage } from '../util/errors';

/** kube's endpointSliceChangeMinSyncDelay: a slice changed by someone else is looked at after this */
const SLICE_CHANGE_MIN_SYNC_DELAY_MS = 1000;

export interface EndpointSliceControllerOptions {
  ctx: ControllerContext;
  workers: number;
  batchPeriodMs: number;
  maxEndpointsPerSlice: number;
}

const managedByUs = (slice: KubeObject) => slice.metadata?.labels?.[MANAGED_BY_LABEL] === CONTROLLER_NAME;

export class EndpointSliceController {
  readonly #ctx: ControllerContext;
  readonly #o: EndpointSliceControllerOptions;
  readonly #queue = new WorkQueue<string>({ name: 'endpoint_slice' });
  readonly #services: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #nodes: SharedInformer;
  readonly #slices: SharedInformer;
  readonly #tracker = new EndpointSliceTracker(serviceKeyOf);
  readonly #triggerTimes = new TriggerTimeTracker();
  readonly #log: Logger;

  constructor(o: EndpointSliceControllerOptions) {
    this.#ctx = o.ctx;
    this.#o = o;
    this.#log = o.ctx.logger;
    const inf = o.ctx.informers;
    this.#services = inf.informerFor(RESOURCES.services);
    this.#pods = inf.informerFor(RESOURCES.pods);
    this.#nodes = inf.informerFor(RESOURCES.nodes);
    this.#slices = inf.informerFor(RESOURCES.endpointSlices);
    this.#services.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#pods.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#slices.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#services.addEventHandler({
      add: (svc) => this.#queue.add(objectKey(svc)),
      update: (_old, svc) => this.#queue.add(objectKey(svc)),
      delete: (svc) => this.#queue.add(objectKey(svc)),
    });
    this.#pods.addEventHandler({
      add: (pod) => this.#queueServices(servicesSelecting(this.#services.store, pod)),
      update: (old, pod) => this.#queueServices(servicesForPodChange(this.#services.store, old, pod)),
      delete: (pod) => this.#queueServices(servicesSelecting(this.#services.store, pod)),
    });
    this.#slices.addEventHandler(trackedSliceHandlers(this.#tracker, managedByUs, (s) => this.#queueForSlice(s)));
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    await runWorkers(this.#queue, this.#o.workers, (key) => this.#sync(key), (key, err) => {
      if (err instanceof StaleCacheError) this.#log.debug({ key }, err.message);
      else this.#log.error({ err, key }, 'error syncing endpoint slices');
    });
  }

  #queueServices(services: KubeObject[]): void {
    for (const svc of services) this.#queue.addAfter(objectKey(svc), this.#o.batchPeriodMs);
  }

  #queueForSlice(slice: KubeObject): void {
    const key = serviceKeyOf(slice);
    if (key) this.#queue.addAfter(key, this.#o.batchPeriodMs + SLICE_CHANGE_MIN_SYNC_DELAY_MS);
  }

  async #sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const cached = this.#services.store.get(key);
    if (!cached) {
      this.#triggerTimes.forget(namespace, name);
      this.#tracker.forgetService(key);
      return;
    }
    if (!hasSelector(cached)) return;
    const svc: KubeObject = { ...cached, apiVersion: 'v1', kind: 'Service' };
    const pods = this.#pods.store.byIndex(NAMESPACE_INDEX, namespace ?? '').filter((p) => serviceSelects(svc, p));
    const slices = this.#slices.store
      .byIndex(NAMESPACE_INDEX, namespace ?? '')
      .filter((s) => s.metadata?.labels?.[SERVICE_NAME_LABEL] === name && managedByUs(s));
    if (this.#tracker.stale(key, slices)) throw new StaleCacheError(`service ${key}`);
    const triggerTime = this.#triggerTimes.compute(svc, pods);
    const plan = planSlices({
      service: svc,
      pods,
      existing: slices.map(asSlice),
      nodeOf: (n) => this.#nodes.store.get(n),
      maxEndpointsPerSlice: this.#o.maxEndpointsPerSlice,
    });
    try {
      await finalizeSlices({
        client: this.#ctx.client,
        tracker: this.#tracker,
        owner: svc,
        plan,
        canReuse: (old) => ownedBy(old, svc),
        triggerTime,
        noCreates: !!svc.metadata?.deletionTimestamp,
      });
    } catch (err) {
      this.#ctx.recorder.event(svc, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${key}: ${errorMessage(err)}`);
      throw err;
    }
  }
}
