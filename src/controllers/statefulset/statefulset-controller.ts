/**
 * kube's StatefulSet controller (pkg/controller/statefulset, kube 1.20): each sync claims the
 * set's pods (members named `<set>-<n>` that its selector matches) and orphan revisions, finds or
 * creates the ControllerRevision of the current template, runs one reconciliation pass
 * (update-set.ts), writes the status and trims the history to revisionHistoryLimit.
 */
import type { Logger } from 'pino';
import { isAlreadyExists, isConflict, isNotFound } from '../../client/errors';
import { NAMESPACE_INDEX, byNamespace } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, type KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import {
  createRevision,
  findEqualRevisions,
  newRevision,
  nextRevision,
  renumberRevision,
  revisionName,
  revisionsToTruncate,
  sortRevisions,
  templateOfRevision,
  templatePatch,
  type ControllerRevision,
} from '../history/controller-history';
import type { ControllerContext } from '../types';
import { claimObjects, controllerOf, recheckOwner } from '../util/controller-ref';
import { selectorOf } from '../util/selectors';
import { claimsFor, identityMatches, isMemberOf, ordinalOf, podRevision, setSpec, storageMatches, updateIdentity, updateStorage } from './stateful-pods';
import { completeRollingUpdate, updateStatefulSet, type StatefulPodOps, type StatefulSetStatus } from './update-set';
import { errorMessage } from '../util/errors';

function withKind<T extends KubeObject>(obj: T): T {
  return obj.kind && obj.apiVersion ? obj : { ...obj, kind: 'StatefulSet', apiVersion: 'apps/v1' };
}

export class StatefulSetController {
  readonly #ctx: ControllerContext;
  readonly #workers: number;
  readonly #queue = new WorkQueue<string>({ name: 'statefulset' });
  readonly #sets: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #revisions: SharedInformer;
  readonly #claims: SharedInformer;
  readonly #log: Logger;

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#workers = ctx.settings.concurrentStatefulSetSyncs;
    this.#log = ctx.logger;
    this.#sets = ctx.informers.informerFor(RESOURCES.statefulSets);
    this.#pods = ctx.informers.informerFor(RESOURCES.pods);
    this.#revisions = ctx.informers.informerFor(RESOURCES.controllerRevisions);
    this.#claims = ctx.informers.informerFor(RESOURCES.persistentVolumeClaims);
    for (const i of [this.#sets, this.#pods, this.#revisions]) i.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#sets.addEventHandler({
      add: (s) => this.#queue.add(objectKey(s)),
      update: (_o, s) => this.#queue.add(objectKey(s)),
      delete: (s) => this.#queue.add(objectKey(s)),
    });
    this.#pods.addEventHandler({
      add: (p) => this.#podChanged(p),
      update: (old, p) => {
        if (old.metadata?.resourceVersion === p.metadata?.resourceVersion) return;
        const oldRef = controllerOf(old);
        if (oldRef && oldRef.uid !== controllerOf(p)?.uid) this.#podChanged(old);
        this.#podChanged(p);
      },
      delete: (p) => this.#podChanged(p),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    await runWorkers(this.#queue, this.#workers, (key) => this.#sync(key), (key, err) => {
      this.#log.error({ err, key }, 'error syncing StatefulSet');
    });
  }

  /** a pod's owner set, or for an orphan every set that would adopt it */
  #podChanged(pod: KubeObject): void {
    const ref = controllerOf(pod);
    if (ref) {
      if (ref.kind !== 'StatefulSet') return;
      const set = this.#sets.store.getObject(pod.metadata?.namespace, ref.name);
      if (set && set.metadata?.uid === ref.uid) this.#queue.add(objectKey(set));
      return;
    }
    for (const set of this.#sets.store.byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? '')) {
      if (isMemberOf(set, pod) && selectorOf(set).matches(pod.metadata?.labels)) this.#queue.add(objectKey(set));
    }
  }

  async #sync(key: string): Promise<void> {
    const cached = this.#sets.store.get(key);
    if (!cached) return;
    const set = withKind(cached);
    const ns = set.metadata?.namespace ?? '';
    const selector = selectorOf(set);
    const canAdopt = recheckOwner(this.#ctx.client, RESOURCES.statefulSets, set);
    const pods = await claimObjects(
      { client: this.#ctx.client, owner: set, selector, ref: RESOURCES.pods, canAdopt },
      this.#pods.store.byIndex(NAMESPACE_INDEX, ns).filter((p) => isMemberOf(set, p)),
    );
    const revisions = (await claimObjects(
      { client: this.#ctx.client, owner: set, selector, ref: RESOURCES.controllerRevisions, canAdopt },
      this.#revisions.store.byIndex(NAMESPACE_INDEX, ns),
    )) as ControllerRevision[];

    const { current, update, collisionCount } = await this.#revisionsOf(set, revisions);
    const currentTemplate = templateOfRevision(current);
    const currentSet: KubeObject = currentTemplate ? { ...set, spec: { ...(set.spec ?? {}), template: currentTemplate } } : set;
    const status = await updateStatefulSet(
      { set, currentSet, currentRevision: current.metadata?.name ?? '', updateRevision: update.metadata?.name ?? '', collisionCount, pods },
      this.#ops(set),
    );
    await this.#writeStatus(set, completeRollingUpdate(set, status));
    await this.#truncateHistory(set, pods, [...revisions, update], current, update);
  }

  /** getStatefulSetRevisions: the current revision (from status) and the one of the template now */
  async #revisionsOf(set: KubeObject, owned: readonly ControllerRevision[]): Promise<{ current: ControllerRevision; update: ControllerRevision; collisionCount: number }> {
    const revisions = sortRevisions(owned);
    let collisionCount = (set.status as { collisionCount?: number } | undefined)?.collisionCount ?? 0;
    const wanted = newRevision(set, setSpec(set).template?.metadata?.labels, templatePatch(set), nextRevision(revisions), collisionCount);
    if (set.metadata?.annotations) wanted.metadata!.annotations = { ...set.metadata.annotations };
    const equal = findEqualRevisions(revisions, wanted);
    let update: ControllerRevision;
    const latest = revisions[revisions.length - 1];
    if (equal.length > 0 && latest && equal[equal.length - 1] === latest) {
      update = latest;
    } else if (equal.length > 0) {
      // going back to an older template: that revision becomes the newest
      update = await renumberRevision(this.#ctx.client, equal[equal.length - 1]!, wanted.revision ?? 0);
    } else {
      const created = await createRevision(this.#ctx.client, wanted, collisionCount, (hash) => revisionName(set.metadata?.name ?? '', hash));
      update = created.revision;
      collisionCount = created.collisionCount;
    }
    const currentName = (set.status as { currentRevision?: string } | undefined)?.currentRevision;
    const current = revisions.find((r) => r.metadata?.name === currentName) ?? update;
    return { current, update, collisionCount };
  }

  #ops(set: KubeObject): StatefulPodOps {
    const { client, recorder } = this.#ctx;
    const name = set.metadata?.name;
    const podEvent = (verb: string, pod: KubeObject, err?: unknown) => {
      const Verb = verb[0]!.toUpperCase() + verb.slice(1);
      if (err === undefined) recorder.event(set, 'Normal', `Successful${Verb}`, `${verb} Pod ${pod.metadata?.name} in StatefulSet ${name} successful`);
      else recorder.event(set, 'Warning', `Failed${Verb}`, `${verb} Pod ${pod.metadata?.name} in StatefulSet ${name} failed error: ${errorMessage(err)}`);
    };
    const createClaims = async (pod: KubeObject) => {
      const failures: string[] = [];
      for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
        if (this.#claims.store.getObject(claim.metadata?.namespace, claim.metadata?.name ?? '')) continue;
        try {
          await client.create(RESOURCES.persistentVolumeClaims, claim.metadata?.namespace, claim);
          recorder.event(set, 'Normal', 'SuccessfulCreate', `create Claim ${claim.metadata?.name} Pod ${pod.metadata?.name} in StatefulSet ${name} success`);
        } catch (err) {
          if (isAlreadyExists(err)) continue;
          recorder.event(set, 'Warning', 'FailedCreate', `create Claim ${claim.metadata?.name} for Pod ${pod.metadata?.name} in StatefulSet ${name} failed error: ${errorMessage(err)}`);
          failures.push(`failed to create PVC ${claim.metadata?.name}: ${errorMessage(err)}`);
        }
      }
      if (failures.length) throw new Error(failures.join('; '));
    };
    return {
      create: async (pod) => {
        try {
          await createClaims(pod);
          await client.create(RESOURCES.pods, pod.metadata?.namespace, pod);
        } catch (err) {
          if (!isAlreadyExists(err)) podEvent('create', pod, err);
          throw err;
        }
        podEvent('create', pod);
      },
      delete: async (pod) => {
        try {
          await client.delete(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', { preconditions: { uid: pod.metadata?.uid } });
        } catch (err) {
          if (isNotFound(err)) return;
          podEvent('delete', pod, err);
          throw err;
        }
        podEvent('delete', pod);
      },
      update: async (pod) => {
        let current = pod;
        for (let attempt = 0; ; attempt++) {
          if (!identityMatches(set, current)) updateIdentity(set, current);
          if (!storageMatches(set, current)) {
            updateStorage(set, current);
            await createClaims(current);
          }
          try {
            await client.update(RESOURCES.pods, current);
            podEvent('update', current);
            return;
          } catch (err) {
            if (!isConflict(err) || attempt >= 3) {
              podEvent('update', current, err);
              throw err;
            }
            current = await client.get(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '');
          }
        }
      },
    };
  }

  async #writeStatus(set: KubeObject, status: StatefulSetStatus): Promise<void> {
    let current = set;
    for (let attempt = 0; ; attempt++) {
      const old = (current.status ?? {}) as Record<string, unknown>;
      const next = { ...old, ...status, observedGeneration: status.observedGeneration ?? current.metadata?.generation };
      const same = (Object.keys(status) as (keyof StatefulSetStatus)[]).every((k) => old[k] === next[k]);
      if (same) return;
      try {
        await this.#ctx.client.update(RESOURCES.statefulSets, { ...current, status: next }, 'status');
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 3) throw err;
        try {
          current = withKind(await this.#ctx.client.get(RESOURCES.statefulSets, set.metadata?.namespace, set.metadata?.name ?? ''));
        } catch (getErr) {
          if (isNotFound(getErr)) return;
          throw getErr;
        }
      }
    }
  }

  /** truncateHistory: revisions of live pods, the current and the update revision stay */
  async #truncateHistory(set: KubeObject, pods: readonly KubeObject[], revisions: readonly ControllerRevision[], current: ControllerRevision, update: ControllerRevision): Promise<void> {
    const live = new Set<string>([current.metadata?.name ?? '', update.metadata?.name ?? '']);
    for (const pod of pods) live.add(podRevision(pod));
    const unique = new Map(revisions.map((r) => [r.metadata?.name ?? '', r]));
    const limit = setSpec(set).revisionHistoryLimit ?? 10;
    for (const rev of revisionsToTruncate([...unique.values()], live, limit)) {
      try {
        await this.#ctx.client.delete(RESOURCES.controllerRevisions, rev.metadata?.namespace, rev.metadata?.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}
