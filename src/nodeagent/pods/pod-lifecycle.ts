/**
 * The node agent's pod lifecycle (kubelet's syncLoop and syncPod): the sources feed the pod manager
 * through PodConfig; new pods pass admission; every pod has a worker that brings the runtime to its
 * spec (volumes mounted first, pull secrets fetched) and reports its status; PLEG events, probe
 * results, back-off requeues and the periodic resync trigger syncs; pods being deleted are killed
 * with their grace period and removed from the API once their resources are released;
 * housekeeping kills what the runtime runs that no source wants and removes orphaned mirror pods.
 */
import type { Logger } from 'pino';
import { isNotFound } from '../../client/errors';
import type { EventType } from '../../client/events';
import { SharedInformer } from '../../client/informer';
import { sleep } from '../../client/sleep';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject } from '../../client/types';
import type { ContainerRuntime, Pod, PodRuntimeStatus, PullSecret, RunningPod } from '../types';
import { canAdmitPod, type PodAdmitHandler } from './admission';
import { isMirrorPod, isStaticPod, type PodSource, podUid } from './annotations';
import { type ApiPodStatus, generateApiPodStatus, type StartFailure } from './api-status';
import { MirrorPods } from './mirror-pods';
import { Pleg, PodCache, type PlegEvent } from './pleg';
import { PodConfig, type PodUpdate } from './pod-config';
import { isMirrorPodOf, PodManager } from './pod-manager';
import { PodWorkers, type PodWork } from './pod-workers';
import { ApiSource, FileSource, UrlSource } from './sources';
import { StatusManager } from './status-manager';

/** the volume manager's side the pod workers call */
export interface VolumeHooks {
  /** mounts every volume of the pod; throws when one cannot be (the sync fails and is retried) */
  mountPod(pod: Pod): Promise<void>;
  unmountPod(uid: string): Promise<void>;
}

/** the prober's side the pod workers call */
export interface ProbeHooks {
  addPod(pod: Pod): void;
  removePod(pod: Pod): void;
  /** sets ready (and started) of the container statuses from the latest probe results */
  updatePodStatus(uid: string, status: ApiPodStatus): void;
  /** a probe result of a pod changed */
  onUpdate(cb: (podUid: string) => void): void;
}

export interface EventSink {
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

export interface PodLifecycleConfig {
  /** kubelet's --sync-frequency (1 m) */
  syncFrequencyMs: number;
  podManifestPath?: string;
  fileCheckFrequencyMs: number;
  manifestUrl?: string;
  manifestUrlHeaders?: Record<string, string[]>;
  httpCheckFrequencyMs: number;
  maxPods: number;
  nodeIP: string;
  /** PLEG relist (1 s), housekeeping (2 s), status batch (10 s), back-off after a failed sync (10 s) */
  relistPeriodMs?: number;
  housekeepingPeriodMs?: number;
  statusSyncPeriodMs?: number;
  backOffPeriodMs?: number;
}

export interface PodLifecycleOptions {
  /** absent in the standalone mode: no API pod source, no mirror pods, statuses not written */
  client?: RestClient;
  nodeName: string;
  runtime: ContainerRuntime;
  volumes: VolumeHooks;
  probes: ProbeHooks;
  recorder: EventSink;
  config: PodLifecycleConfig;
  clock?: { now(): number };
  logger: Logger;
  /** admit handlers asked before the node's own checks (kubelet's: the eviction manager's first) */
  admitHandlers?: readonly PodAdmitHandler[];
}

export class PodLifecycle {
  readonly podManager = new PodManager();
  readonly cache = new PodCache();
  readonly statusManager: StatusManager;
  readonly #opts: PodLifecycleOptions;
  readonly #now: () => number;
  readonly #config: PodConfig;
  readonly #workers: PodWorkers;
  readonly #pleg: Pleg;
  readonly #mirrors: MirrorPods | undefined;
  readonly #sources: { start(): void; stop(): void | Promise<void> }[] = [];
  /** pods refused at admission: never run */
  readonly #rejected = new Set<string>();
  /** pods the eviction manager evicted: their Failed status with its reason and message */
  readonly #evicted = new Map<string, { reason: string; message: string }>();
  /** container start failures per pod (kubelet's ReasonCache) */
  readonly #failures = new Map<string, Map<string, StartFailure>>();
  readonly #mounted = new Set<string>();
  readonly #lastSync = new Map<string, number>();
  /** source updates are handled one after another, in order */
  #updates: Promise<void> = Promise.resolve();
  /**
   * this node's Node, for admission (kubelet's node lister): a GET per admitted batch would hold every
   * later source update (and so the pod manager's statuses) behind the client's rate limiter
   */
  readonly #nodeInformer: SharedInformer | undefined;
  readonly #nodeAbort = new AbortController();
  #nodeRun: Promise<void> | undefined;
  #housekeeping: NodeJS.Timeout | undefined;
  #housekeepingRun: Promise<void> | undefined;

  constructor(opts: PodLifecycleOptions) {
    this.#opts = opts;
    this.#now = opts.clock ? () => opts.clock!.now() : Date.now;
    const cfg = opts.config;
    const sources: PodSource[] = opts.client ? ['api'] : [];
    if (cfg.podManifestPath) sources.push('file');
    if (cfg.manifestUrl) sources.push('http');
    this.#config = new PodConfig({ sources, now: this.#now, onUpdate: (u) => this.#enqueue(u) });
    this.#mirrors = opts.client && new MirrorPods(opts.client, opts.nodeName);
    this.statusManager = new StatusManager({
      client: opts.client,
      logger: opts.logger,
      now: this.#now,
      syncPeriodMs: cfg.statusSyncPeriodMs ?? 10_000,
      apiPodOf: (uid) => {
        const pod = this.podManager.byUid(uid);
        return pod && isStaticPod(pod) ? this.podManager.mirrorOf(pod) : pod;
      },
      canBeDeleted: (pod, status) => this.#resourcesReclaimed(podUid(pod), status),
    });
    this.#workers = new PodWorkers({
      logger: opts.logger,
      run: (uid, work) => this.#run(uid, work),
      requeue: (uid) => this.#dispatchSync(uid),
    });
    this.#pleg = new Pleg({
      runtime: opts.runtime,
      cache: this.cache,
      relistPeriodMs: cfg.relistPeriodMs ?? 1000,
      now: this.#now,
      logger: opts.logger,
      onEvent: (e) => this.#onPlegEvent(e),
    });
    opts.probes.onUpdate((uid) => this.#dispatchSync(uid));
    if (opts.client) this.#nodeInformer = new SharedInformer(opts.client, RESOURCES.nodes, { fieldSelector: `metadata.name=${opts.nodeName}`, logger: opts.logger });
    if (opts.client) this.#sources.push(new ApiSource({ client: opts.client, nodeName: opts.nodeName, logger: opts.logger, set: (pods) => this.#config.set('api', pods) }));
    if (cfg.podManifestPath) {
      this.#sources.push(new FileSource({ path: cfg.podManifestPath, nodeName: opts.nodeName, everyMs: cfg.fileCheckFrequencyMs, logger: opts.logger, set: (pods) => this.#config.set('file', pods) }));
    }
    if (cfg.manifestUrl) {
      this.#sources.push(
        new UrlSource({ url: cfg.manifestUrl, headers: cfg.manifestUrlHeaders ?? {}, nodeName: opts.nodeName, everyMs: cfg.httpCheckFrequencyMs, logger: opts.logger, set: (pods) => this.#config.set('http', pods) }),
      );
    }
  }

  start(): void {
    this.#nodeRun = this.#nodeInformer?.run(this.#nodeAbort.signal);
    for (const s of this.#sources) s.start();
    this.#pleg.start();
    this.statusManager.start();
    const period = this.#opts.config.housekeepingPeriodMs ?? 2000;
    const tick = () => {
      this.#housekeepingRun = this.#cleanup()
        .catch((err: Error) => this.#opts.logger.warn({ err: err.message }, 'pod housekeeping failed'))
        .finally(() => {
          if (this.#housekeeping !== undefined) this.#housekeeping = setTimeout(tick, period);
        });
    };
    this.#housekeeping = setTimeout(tick, period);
  }

  async stop(): Promise<void> {
    clearTimeout(this.#housekeeping);
    this.#housekeeping = undefined;
    await Promise.all(this.#sources.map((s) => s.stop()));
    this.#nodeAbort.abort();
    await this.#nodeRun;
    await this.#updates;
    await this.#pleg.stop();
    await this.#housekeepingRun;
    await this.#workers.stop();
    await this.statusManager.stop();
  }

  /** whether every pod source has reported once */
  allSourcesReady(): boolean {
    return this.#config.allSourcesReady();
  }

  /** the pods admitted and not finished (kubelet's GetActivePods) */
  activePods(): Pod[] {
    return this.podManager.pods().filter((p) => !this.#rejected.has(podUid(p)) && !this.#isTerminated(p));
  }

  // --- the sync loop's handlers (kubelet's HandlePodAdditions, Updates, Removes, Reconcile)

  #enqueue(update: PodUpdate): void {
    this.#updates = this.#updates
      .then(() => this.#handle(update))
      .catch((err: Error) => this.#opts.logger.warn({ op: update.op, err: err.message }, 'cannot handle a pod update'));
  }

  async #handle(update: PodUpdate): Promise<void> {
    switch (update.op) {
      case 'ADD':
        await this.#additions(update.pods);
        break;
      case 'UPDATE':
      case 'DELETE':
        for (const pod of update.pods) {
          this.podManager.addOrUpdate(pod);
          if (isMirrorPod(pod)) this.#mirrorChanged(pod);
          else this.#dispatchSync(podUid(pod));
        }
        break;
      case 'REMOVE':
        for (const pod of update.pods) {
          this.podManager.delete(pod);
          if (isMirrorPod(pod)) {
            this.#mirrorChanged(pod);
            continue;
          }
          this.#opts.probes.removePod(pod);
          this.#workers.dispatch(podUid(pod), { kind: 'kill' });
        }
        break;
      case 'RECONCILE':
        for (const pod of update.pods) this.podManager.addOrUpdate(pod);
        break;
    }
  }

  async #additions(pods: Pod[]): Promise<void> {
    const sorted = [...pods].sort((a, b) => String(a.metadata?.creationTimestamp ?? '').localeCompare(String(b.metadata?.creationTimestamp ?? '')));
    let node: KubeObject | undefined;
    if (sorted.some((p) => !isMirrorPod(p))) node = await this.#node();
    for (const pod of sorted) {
      const uid = podUid(pod);
      if (isMirrorPod(pod)) {
        this.podManager.addOrUpdate(pod);
        this.#mirrorChanged(pod);
        continue;
      }
      const active = this.activePods().filter((p) => podUid(p) !== uid);
      this.podManager.addOrUpdate(pod);
      if (!this.#isTerminated(pod)) {
        const handler = (this.#opts.admitHandlers ?? []).map((h) => h.admit(pod)).find((v) => !v.admit);
        const verdict = handler ?? canAdmitPod(pod, active, node, this.#opts.config.maxPods);
        if (!verdict.admit) {
          this.#reject(pod, verdict.reason ?? 'UnknownReason', verdict.message ?? '');
          continue;
        }
      }
      this.#opts.probes.addPod(pod);
      this.#dispatchSync(uid);
    }
  }

  /** kubelet's rejectPod: a Warning event and the Failed phase with the reason */
  #reject(pod: Pod, reason: string, message: string): void {
    this.#rejected.add(podUid(pod));
    this.#opts.logger.info({ pod: pod.metadata?.name, reason, message }, 'pod rejected at admission');
    this.#opts.recorder.event(pod, 'Warning', reason, message);
    const old = pod.status as Partial<ApiPodStatus> | undefined;
    const status: ApiPodStatus = { phase: 'Failed', reason, message: `Pod ${message}`, conditions: [], containerStatuses: [], qosClass: old?.qosClass ?? '' };
    this.statusManager.set(pod, status);
  }

  /**
   * Kills a pod now with the given grace period and gives it phase Failed with the reason and
   * message (kubelet's killPodNow as the eviction manager uses it); resolves once the kill is done.
   */
  async evictPod(pod: Pod, status: { reason: string; message: string }, gracePeriodSeconds: number): Promise<void> {
    const uid = podUid(pod);
    this.#evicted.set(uid, { reason: status.reason, message: status.message });
    const current = this.statusManager.get(uid) ?? (pod.status as ApiPodStatus | undefined);
    this.statusManager.set(pod, { ...(current ?? { conditions: [], containerStatuses: [], qosClass: '' }), phase: 'Failed', reason: status.reason, message: status.message });
    this.#workers.dispatch(uid, { kind: 'kill', gracePeriodSeconds });
    // the kill is done when the pod's worker is idle again (kubelet waits up to the grace period and then some)
    const deadline = this.#now() + (gracePeriodSeconds + 30) * 1000;
    while (this.#workers.isBusy(uid) && this.#now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  #mirrorChanged(mirror: Pod): void {
    const staticPod = this.podManager.podOfMirror(mirror);
    if (staticPod) {
      this.#dispatchSync(podUid(staticPod));
      this.statusManager.resync(podUid(staticPod));
    }
  }

  #dispatchSync(uid: string): void {
    const pod = this.podManager.byUid(uid);
    if (!pod || this.#rejected.has(uid)) return;
    this.#workers.dispatch(uid, { kind: 'sync' });
  }

  #onPlegEvent(e: PlegEvent): void {
    if (e.type === 'ContainerRemoved') return;
    this.#dispatchSync(e.podUid);
  }

  // --- a pod's sync (kubelet's syncPod / killPod)

  async #run(uid: string, work: PodWork): Promise<number | undefined> {
    const cfg = this.#opts.config;
    const pod = this.podManager.byUid(uid);
    try {
      if (work.kind === 'kill' || !pod) {
        await this.#kill(uid, pod, work.kind === 'kill' ? work.gracePeriodSeconds : undefined);
        return undefined;
      }
      let failed: boolean;
      try {
        failed = await this.#syncPod(pod);
      } finally {
        // kubelet's lastSyncTime is when the sync ended: the next sync takes PLEG's view only when
        // that relist started afterwards, never one read while this sync was still creating the
        // sandbox (that view would have no sandbox, and the pod would be killed and made again)
        this.#lastSync.set(uid, this.#now());
      }
      return failed ? (cfg.backOffPeriodMs ?? 10_000) : cfg.syncFrequencyMs;
    } catch (err) {
      this.#opts.logger.warn({ uid, pod: pod?.metadata?.name, err: (err as Error).message }, 'error syncing pod; retrying after the back-off');
      return cfg.backOffPeriodMs ?? 10_000;
    }
  }

  /** the runtime's view of the pod: PLEG's when newer than the last sync, else read now */
  async #runtimeStatus(pod: Pod): Promise<PodRuntimeStatus> {
    const uid = podUid(pod);
    const cached = this.cache.get(uid);
    if (cached && cached.at >= (this.#lastSync.get(uid) ?? 0)) return cached.status;
    const at = this.#now();
    const status = await this.#opts.runtime.getPodStatus(uid, pod.metadata?.name ?? '', pod.metadata?.namespace ?? '');
    this.cache.set(uid, status, at);
    return status;
  }

  #generate(pod: Pod, runtime: PodRuntimeStatus): ApiPodStatus {
    const uid = podUid(pod);
    const evicted = this.#evicted.get(uid);
    if (evicted) return { ...this.#generateFromRuntime(pod, runtime), phase: 'Failed', ...evicted };
    return this.#generateFromRuntime(pod, runtime);
  }

  #generateFromRuntime(pod: Pod, runtime: PodRuntimeStatus): ApiPodStatus {
    const uid = podUid(pod);
    return generateApiPodStatus({
      pod,
      runtime,
      old: this.statusManager.get(uid) ?? (pod.status as Partial<ApiPodStatus> | undefined),
      failures: this.#failures.get(uid) ?? new Map(),
      nodeIP: this.#opts.config.nodeIP,
      updateProbes: (s) => this.#opts.probes.updatePodStatus(uid, s),
    });
  }

  /** returns whether the sync failed (the pod is then requeued after the back-off) */
  async #syncPod(pod: Pod): Promise<boolean> {
    const uid = podUid(pod);
    const { runtime, volumes, recorder } = this.#opts;
    const started = this.#now();
    const runtimeStatus = await this.#runtimeStatus(pod);
    const apiStatus = this.#generate(pod, runtimeStatus);
    this.#lastSync.set(uid, started);

    const phase = this.statusManager.get(uid)?.phase ?? (pod.status as { phase?: string } | undefined)?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      // a finished pod is never started again; its volumes go
      this.statusManager.set(pod, apiStatus);
      if (!runtimeStatus.containerStatuses.some((c) => c.state === 'running')) await this.#unmount(uid);
      return false;
    }
    this.statusManager.set(pod, apiStatus);
    if (pod.metadata?.deletionTimestamp || apiStatus.phase === 'Failed' || apiStatus.phase === 'Succeeded') {
      const grace = pod.metadata?.deletionTimestamp ? pod.metadata.deletionGracePeriodSeconds : undefined;
      await this.#kill(uid, pod, grace);
      return false;
    }
    if (isStaticPod(pod)) await this.#syncMirror(pod);

    try {
      await volumes.mountPod(pod);
      this.#mounted.add(uid);
    } catch (err) {
      recorder.event(pod, 'Warning', 'FailedMount', `Unable to attach or mount volumes: ${(err as Error).message}`);
      return true;
    }
    const secrets = await this.#pullSecrets(pod);
    const result = await runtime.syncPod(pod, runtimeStatus, secrets);
    const failures = this.#failures.get(uid) ?? new Map<string, StartFailure>();
    for (const r of result.results) {
      if (r.action !== 'StartContainer' && r.action !== 'InitContainer') continue;
      if (r.error) failures.set(r.target, { reason: r.error, message: r.message ?? '' });
      else failures.delete(r.target);
    }
    this.#failures.set(uid, failures);
    const failed = result.syncError !== undefined || result.results.some((r) => r.error);
    if (failed) {
      // show the waiting reason now rather than at the next sync
      const fresh = await this.#opts.runtime.getPodStatus(uid, pod.metadata?.name ?? '', pod.metadata?.namespace ?? '');
      this.cache.set(uid, fresh, this.#now());
      this.statusManager.set(pod, this.#generate(pod, fresh));
    }
    return failed;
  }

  /** kubelet's static pod branch of syncPod: a mirror pod that matches this version of the pod */
  async #syncMirror(pod: Pod): Promise<void> {
    const mirrors = this.#mirrors;
    if (!mirrors) return;
    let mirror = this.podManager.mirrorOf(pod);
    try {
      if (mirror && (mirror.metadata?.deletionTimestamp || !isMirrorPodOf(mirror, pod))) {
        this.#opts.logger.info({ pod: pod.metadata?.name }, 'deleting an outdated mirror pod');
        await mirrors.delete(mirror.metadata?.namespace ?? '', mirror.metadata?.name ?? '', podUid(mirror));
        mirror = undefined;
      }
      if (!mirror) await mirrors.create(pod);
    } catch (err) {
      this.#opts.logger.warn({ pod: pod.metadata?.name, err: (err as Error).message }, 'cannot create the mirror pod');
    }
  }

  async #pullSecrets(pod: Pod): Promise<PullSecret[]> {
    const refs = ((pod.spec as { imagePullSecrets?: { name?: string }[] } | undefined)?.imagePullSecrets ?? []).filter((r) => r.name);
    const out: PullSecret[] = [];
    const client = this.#opts.client;
    for (const ref of client ? refs : []) {
      try {
        const secret = await client!.get(RESOURCES.secrets, pod.metadata?.namespace, ref.name!);
        const data = (secret as { data?: Record<string, string> }).data ?? {};
        out.push({ name: ref.name!, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64')])) });
      } catch (err) {
        this.#opts.logger.warn({ pod: pod.metadata?.name, secret: ref.name, err: (err as Error).message }, 'cannot read a pull secret; the image pull may not succeed');
      }
    }
    return out;
  }

  /** stop the pod's containers, then report the status and release its volumes */
  async #kill(uid: string, pod: Pod | undefined, gracePeriodSeconds: number | undefined): Promise<void> {
    const { runtime } = this.#opts;
    const running = (await runtime.getPods(false)).find((p) => p.uid === uid);
    if (running) await runtime.killPod(pod, running, gracePeriodSeconds);
    if (pod) {
      const fresh = await runtime.getPodStatus(uid, pod.metadata?.name ?? '', pod.metadata?.namespace ?? '');
      this.cache.set(uid, fresh, this.#now());
      await this.#unmount(uid);
      this.statusManager.set(pod, this.#generate(pod, fresh));
    } else {
      await this.#unmount(uid);
      this.cache.delete(uid);
      this.#failures.delete(uid);
      this.#lastSync.delete(uid);
      this.#workers.forget(uid);
    }
  }

  async #unmount(uid: string): Promise<void> {
    if (!this.#mounted.has(uid)) return;
    await this.#opts.volumes.unmountPod(uid);
    this.#mounted.delete(uid);
  }

  /** kubelet's PodResourcesAreReclaimed: nothing running, volumes unmounted */
  #resourcesReclaimed(uid: string, status: ApiPodStatus): boolean {
    const all = [...status.containerStatuses, ...(status.initContainerStatuses ?? [])];
    if (all.some((c) => c.state.running)) return false;
    const runtime = this.cache.get(uid)?.status;
    if (runtime?.containerStatuses.some((c) => c.state === 'running')) return false;
    return !this.#mounted.has(uid);
  }

  /** kubelet's podIsTerminated: a terminal phase, or being deleted with nothing running */
  #isTerminated(pod: Pod): boolean {
    const uid = podUid(pod);
    const status = this.statusManager.get(uid) ?? (pod.status as Partial<ApiPodStatus> | undefined);
    if (status?.phase === 'Succeeded' || status?.phase === 'Failed') return true;
    if (!pod.metadata?.deletionTimestamp) return false;
    return !(this.cache.get(uid)?.status.containerStatuses.some((c) => c.state === 'running') ?? false);
  }

  async #node(): Promise<KubeObject | undefined> {
    if (!this.#opts.client) return undefined;
    const informer = this.#nodeInformer;
    // the informer's copy once it has listed (briefly waited for at start); else one GET
    if (informer && (informer.hasSynced || (await Promise.race([informer.waitForSync(this.#nodeAbort.signal), sleep(2000).then(() => false)])))) {
      return informer.store.list()[0];
    }
    try {
      return await this.#opts.client.get(RESOURCES.nodes, undefined, this.#opts.nodeName);
    } catch (err) {
      if (!isNotFound(err)) this.#opts.logger.warn({ err: (err as Error).message }, 'cannot read the node for admission');
      return undefined;
    }
  }

  /** kubelet's HandlePodCleanups */
  async #cleanup(): Promise<void> {
    // nothing is an orphan before every source has said what it wants
    if (!this.allSourcesReady()) return;
    const { runtime } = this.#opts;
    const wanted = new Set(this.podManager.pods().map(podUid));
    const running: RunningPod[] = await runtime.getPods(false);
    for (const rp of running) {
      if (wanted.has(rp.uid) || this.#workers.isBusy(rp.uid)) continue;
      this.#opts.logger.info({ uid: rp.uid, name: rp.name, namespace: rp.namespace }, 'killing an orphaned pod');
      this.#workers.dispatch(rp.uid, { kind: 'kill' });
    }
    for (const uid of [...this.#mounted]) {
      if (!wanted.has(uid) && !this.#workers.isBusy(uid)) await this.#unmount(uid);
    }
    for (const mirror of this.podManager.orphanedMirrorPods()) {
      this.#opts.logger.info({ pod: mirror.metadata?.name }, 'deleting a mirror pod whose static pod is gone');
      await this.#mirrors?.delete(mirror.metadata?.namespace ?? '', mirror.metadata?.name ?? '', podUid(mirror));
    }
    this.statusManager.removeOrphans(wanted);
    for (const uid of this.#rejected) if (!wanted.has(uid)) this.#rejected.delete(uid);
    for (const uid of this.#evicted.keys()) if (!wanted.has(uid)) this.#evicted.delete(uid);
    for (const uid of this.#failures.keys()) if (!wanted.has(uid) && !this.#workers.isBusy(uid)) this.#failures.delete(uid);
  }
}
