/**
 * DefaultPreemption, kube 1.20's PostFilter plugin: when a pod fits no node, find nodes where
 * evicting lower-priority pods would make room, pick one, delete its victims and answer the
 * node's name, which the scheduler writes as the pod's status.nominatedNodeName.
 */
import type { KubeObject } from '../../../client/types';
import { RESOURCES } from '../../../client/resources';
import type { NodeInfo } from '../../framework/node-info';
import { podPriority } from '../../framework/resource';
import { Code, Status, errorStatus } from '../../framework/status';
import type { CycleState, FrameworkHandle, Plugin, PluginFactory, PostFilterResult } from '../../framework/types';
import { type PreemptionActions, apiActions } from './actions';
import { defaultPreemptionArgs, numCandidatesFor, type DefaultPreemptionArgs } from './args';
import { pickOneNodeForPreemption, type Candidate } from './pick-node';
import { budgetsOf, selectVictimsOnNode, type Budget } from './victims';

export const DEFAULT_PREEMPTION = 'DefaultPreemption';

/** kube's core.ErrNoNodesAvailable */
export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

export interface DefaultPreemptionOptions {
  /** the API calls (default: through handle.client) */
  actions?: PreemptionActions;
  /** a random integer in [0, n) for the dry run's starting node (default: Math.random) */
  randomInt?: (n: number) => number;
}

interface PodSpecFields {
  preemptionPolicy?: string;
}

function nominatedNodeNameOf(pod: KubeObject): string {
  return (pod.status as { nominatedNodeName?: string } | undefined)?.nominatedNodeName ?? '';
}

function isTerminating(pod: KubeObject): boolean {
  return !!pod.metadata?.deletionTimestamp;
}

export class DefaultPreemption implements Plugin {
  readonly name = DEFAULT_PREEMPTION;
  readonly args: DefaultPreemptionArgs;
  readonly #handle: FrameworkHandle;
  readonly #actions: PreemptionActions;
  readonly #randomInt: (n: number) => number;

  constructor(args: DefaultPreemptionArgs, handle: FrameworkHandle, options: DefaultPreemptionOptions = {}) {
    this.args = args;
    this.#handle = handle;
    this.#actions = options.actions ?? apiActions(handle.client);
    this.#randomInt = options.randomInt ?? ((n) => Math.floor(Math.random() * n));
  }

  async postFilter(state: CycleState, pod: KubeObject, statuses: ReadonlyMap<string, Status>): Promise<{ result?: PostFilterResult; status: Status | undefined }> {
    try {
      const nominatedNodeName = await this.preempt(state, pod, statuses);
      // kube 1.20 answers a bare Unschedulable: the core keeps the filters' diagnosis for the message
      if (!nominatedNodeName) return { status: new Status(Code.Unschedulable, []) };
      return { result: { nominatedNodeName }, status: undefined };
    } catch (err) {
      return { status: errorStatus(err) };
    }
  }

  /** the node to nominate, or '' when preemption cannot help */
  async preempt(state: CycleState, podIn: KubeObject, statuses: ReadonlyMap<string, Status>): Promise<string> {
    const pod = this.#latest(podIn);
    if (!this.podEligibleToPreemptOthers(pod, statuses.get(nominatedNodeNameOf(podIn)))) {
      this.#handle.logger.debug({ pod: `${pod.metadata?.namespace}/${pod.metadata?.name}` }, 'pod is not eligible for more preemption');
      return '';
    }
    const candidates = await this.findCandidates(state, pod, statuses);
    const best = pickOneNodeForPreemption(candidates);
    if (!best) return '';
    await this.prepareCandidate(best, pod);
    return best.name;
  }

  /**
   * kube's PodEligibleToPreemptOthers: not with preemptionPolicy Never, and not while victims of
   * an earlier preemption are still terminating on the node the pod is nominated to (unless the
   * filters now call that node unresolvable).
   */
  podEligibleToPreemptOthers(pod: KubeObject, nominatedNodeStatus: Status | undefined): boolean {
    const spec = (pod.spec ?? {}) as PodSpecFields;
    // kube 1.20 reads the field alone: the API server drops it while the NonPreemptingPriority gate is off
    if (spec.preemptionPolicy === 'Never') return false;
    const nominated = nominatedNodeNameOf(pod);
    if (!nominated) return true;
    if (nominatedNodeStatus?.code === Code.UnschedulableAndUnresolvable) return true;
    const nodeInfo = this.#handle.snapshot().get(nominated);
    if (!nodeInfo) return true;
    const priority = podPriority(pod);
    return !nodeInfo.pods.some((pi) => isTerminating(pi.pod) && podPriority(pi.pod) < priority);
  }

  /** dry-run preemption on the nodes where it might help, from a random offset, until enough candidates */
  async findCandidates(state: CycleState, pod: KubeObject, statuses: ReadonlyMap<string, Status>): Promise<Candidate[]> {
    const all = this.#handle.snapshot().list();
    if (all.length === 0) throw new Error(NO_NODES_AVAILABLE);
    // a node some filter called unresolvable stays unfit whatever is evicted from it
    const potential = all.filter((n) => statuses.get(n.name)?.code !== Code.UnschedulableAndUnresolvable);
    if (potential.length === 0) {
      // preemption cannot help anywhere: an earlier nomination no longer holds (not critical if this fails)
      if (nominatedNodeNameOf(pod)) {
        await this.#actions.clearNominatedNodeName(pod).catch((err: unknown) => this.#handle.logger.error({ err }, 'cannot clear nominatedNodeName'));
      }
      return [];
    }
    const budgets = budgetsOf(this.#handle.lister(RESOURCES.podDisruptionBudgets).list());
    const offset = this.#randomInt(potential.length);
    const wanted = numCandidatesFor(this.args, potential.length);
    return this.dryRun(state, pod, potential, budgets, offset, wanted);
  }

  /**
   * kube's dryRunPreemption, one node after another: stops once it has a candidate without budget
   * violations and `wanted` candidates in all; candidates without violations come first.
   */
  dryRun(state: CycleState, pod: KubeObject, nodes: readonly NodeInfo[], budgets: readonly Budget[], offset: number, wanted: number): Candidate[] {
    const clean: Candidate[] = [];
    const violating: Candidate[] = [];
    const priority = podPriority(pod);
    for (let i = 0; i < nodes.length; i++) {
      const source = nodes[(offset + i) % nodes.length];
      // nothing to evict: the filters already rejected this very snapshot of the node, so skip the clones
      if (!source.pods.some((pi) => podPriority(pi.pod) < priority)) continue;
      const nodeInfo = source.clone();
      const victims = selectVictimsOnNode(this.#handle, state.clone(), pod, nodeInfo, budgets);
      if (!victims) continue;
      (victims.numPDBViolations === 0 ? clean : violating).push({ name: nodeInfo.name, victims });
      if (clean.length > 0 && clean.length + violating.length >= wanted) break;
    }
    return [...clean, ...violating];
  }

  /**
   * kube's PrepareCandidate: evict the victims (stopping at the first failure), then drop the
   * nominations of lower-priority pods to that node, which may no longer fit there.
   */
  async prepareCandidate(c: Candidate, pod: KubeObject): Promise<void> {
    const by = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    for (const victim of c.victims.pods) {
      await this.#actions.deletePod(victim);
      this.#handle.recorder.event(victim, 'Normal', 'Preempted', `Preempted by ${by} on node ${c.name}`);
    }
    const priority = podPriority(pod);
    for (const pi of this.#handle.nominator.nominatedPodsForNode(c.name)) {
      if (podPriority(pi.pod) >= priority || !nominatedNodeNameOf(pi.pod)) continue;
      try {
        await this.#actions.clearNominatedNodeName(pi.pod);
      } catch (err) {
        this.#handle.logger.error({ err, pod: `${pi.pod.metadata?.namespace}/${pi.pod.metadata?.name}` }, 'cannot clear nominatedNodeName');
      }
    }
  }

  /** the informer's newer copy of the pod when there is one (kube reads the pod lister first) */
  #latest(pod: KubeObject): KubeObject {
    try {
      return this.#handle.lister(RESOURCES.pods).getObject(pod.metadata?.namespace, pod.metadata?.name ?? '') ?? pod;
    } catch {
      return pod;
    }
  }
}

export function newDefaultPreemption(args: unknown, handle: FrameworkHandle, options?: DefaultPreemptionOptions): DefaultPreemption {
  return new DefaultPreemption(defaultPreemptionArgs(args), handle, options);
}

export const defaultPreemptionFactory: PluginFactory = (args, handle) => newDefaultPreemption(args, handle);
