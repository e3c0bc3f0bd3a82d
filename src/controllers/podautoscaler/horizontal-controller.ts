/**
 * kube 1.20's HorizontalPodAutoscaler controller (pkg/controller/podautoscaler/horizontal.go),
 * reading and writing HPAs as autoscaling/v2beta2 (the form kube's controller works in).
 *
 * Every HPA is reconciled once per --horizontal-pod-autoscaler-sync-period: its target's scale
 * subresource gives the current replicas and the pods' selector; each metric proposes a replica
 * count (resource metrics from metrics.k8s.io, see replica-calculator.ts), the highest wins, the
 * proposal is stabilized and bounded (normalize.ts, or behavior.ts with spec.behavior), the scale is updated when it changes, and the
 * status (replicas, current metrics, lastScaleTime, the AbleToScale, ScalingActive and
 * ScalingLimited conditions) is written when it differs.
 */
import type { Logger } from 'pino';
import { parseQuantity } from '../../admission/quantity';
import { parseLabelSelector } from '../../api/selectors';
import { DiscoveryClient } from '../../client/discovery';
import { EventRecorder } from '../../client/events';
import { isNotFound } from '../../client/errors';
import { NAMESPACE_INDEX, byNamespace } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, type KubeObject, type ResourceRef } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { canonicalJson } from '../util/hash';
import { resourceMetrics } from './metrics-client';
import { boundWithBehavior, stabilizeWithBehavior, storeScaleEvent, type Behavior, type BehaviorMemory } from './behavior';
import { boundReplicas, setCondition, stabilize, type HpaCondition } from './normalize';
import { resourceReplicas, type PodMetric } from './replica-calculator';

/** the version kube's controller reconciles in; Ballast serves it (RESOURCES names autoscaling/v1) */
export const HPA_V2BETA2: ResourceRef = Object.freeze({ group: 'autoscaling', version: 'v2beta2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true });

/** kube runs the HPA controller with this many workers (--concurrent-horizontal-pod-autoscaler-syncs came later) */
const WORKERS = 5;

interface MetricTarget {
  type?: string;
  averageUtilization?: number;
  averageValue?: string | number;
}

interface MetricSpec {
  type?: string;
  resource?: { name?: string; target?: MetricTarget };
  pods?: { metric?: { name?: string } };
  object?: { metric?: { name?: string } };
  external?: { metric?: { name?: string } };
}

interface HpaSpec {
  scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string };
  minReplicas?: number;
  maxReplicas?: number;
  metrics?: MetricSpec[];
  behavior?: Behavior;
}

interface HpaStatus {
  currentReplicas?: number;
  desiredReplicas?: number;
  lastScaleTime?: string;
  currentMetrics?: unknown[];
  conditions?: HpaCondition[];
  observedGeneration?: number;
}

interface Scale {
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

/** an error that already set its condition; the sync records it and returns it to the queue */
class ReconcileError extends Error {}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const timestamp = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class HorizontalController {
  readonly #ctx: ControllerContext;
  readonly #log: Logger;
  readonly #recorder: EventRecorder;
  readonly #queue = new WorkQueue<string>({ name: 'horizontalpodautoscaler' });
  readonly #hpas: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #discovery: DiscoveryClient;
  /** kube's recommendations and scale events: each HPA's recent proposals and rescales */
  readonly #recommendations = new Map<string, BehaviorMemory>();

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#log = ctx.logger;
    // kube's HPA events come from `horizontal-pod-autoscaler`
    this.#recorder = new EventRecorder(ctx.client, { component: 'horizontal-pod-autoscaler' }, ctx.logger);
    this.#discovery = new DiscoveryClient(ctx.client);
    this.#hpas = ctx.informers.informerFor(HPA_V2BETA2);
    this.#pods = ctx.informers.informerFor(RESOURCES.pods);
    this.#pods.addIndexer(NAMESPACE_INDEX, byNamespace);
    // kube delays every request by the sync period, so each HPA is reconciled once per period
    const enqueue = (hpa: KubeObject) => this.#queue.addAfter(objectKey(hpa), this.#period);
    this.#hpas.addEventHandler({
      add: (hpa) => this.#queue.add(objectKey(hpa)),
      update: (_old, hpa) => enqueue(hpa),
      delete: (hpa) => this.#recommendations.delete(objectKey(hpa)),
    });
  }

  get #period(): number {
    return this.#ctx.settings.horizontalPodAutoscaler.syncPeriodMs;
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    await runWorkers(this.#queue, WORKERS, async (key) => {
      try {
        await this.#sync(key);
      } finally {
        if (this.#hpas.store.get(key)) this.#queue.addAfter(key, this.#period);
      }
    }, (key, err) => this.#log.info({ key, err: errorText(err) }, 'error reconciling HorizontalPodAutoscaler'), 0);
  }

  async #sync(key: string): Promise<void> {
    const cached = this.#hpas.store.get(key);
    if (!cached) {
      this.#recommendations.delete(key);
      return;
    }
    // events name the HPA as kube's controller knows it (autoscaling/v1)
    const hpa: KubeObject = { ...cached, apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' };
    const original = (cached.status ?? {}) as HpaStatus;
    const state = new HpaState(original);
    try {
      await this.#reconcile(key, hpa, state);
    } finally {
      await this.#writeStatus(cached, original, state.status);
    }
  }

  async #reconcile(key: string, hpa: KubeObject, state: HpaState): Promise<void> {
    const spec = (hpa.spec ?? {}) as HpaSpec;
    const namespace = hpa.metadata?.namespace ?? '';
    const target = spec.scaleTargetRef ?? {};
    const reference = `${target.kind}/${namespace}/${target.name}`;
    const settings = this.#ctx.settings.horizontalPodAutoscaler;

    let scaleRef: ResourceRef;
    let scale: Scale;
    try {
      scaleRef = await this.#targetResource(target.apiVersion ?? '', target.kind ?? '');
      scale = (await this.#ctx.client.get(scaleRef, namespace, target.name ?? '', 'scale')) as Scale;
    } catch (err) {
      this.#recorder.event(hpa, 'Warning', 'FailedGetScale', errorText(err));
      state.condition('AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${errorText(err)}`);
      throw new ReconcileError(`failed to query scale subresource for ${reference}: ${errorText(err)}`);
    }
    state.condition('AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
    const currentReplicas = scale.spec?.replicas ?? 0;
    const now = Date.now();
    if (!this.#recommendations.has(key)) this.#recommendations.set(key, { recommendations: [{ replicas: currentReplicas, at: now }], scaleUpEvents: [], scaleDownEvents: [] });

    const minReplicas = spec.minReplicas ?? 1;
    const maxReplicas = spec.maxReplicas ?? 0;
    let desiredReplicas = 0;
    let rescale = true;
    let rescaleReason = '';
    let metricStatuses = state.status.currentMetrics;
    if (currentReplicas === 0 && minReplicas !== 0) {
      rescale = false;
      state.condition('ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
    } else if (currentReplicas > maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desiredReplicas = maxReplicas;
    } else if (currentReplicas < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desiredReplicas = minReplicas;
    } else {
      let proposal: { replicas: number; metric: string; statuses: unknown[] };
      try {
        proposal = await this.#replicasForMetrics(hpa, scale, spec.metrics?.length ? spec.metrics : [], state);
      } catch (err) {
        state.setCurrentReplicas(currentReplicas);
        this.#recorder.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', errorText(err));
        throw new ReconcileError(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${errorText(err)}`);
      }
      metricStatuses = proposal.statuses;
      desiredReplicas = proposal.replicas;
      if (desiredReplicas > currentReplicas) rescaleReason = `${proposal.metric} above target`;
      if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
      desiredReplicas = spec.behavior
        ? this.#normalizeWithBehavior(key, spec.behavior, state, currentReplicas, desiredReplicas, minReplicas, maxReplicas, Math.trunc(settings.downscaleStabilizationMs / 1000), now)
        : this.#normalize(key, state, currentReplicas, desiredReplicas, minReplicas, maxReplicas, settings.downscaleStabilizationMs, now);
      rescale = desiredReplicas !== currentReplicas;
    }

    if (rescale) {
      try {
        await this.#ctx.client.update(scaleRef, { apiVersion: 'autoscaling/v1', kind: 'Scale', ...scale, spec: { ...scale.spec, replicas: desiredReplicas } } as KubeObject, 'scale');
      } catch (err) {
        this.#recorder.event(hpa, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${errorText(err)}`);
        state.condition('AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${errorText(err)}`);
        state.setCurrentReplicas(currentReplicas);
        throw new ReconcileError(`failed to rescale ${reference}: ${errorText(err)}`);
      }
      state.condition('AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desiredReplicas}`);
      this.#recorder.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`);
      this.#log.info({ key, currentReplicas, desiredReplicas, reason: rescaleReason }, 'successful rescale');
      const memory = this.#recommendations.get(key);
      if (spec.behavior && memory) storeScaleEvent(memory, spec.behavior, currentReplicas, desiredReplicas, Date.now());
    } else {
      desiredReplicas = currentReplicas;
    }
    state.set(currentReplicas, desiredReplicas, metricStatuses, rescale ? timestamp(Date.now()) : undefined);
  }

  /** kube's normalizeDesiredReplicas (HPAs without behavior) */
  #normalize(key: string, state: HpaState, current: number, proposal: number, min: number, max: number, windowMs: number, now: number): number {
    const history = this.#recommendations.get(key)?.recommendations ?? [];
    const stabilized = stabilize(history, proposal, windowMs, now);
    if (stabilized !== proposal) {
      state.condition('AbleToScale', 'True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation');
    } else {
      state.condition('AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size');
    }
    const bounded = boundReplicas(current, stabilized, min, max);
    state.condition('ScalingLimited', bounded.replicas === stabilized ? 'False' : 'True', bounded.reason, bounded.message);
    return bounded.replicas;
  }

  /** kube's normalizeDesiredReplicasWithBehaviors */
  #normalizeWithBehavior(key: string, behavior: Behavior, state: HpaState, current: number, proposal: number, min: number, max: number, defaultDownWindowS: number, now: number): number {
    const memory = this.#recommendations.get(key) ?? { recommendations: [], scaleUpEvents: [], scaleDownEvents: [] };
    this.#recommendations.set(key, memory);
    const stabilized = stabilizeWithBehavior(memory, behavior, current, proposal, defaultDownWindowS, now);
    if (stabilized.replicas !== proposal) state.condition('AbleToScale', 'True', stabilized.reason, stabilized.message);
    else state.condition('AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size');
    const bounded = boundWithBehavior(memory, behavior, current, stabilized.replicas, min, max, now);
    state.condition('ScalingLimited', bounded.replicas === stabilized.replicas ? 'False' : 'True', bounded.reason, bounded.message);
    return bounded.replicas;
  }

  /** kube's computeReplicasForMetrics: the highest proposal of the valid metrics; all invalid is an error */
  async #replicasForMetrics(hpa: KubeObject, scale: Scale, specs: MetricSpec[], state: HpaState): Promise<{ replicas: number; metric: string; statuses: unknown[] }> {
    const selectorText = scale.status?.selector ?? '';
    if (!selectorText) {
      this.#recorder.event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
      state.condition('ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector");
      throw new Error('selector is required');
    }
    let selector;
    try {
      selector = parseLabelSelector(selectorText);
    } catch (err) {
      const message = `couldn't convert selector into a corresponding internal selector object: ${errorText(err)}`;
      this.#recorder.event(hpa, 'Warning', 'InvalidSelector', message);
      state.condition('ScalingActive', 'False', 'InvalidSelector', message);
      throw new Error(message);
    }
    const namespace = hpa.metadata?.namespace ?? '';
    const pods = this.#pods.store.byIndex(NAMESPACE_INDEX, namespace).filter((p) => selector.matches(p.metadata?.labels ?? {}));
    const specReplicas = scale.spec?.replicas ?? 0;
    let best: { replicas: number; metric: string } | undefined;
    const statuses: unknown[] = [];
    let firstInvalid: { condition: [string, string]; error: string } | undefined;
    let invalid = 0;
    for (const spec of specs) {
      try {
        const r = await this.#replicasForMetric(hpa, spec, specReplicas, selectorText, pods);
        statuses.push(r.status);
        if (!best || r.replicas > best.replicas) best = { replicas: r.replicas, metric: r.metric };
      } catch (err) {
        const reason = (err as { reason?: string }).reason ?? 'FailedGetResourceMetric';
        if (invalid === 0) firstInvalid = { condition: [reason, `the HPA was unable to compute the replica count: ${errorText((err as { cause?: unknown }).cause ?? err)}`], error: errorText(err) };
        invalid++;
      }
    }
    if (invalid >= specs.length || !best) {
      if (firstInvalid) state.condition('ScalingActive', 'False', firstInvalid.condition[0], firstInvalid.condition[1]);
      throw new Error(`invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstInvalid?.error ?? 'no metrics'}`);
    }
    state.condition('ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${best.metric}`);
    return { ...best, statuses };
  }

  /** one metric's proposal (kube's computeReplicasForMetric); resource metrics only, as Ballast serves no custom metrics API */
  async #replicasForMetric(hpa: KubeObject, spec: MetricSpec, currentReplicas: number, selector: string, pods: readonly KubeObject[]): Promise<{ replicas: number; metric: string; status: unknown }> {
    const fail = (reason: string, cause: string, wrapped: string) => {
      this.#recorder.event(hpa, 'Warning', reason, cause);
      throw Object.assign(new Error(wrapped), { reason, cause: new Error(cause) });
    };
    const settings = this.#ctx.settings.horizontalPodAutoscaler;
    if (spec.type !== 'Resource') {
      const name = spec.pods?.metric?.name ?? spec.object?.metric?.name ?? spec.external?.metric?.name ?? '';
      if (spec.type === 'Pods') fail('FailedGetPodsMetric', `unable to get metric ${name}: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered`, `failed to get pods metric value: unable to get metric ${name}`);
      if (spec.type === 'Object') fail('FailedGetObjectMetric', `unable to get metric ${name}: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered`, `failed to get object metric value: unable to get metric ${name}`);
      if (spec.type === 'External') fail('FailedGetExternalMetric', `unable to get external metric ${name}: unable to fetch metrics from external metrics API: no external metrics API (external.metrics.k8s.io) registered`, `failed to get external metric ${name}`);
      fail('InvalidMetricSourceType', `unknown metric source type "${spec.type}"`, `unknown metric source type "${spec.type}"`);
    }
    const resource = spec.resource?.name ?? '';
    const target = spec.resource?.target ?? {};
    const averageValue = target.averageValue !== undefined ? Math.round((parseQuantity(target.averageValue) ?? NaN) * 1000) : undefined;
    if (averageValue === undefined && target.averageUtilization === undefined) {
      const cause = 'invalid resource metric source: neither a utilization target nor a value target was set';
      fail('FailedGetResourceMetric', cause, `failed to get ${resource} utilization: ${cause}`);
    }
    let metrics: Map<string, PodMetric>;
    let proposal;
    try {
      metrics = await resourceMetrics(this.#ctx.client, hpa.metadata?.namespace ?? '', selector, resource);
    } catch (err) {
      const cause = `unable to get metrics for resource ${resource}: ${errorText(err)}`;
      return fail('FailedGetResourceMetric', cause, `failed to get ${resource} utilization: ${cause}`);
    }
    try {
      const goal = averageValue !== undefined ? { averageValueMilli: averageValue } : { utilization: target.averageUtilization ?? 0 };
      proposal = resourceReplicas(currentReplicas, pods, metrics, resource, goal, settings);
    } catch (err) {
      return fail('FailedGetResourceMetric', errorText(err), `failed to get ${resource} utilization: ${errorText(err)}`);
    }
    const average = formatMilli(proposal.rawAverage);
    if (averageValue !== undefined) {
      return { replicas: proposal.replicas, metric: `${resource} resource`, status: { type: 'Resource', resource: { name: resource, current: { averageValue: average } } } };
    }
    return {
      replicas: proposal.replicas,
      metric: `${resource} resource utilization (percentage of request)`,
      status: { type: 'Resource', resource: { name: resource, current: { averageUtilization: proposal.utilization, averageValue: average } } },
    };
  }

  /** the resource serving a scale target's kind (kube's RESTMapper) */
  async #targetResource(apiVersion: string, kind: string): Promise<ResourceRef> {
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
    const known = Object.values(RESOURCES).find((r) => r.group === group && r.kind === kind);
    if (known) return known;
    const { resources } = await this.#discovery.preferredResources();
    const found = resources.find((r) => r.group === group && r.kind === kind);
    if (!found) throw new Error(`no matches for kind "${kind}" in group "${group}"`);
    return found;
  }

  async #writeStatus(cached: KubeObject, original: HpaStatus, status: HpaStatus): Promise<void> {
    // the server writes the fields Go never omits (an empty currentMetrics): compare without them
    if (comparable(original) === comparable(status)) return;
    try {
      await this.#ctx.client.update(HPA_V2BETA2, { ...cached, apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler', status }, 'status');
    } catch (err) {
      if (isNotFound(err)) return;
      this.#recorder.event({ ...cached, apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' }, 'Warning', 'FailedUpdateStatus', errorText(err));
      throw err;
    }
  }
}

/** the status being built in one reconcile (kube mutates its copy of the HPA the same way) */
class HpaState {
  status: HpaStatus;
  readonly #now = timestamp(Date.now());

  constructor(original: HpaStatus) {
    this.status = JSON.parse(JSON.stringify(original)) as HpaStatus;
  }

  condition(type: string, status: 'True' | 'False', reason: string, message: string): void {
    this.status.conditions = setCondition(this.status.conditions ?? [], { type, status, reason, message }, this.#now);
  }

  /** kube's setStatus: lastScaleTime moves only on a rescale */
  set(currentReplicas: number, desiredReplicas: number, currentMetrics: unknown[] | undefined, scaledAt?: string): void {
    const { conditions, lastScaleTime } = this.status;
    this.status = {
      ...(this.status.observedGeneration !== undefined ? { observedGeneration: this.status.observedGeneration } : {}),
      ...(scaledAt ?? lastScaleTime ? { lastScaleTime: scaledAt ?? lastScaleTime } : {}),
      currentReplicas,
      desiredReplicas,
      ...(currentMetrics?.length ? { currentMetrics } : {}),
      ...(conditions ? { conditions } : {}),
    };
  }

  /** kube's setCurrentReplicasInStatus: the rest as it was */
  setCurrentReplicas(currentReplicas: number): void {
    this.set(currentReplicas, this.status.desiredReplicas ?? 0, this.status.currentMetrics);
  }
}

/** the status without null or empty lists, keys sorted */
function comparable(status: HpaStatus): string {
  return canonicalJson(JSON.parse(JSON.stringify(status, (_k, v: unknown) => (v === null || (Array.isArray(v) && v.length === 0) ? undefined : v))));
}

/** resource.NewMilliQuantity(v, DecimalSI).String(): whole units when exact, else milli */
function formatMilli(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}
