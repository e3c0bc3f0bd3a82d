/**
 * The scheduler's volume binder (kube 1.20's pkg/controller/volume/scheduling/scheduler_binder.go):
 * sorts a pod's claims into bound ones and ones to bind, checks bound volumes' node affinity, finds
 * an available volume (or dynamic provisioning) for each claim to bind on a node, assumes the
 * choice in memory, writes it to the API server and waits for the PV controller to finish.
 */
import type { KubeObject } from '../../../client/types';
import { claimRefOf } from '../../../controllers/volume/binder/provisioner';
import {
  ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE, claimClass, claimSpec, hasAnnotation, isVolumeBoundToClaim,
  requestedStorage, volumeSpec,
} from '../../../controllers/volume/volume-util';
import { AssumeCache, objectKeyOf, versionOf } from './assume-cache';
import { WAIT_FOR_FIRST_CONSUMER, type StorageClassShape } from './claims';
import { matchTopologySelectorTerms, volumeFitsNode } from './node-selector';
import { claimCandidates, matchVolume, type ClaimCandidates } from './volume-matching';

export const ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const ERR_REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
/** kube's marker for classes whose volumes are created by hand */
export const NOT_SUPPORTED_PROVISIONER = 'kubernetes.io/no-provisioner';

export interface BindingInfo {
  pv: KubeObject;
  pvc: KubeObject;
}

/** what a pod needs on one node (kube's PodVolumes) */
export interface PodVolumes {
  staticBindings: BindingInfo[];
  dynamicProvisions: KubeObject[];
}

export interface ClaimSets {
  boundClaims: KubeObject[];
  /** unbound claims of WaitForFirstConsumer classes, smallest request first */
  claimsToBind: KubeObject[];
  unboundClaimsImmediate: KubeObject[];
}

/** the writes PreBind makes; the API client by default, a fake in tests */
export interface BindingWriter {
  updateVolume(pv: KubeObject): Promise<KubeObject>;
  updateClaim(pvc: KubeObject): Promise<KubeObject>;
}

export interface VolumeBinderOptions {
  volumes: AssumeCache;
  claims: AssumeCache;
  storageClass(name: string): (KubeObject & StorageClassShape) | undefined;
  node(name: string): KubeObject | undefined;
  writer: BindingWriter;
  bindTimeoutMs: number;
  pollIntervalMs: number;
}

/** kube's isPVCFullyBound: the claim names its volume and the PV controller finished */
export const isClaimFullyBound = (pvc: KubeObject): boolean => !!claimSpec(pvc).volumeName && hasAnnotation(pvc, ANN_BIND_COMPLETED);

const claimKeyOf = (pvc: KubeObject) => `${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class VolumeBinder {
  readonly #o: VolumeBinderOptions;

  constructor(o: VolumeBinderOptions) {
    this.#o = o;
  }

  /** kube's IsDelayBindingMode; throws for a class without a binding mode */
  #delayBinding(pvc: KubeObject): boolean {
    const className = claimClass(pvc);
    if (className === '') return false;
    const cls = this.#o.storageClass(className);
    if (!cls) return false;
    if (!cls.volumeBindingMode) throw new Error(`VolumeBindingMode not set for StorageClass "${className}"`);
    return cls.volumeBindingMode === WAIT_FOR_FIRST_CONSUMER;
  }

  /** kube's GetPodVolumes, over the claim names the plugin resolved */
  getPodVolumes(namespace: string, claimNames: readonly string[]): ClaimSets {
    const sets: ClaimSets = { boundClaims: [], claimsToBind: [], unboundClaimsImmediate: [] };
    for (const name of claimNames) {
      const key = `${namespace}/${name}`;
      const pvc = this.#o.claims.get(key);
      if (!pvc) throw new Error(`error getting PVC "${key}": could not find ${this.#o.claims.description} "${key}"`);
      if (isClaimFullyBound(pvc)) sets.boundClaims.push(pvc);
      else if (this.#delayBinding(pvc) && !claimSpec(pvc).volumeName) sets.claimsToBind.push(pvc);
      // a claim pre-bound to a volume waits for the PV controller, as an immediate one does
      else sets.unboundClaimsImmediate.push(pvc);
    }
    sets.claimsToBind.sort((a, b) => requestedStorage(a) - requestedStorage(b));
    return sets;
  }

  /** the node-independent half of kube's FindMatchingVolume, for each claim to bind without a selected node */
  candidates(claimsToBind: readonly KubeObject[]): ClaimCandidates[] {
    const all = this.#o.volumes.list();
    return claimsToBind.filter((claim) => !hasAnnotation(claim, ANN_SELECTED_NODE)).map((claim) => claimCandidates(claim, all));
  }

  /**
   * kube's FindPodVolumes for one node: the reasons it does not fit (none when it does) and, when it
   * does, the bindings and provisionings it would need. Throws for errors.
   */
  findPodVolumes(sets: ClaimSets, candidates: readonly ClaimCandidates[], node: KubeObject): { reasons: string[]; podVolumes: PodVolumes } {
    const podVolumes: PodVolumes = { staticBindings: [], dynamicProvisions: [] };
    const labels = node.metadata?.labels ?? {};
    const nodeName = node.metadata?.name ?? '';
    const reasons: string[] = [];
    for (const pvc of sets.boundClaims) {
      const pvName = claimSpec(pvc).volumeName ?? '';
      const pv = this.#o.volumes.get(pvName);
      if (!pv) throw new Error(`could not find ${this.#o.volumes.description} "${pvName}"`);
      if (!volumeFitsNode(pv, labels)) {
        reasons.push(ERR_REASON_NODE_CONFLICT);
        break;
      }
    }
    if (sets.claimsToBind.length === 0) return { reasons, podVolumes };

    const toProvision: KubeObject[] = [];
    for (const claim of sets.claimsToBind) {
      const selected = claim.metadata?.annotations?.[ANN_SELECTED_NODE];
      if (selected === undefined) continue;
      if (selected !== nodeName) return { reasons: [...reasons, ERR_REASON_BIND_CONFLICT], podVolumes };
      toProvision.push(claim);
    }
    const chosen = new Set<string>();
    for (const c of candidates) {
      const pv = matchVolume(c, labels, chosen);
      if (!pv) {
        toProvision.push(c.claim);
        continue;
      }
      chosen.add(pv.metadata?.name ?? '');
      podVolumes.staticBindings.push({ pv, pvc: c.claim });
    }
    if (toProvision.length > 0) {
      const provisions = this.#checkProvisions(toProvision, labels);
      if (!provisions) return { reasons: [...reasons, ERR_REASON_BIND_CONFLICT], podVolumes };
      podVolumes.dynamicProvisions = provisions;
    }
    return { reasons, podVolumes };
  }

  /** kube's checkVolumeProvisions: undefined when some claim cannot be provisioned on the node */
  #checkProvisions(claims: readonly KubeObject[], labels: Readonly<Record<string, string>>): KubeObject[] | undefined {
    for (const claim of claims) {
      const className = claimClass(claim);
      if (className === '') throw new Error(`no class for claim "${claimKeyOf(claim)}"`);
      const cls = this.#o.storageClass(className);
      if (!cls) throw new Error(`failed to find storage class "${className}"`);
      const provisioner = cls.provisioner ?? '';
      if (provisioner === '' || provisioner === NOT_SUPPORTED_PROVISIONER) return undefined;
      if (!matchTopologySelectorTerms(cls.allowedTopologies, labels)) return undefined;
    }
    return [...claims];
  }

  /** kube's AssumePodVolumes: true when nothing is left to bind */
  assumePodVolumes(claimNames: readonly string[], namespace: string, nodeName: string, podVolumes: PodVolumes): boolean {
    if (claimNames.every((name) => {
      const pvc = this.#o.claims.get(`${namespace}/${name}`);
      return pvc !== undefined && isClaimFullyBound(pvc);
    })) return true;
    const bindings: BindingInfo[] = [];
    const provisions: KubeObject[] = [];
    try {
      for (const b of podVolumes.staticBindings) {
        const pv = withClaimRef(b.pv, b.pvc);
        if (pv !== b.pv) this.#o.volumes.assume(pv);
        bindings.push({ pv, pvc: b.pvc });
      }
      for (const claim of podVolumes.dynamicProvisions) {
        const next = { ...claim, metadata: { ...claim.metadata, annotations: { ...claim.metadata?.annotations, [ANN_SELECTED_NODE]: nodeName } } };
        this.#o.claims.assume(next);
        provisions.push(next);
      }
    } catch (err) {
      this.#revert(bindings, provisions);
      throw err;
    }
    podVolumes.staticBindings = bindings;
    podVolumes.dynamicProvisions = provisions;
    return false;
  }

  /** kube's RevertAssumedPodVolumes */
  revertAssumedPodVolumes(podVolumes: PodVolumes): void {
    this.#revert(podVolumes.staticBindings, podVolumes.dynamicProvisions);
  }

  #revert(bindings: readonly BindingInfo[], provisions: readonly KubeObject[]): void {
    for (const b of bindings) this.#o.volumes.restore(objectKeyOf(b.pv));
    for (const c of provisions) this.#o.claims.restore(objectKeyOf(c));
  }

  /** kube's BindPodVolumes: write, then wait for the PV controller, up to the bind timeout */
  async bindPodVolumes(nodeName: string, podVolumes: PodVolumes): Promise<void> {
    const bindings = podVolumes.staticBindings;
    const provisions = podVolumes.dynamicProvisions;
    let doneBindings = 0;
    let doneProvisions = 0;
    try {
      for (const b of bindings) {
        b.pv = await this.#o.writer.updateVolume(b.pv);
        doneBindings++;
      }
      for (let i = 0; i < provisions.length; i++) {
        provisions[i] = await this.#o.writer.updateClaim(provisions[i]);
        doneProvisions++;
      }
    } finally {
      // what did not reach the API server is no longer assumed
      this.#revert(bindings.slice(doneBindings), provisions.slice(doneProvisions));
    }
    const deadline = Date.now() + this.#o.bindTimeoutMs;
    for (;;) {
      await sleep(Math.min(this.#o.pollIntervalMs, Math.max(0, deadline - Date.now())));
      let done: boolean;
      try {
        done = this.checkBindings(nodeName, bindings, provisions);
      } catch (err) {
        throw new Error(`binding volumes: ${(err as Error).message}`);
      }
      if (done) return;
      if (Date.now() >= deadline) throw new Error('binding volumes: timed out waiting for the condition');
    }
  }

  /** kube's checkBindings: true once every claim is bound by the PV controller; throws when it undid our choice */
  checkBindings(nodeName: string, bindings: readonly BindingInfo[], provisions: readonly KubeObject[]): boolean {
    const node = this.#o.node(nodeName);
    if (!node) throw new Error(`failed to get node "${nodeName}": node "${nodeName}" not found`);
    for (const b of bindings) {
      const pvName = b.pv.metadata?.name ?? '';
      const pv = this.#o.volumes.getAPI(pvName);
      if (!pv) throw new Error(`failed to check binding: could not find ${this.#o.volumes.description} "${pvName}"`);
      const pvc = this.#o.claims.getAPI(claimKeyOf(b.pvc));
      if (!pvc) throw new Error(`failed to check binding: could not find ${this.#o.claims.description} "${claimKeyOf(b.pvc)}"`);
      // the informer has not seen our write yet
      if (versionOf(b.pv) > versionOf(pv)) return false;
      if (!volumeFitsNode(pv, node.metadata?.labels ?? {})) {
        throw new Error(`pv "${pvName}" node affinity doesn't match node "${nodeName}": no matching NodeSelectorTerms`);
      }
      const ref = volumeSpec(pv).claimRef;
      if (!ref || !ref.uid) throw new Error(`ClaimRef got reset for pv "${pvName}"`);
      if (!isClaimFullyBound(pvc)) return false;
    }
    for (const claim of provisions) {
      const key = claimKeyOf(claim);
      const pvc = this.#o.claims.getAPI(key);
      if (!pvc) throw new Error(`failed to check provisioning pvc: could not find ${this.#o.claims.description} "${key}"`);
      if (versionOf(claim) > versionOf(pvc)) return false;
      const selected = pvc.metadata?.annotations?.[ANN_SELECTED_NODE];
      if (pvc.metadata?.annotations === undefined) throw new Error(`selectedNode annotation reset for PVC "${pvc.metadata?.name}"`);
      // the provisioner drops the annotation when it fails
      if (selected !== nodeName) throw new Error(`provisioning failed for PVC "${pvc.metadata?.name}"`);
      const volumeName = claimSpec(pvc).volumeName;
      if (volumeName) {
        const pv = this.#o.volumes.getAPI(volumeName);
        if (!pv) return false;
        if (!volumeFitsNode(pv, node.metadata?.labels ?? {})) {
          throw new Error(`pv "${volumeName}" node affinity doesn't match node "${nodeName}": no matching NodeSelectorTerms`);
        }
      }
      if (!isClaimFullyBound(pvc)) return false;
    }
    return true;
  }
}

/** kube's GetBindVolumeToClaim: the volume with the claim in its claimRef (the same object when it already is) */
export function withClaimRef(pv: KubeObject, pvc: KubeObject): KubeObject {
  const ref = volumeSpec(pv).claimRef;
  const m = pvc.metadata ?? {};
  if (ref && ref.name === m.name && ref.namespace === m.namespace && ref.uid === m.uid) return pv;
  const byController = !isVolumeBoundToClaim(pv, pvc);
  const annotations = { ...pv.metadata?.annotations };
  if (byController) annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
  return { ...pv, metadata: { ...pv.metadata, annotations }, spec: { ...(pv.spec as Record<string, unknown> | undefined), claimRef: claimRefOf(pvc) } };
}
