/**
 * VolumeBinding (kube 1.20): PreFilter sorts the pod's claims (a missing or deleting claim, or an
 * unbound claim of an Immediate class, stops the pod); Filter checks bound volumes' node affinity
 * and finds a volume or dynamic provisioning for each WaitForFirstConsumer claim on the node;
 * Reserve assumes the node's choice in memory, Unreserve forgets it; PreBind writes it (the PV's
 * claimRef, the claim's selected-node annotation) and waits for the PV controller to bind.
 */
import { RESOURCES } from '../../../client/resources';
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { Code, Status, errorStatus, unresolvable, type Result } from '../../framework/status';
import type { CycleState, FrameworkHandle, Plugin, PluginFactory, StateData } from '../../framework/types';
import { AssumeCache } from './assume-cache';
import { notFound, volumeListers } from './claims';
import { podVolumes } from './pod-volumes';
import { VolumeBinder, type BindingWriter, type ClaimSets, type PodVolumes } from './volume-binder';
import type { ClaimCandidates } from './volume-matching';

export const VOLUME_BINDING = 'VolumeBinding';
export const DEFAULT_BIND_TIMEOUT_SECONDS = 600;
export const ERR_REASON_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';

export interface VolumeBindingArgs {
  bindTimeoutSeconds: number;
}

/** v1beta1 defaulting, then kube's two checks (the configuration's, then the plugin's own) */
export function volumeBindingArgs(raw: unknown): VolumeBindingArgs {
  const given = (raw ?? {}) as { bindTimeoutSeconds?: unknown };
  const t = given.bindTimeoutSeconds ?? DEFAULT_BIND_TIMEOUT_SECONDS;
  if (typeof t !== 'number' || !Number.isInteger(t)) throw new Error(`want args to be of type VolumeBindingArgs, got bindTimeoutSeconds ${JSON.stringify(t)}`);
  if (t < 0) throw new Error(`bindTimeoutSeconds: Invalid value: ${t}: invalid BindTimeoutSeconds, should not be a negative value`);
  if (t === 0) throw new Error(`invalid BindTimeoutSeconds: ${t}, must be positive integer`);
  return { bindTimeoutSeconds: t };
}

class BindingState implements StateData {
  skip = false;
  sets: ClaimSets = { boundClaims: [], claimsToBind: [], unboundClaimsImmediate: [] };
  claimNames: string[] = [];
  candidates?: ClaimCandidates[];
  allBound = false;
  readonly podVolumesByNode = new Map<string, PodVolumes>();
  // kube shares one state between a cycle and its clones
  clone(): StateData {
    return this;
  }
}

const stateKey = VOLUME_BINDING;

export interface VolumeBindingOptions {
  /** the API writes of PreBind (default: handle.client updates) */
  writer?: (handle: FrameworkHandle) => BindingWriter;
  /** how often PreBind looks at the listers while it waits (kube: every second) */
  pollIntervalMs?: number;
}

/** a VolumeBinding factory; tests swap the writer and the poll interval */
export function createVolumeBinding(opts: VolumeBindingOptions = {}): PluginFactory {
  return (rawArgs: unknown, handle: FrameworkHandle): Plugin => {
    const args = volumeBindingArgs(rawArgs);
    const listers = volumeListers(handle);
    const claimStore = handle.lister(RESOURCES.persistentVolumeClaims);
    const ephemeralEnabled = handle.featureGates.enabled('GenericEphemeralVolume');
    const writer = opts.writer?.(handle) ?? {
      updateVolume: (pv) => handle.client.update(RESOURCES.persistentVolumes, pv),
      updateClaim: (pvc) => handle.client.update(RESOURCES.persistentVolumeClaims, pvc),
    };
    const binder = new VolumeBinder({
      volumes: new AssumeCache(() => handle.lister(RESOURCES.persistentVolumes), 'v1.PersistentVolume'),
      claims: new AssumeCache(() => claimStore, 'v1.PersistentVolumeClaim'),
      storageClass: listers.storageClass,
      node: (name) => handle.snapshot().get(name)?.node ?? handle.lister(RESOURCES.nodes).getObject(undefined, name),
      writer,
      bindTimeoutMs: args.bindTimeoutSeconds * 1000,
      pollIntervalMs: opts.pollIntervalMs ?? 1000,
    });

    /** kube's podHasPVCs: the claim names, or the message that stops the pod */
    const claimNamesOf = (pod: KubeObject): string[] | string => {
      const names: string[] = [];
      const namespace = pod.metadata?.namespace ?? '';
      for (const v of podVolumes(pod)) {
        let name: string;
        let ephemeral = false;
        if (v.persistentVolumeClaim) name = v.persistentVolumeClaim.claimName ?? '';
        else if ((v as { ephemeral?: unknown }).ephemeral && ephemeralEnabled) {
          name = `${pod.metadata?.name ?? ''}-${v.name ?? ''}`;
          ephemeral = true;
        } else continue;
        const pvc = claimStore.getObject(namespace, name);
        if (!pvc) return notFound('persistentvolumeclaim', name);
        if (pvc.metadata?.deletionTimestamp) return `persistentvolumeclaim "${name}" is being deleted`;
        if (ephemeral && !pvc.metadata?.ownerReferences?.some((r) => r.controller && r.uid === pod.metadata?.uid)) {
          return `persistentvolumeclaim "${name}" was not created for the pod`;
        }
        names.push(name);
      }
      return names;
    };

    const stateOf = (cs: CycleState): BindingState | Status => cs.read<BindingState>(stateKey) ?? new Status(Code.Error, ['not found']);

    return {
      name: VOLUME_BINDING,
      preFilter(cs: CycleState, pod: KubeObject): Result {
        const state = new BindingState();
        const names = claimNamesOf(pod);
        if (typeof names === 'string') return unresolvable(names);
        if (names.length === 0) {
          state.skip = true;
          cs.write(stateKey, state);
          return undefined;
        }
        try {
          state.sets = binder.getPodVolumes(pod.metadata?.namespace ?? '', names);
        } catch (err) {
          return errorStatus(err);
        }
        if (state.sets.unboundClaimsImmediate.length > 0) return unresolvable(ERR_REASON_UNBOUND_IMMEDIATE);
        state.claimNames = names;
        cs.write(stateKey, state);
        return undefined;
      },
      preFilterExtensions: () => undefined,
      filter(cs: CycleState, _pod: KubeObject, nodeInfo: NodeInfo): Result {
        const node = nodeInfo.node;
        if (!node) return new Status(Code.Error, ['node not found']);
        const state = stateOf(cs);
        if (state instanceof Status) return state;
        if (state.skip) return undefined;
        try {
          state.candidates ??= binder.candidates(state.sets.claimsToBind);
          const { reasons, podVolumes: pv } = binder.findPodVolumes(state.sets, state.candidates, node);
          if (reasons.length > 0) return unresolvable(...reasons);
          state.podVolumesByNode.set(nodeInfo.name, pv);
        } catch (err) {
          return errorStatus(err);
        }
        return undefined;
      },
      async reserve(cs: CycleState, pod: KubeObject, nodeName: string): Promise<Result> {
        const state = stateOf(cs);
        if (state instanceof Status) return state;
        const pv = state.podVolumesByNode.get(nodeName);
        if (!pv) {
          state.allBound = true;
          return undefined;
        }
        try {
          state.allBound = binder.assumePodVolumes(state.claimNames, pod.metadata?.namespace ?? '', nodeName, pv);
        } catch (err) {
          return errorStatus(err);
        }
        return undefined;
      },
      async unreserve(cs: CycleState, _pod: KubeObject, nodeName: string): Promise<void> {
        const state = cs.read<BindingState>(stateKey);
        const pv = state?.podVolumesByNode.get(nodeName);
        if (pv) binder.revertAssumedPodVolumes(pv);
      },
      async preBind(cs: CycleState, _pod: KubeObject, nodeName: string): Promise<Result> {
        const state = stateOf(cs);
        if (state instanceof Status) return state;
        if (state.allBound) return undefined;
        const pv = state.podVolumesByNode.get(nodeName);
        if (!pv) return new Status(Code.Error, [`no pod volumes found for node "${nodeName}"`]);
        try {
          await binder.bindPodVolumes(nodeName, pv);
        } catch (err) {
          return errorStatus(err);
        }
        return undefined;
      },
    };
  };
}

export const newVolumeBinding: PluginFactory = createVolumeBinding();
