/**
 * kube's endpoint controller (pkg/controller/endpoint): for every Service with a selector, keep
 * the Endpoints object of the same name listing the selected pods' addresses and ports. A Service
 * without a selector is left alone (its Endpoints belong to whoever wrote them); when the Service
 * goes, its Endpoints go too. Pod changes are batched per service for
 * --endpoint-updates-batch-period before a sync.
 */
import type { Logger } from 'pino';
import { isAlreadyExists, isConflict, isNotFound } from '../../client/errors';
import { NAMESPACE_INDEX, byNamespace } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, splitKey, type KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import {
  hasSelector, isServiceIPSet, serviceSelects, servicesForPodChange, servicesSelecting,
} from '../util/service-pods';
import { formatTriggerTime, LAST_CHANGE_TRIGGER_TIME, TriggerTimeTracker } from '../util/trigger-time';
import { computeSubsets } from './subsets';
import { errorMessage, isNamespaceTerminating } from '../util/errors';

export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
/** the annotation of an Endpoints used as a leader-election lock (client-go's resourcelock) */
export const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

export interface EndpointsControllerOptions {
  ctx: ControllerContext;
  workers: number;
  batchPeriodMs: number;
}

/** the Endpoints' labels: the service's, plus the headless label when it has no cluster IP */
export function endpointsLabels(svc: KubeObject): Record<string, string> {
  const labels: Record<string, string> = { ...(svc.metadata?.labels ?? {}) };
  if (!isServiceIPSet(svc)) labels[HEADLESS_LABEL] = '';
  else delete labels[HEADLESS_LABEL];
  return labels;
}

export class EndpointsController {
  readonly #ctx: ControllerContext;
  readonly #workers: number;
  readonly #batchMs: number;
  readonly #queue = new WorkQueue<string>({ name: 'endpoint' });
  readonly #services: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #endpoints: SharedInformer;
  readonly #triggerTimes = new TriggerTimeTracker();
  readonly #log: Logger;

  constructor(o: EndpointsControllerOptions) {
    this.#ctx = o.ctx;
    this.#workers = o.workers;
    this.#batchMs = o.batchPeriodMs;
    this.#log = o.ctx.logger;
    this.#services = o.ctx.informers.informerFor(RESOURCES.services);
    this.#pods = o.ctx.informers.informerFor(RESOURCES.pods);
    this.#endpoints = o.ctx.informers.informerFor(RESOURCES.endpoints);
    this.#services.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#pods.addIndexer(NAMESPACE_INDEX, byNamespace);
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
    // Endpoints deleted by someone else while their service still selects pods: write them again
    this.#endpoints.addEventHandler({
      delete: (ep) => {
        const svc = this.#services.store.get(objectKey(ep));
        if (svc && hasSelector(svc)) this.#queue.add(objectKey(ep));
      },
    });
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    this.#checkLeftoverEndpoints();
    await runWorkers(this.#queue, this.#workers, (key) => this.#sync(key), (key, err) => {
      this.#log.error({ err, key }, 'error syncing endpoints');
    });
  }

  /**
   * kube's checkLeftoverEndpoints, once at start: every Endpoints is synced, so those whose Service
   * went while no controller watched are deleted; leader-election locks (Endpoints without a
   * Service by design) are skipped.
   */
  #checkLeftoverEndpoints(): void {
    for (const ep of this.#endpoints.store.list()) {
      if (ep.metadata?.annotations?.[LEADER_ANNOTATION] !== undefined) continue;
      this.#queue.add(objectKey(ep));
    }
  }

  /** pod changes wait out the batch period, so a burst of them costs one write */
  #queueServices(services: KubeObject[]): void {
    for (const svc of services) this.#queue.addAfter(objectKey(svc), this.#batchMs);
  }

  async #sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const svc = this.#services.store.get(key);
    if (!svc) {
      this.#triggerTimes.forget(namespace, name);
      try {
        await this.#ctx.client.delete(RESOURCES.endpoints, namespace, name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      return;
    }
    // no selector: the Endpoints are the user's (or another controller's)
    if (!hasSelector(svc)) return;
    const pods = this.#pods.store.byIndex(NAMESPACE_INDEX, namespace ?? '').filter((p) => serviceSelects(svc, p));
    const triggerTime = this.#triggerTimes.compute(svc, pods);
    const subsets = computeSubsets(svc, pods);
    const labels = endpointsLabels(svc);

    const current = this.#endpoints.store.get(key);
    if (current) {
      const currentLabels = { ...(current.metadata?.labels ?? {}) };
      const serviceLabels = { ...(svc.metadata?.labels ?? {}) };
      // kube compares without the headless label, which it adds itself
      delete currentLabels[HEADLESS_LABEL];
      delete serviceLabels[HEADLESS_LABEL];
      if (sameJSON(current.subsets ?? [], subsets) && sameJSON(sortKeys(currentLabels), sortKeys(serviceLabels))) return;
    }
    const annotations = { ...(current?.metadata?.annotations ?? {}) };
    if (triggerTime) annotations[LAST_CHANGE_TRIGGER_TIME] = formatTriggerTime(triggerTime);
    else delete annotations[LAST_CHANGE_TRIGGER_TIME];
    const metadata = { ...(current?.metadata ?? { name, namespace }), labels, annotations };
    const wanted: KubeObject = { apiVersion: 'v1', kind: 'Endpoints', metadata, subsets };
    const eventTarget: KubeObject = { ...wanted, metadata: { ...metadata, name, namespace } };
    try {
      if (current) await this.#ctx.client.update(RESOURCES.endpoints, wanted);
      else await this.#ctx.client.create(RESOURCES.endpoints, namespace, wanted);
    } catch (err) {
      // a namespace being deleted refuses new objects: nothing to retry (kube's NamespaceTerminatingCause)
      if (!current && isNamespaceTerminating(err)) return;
      // our cache is behind our own last write: retry from the newer state, no event
      if (isAlreadyExists(err) || isConflict(err)) throw err;
      const verb = current ? 'FailedToUpdateEndpoint' : 'FailedToCreateEndpoint';
      const what = current ? 'update' : 'create';
      this.#ctx.recorder.event(eventTarget, 'Warning', verb, `Failed to ${what} endpoint ${namespace}/${name}: ${errorMessage(err)}`);
      throw err;
    }
  }
}

function sortKeys(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** absent, or the zero value a decoder may fill in for absent */
function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v as object).length === 0;
}

/** compare by value, key order and empty fields aside */
function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => !isEmpty(x)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, canonical(x)]));
  }
  return v;
}
