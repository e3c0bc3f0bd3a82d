/**
 * Choosing an available PersistentVolume for a WaitForFirstConsumer claim on a node (kube 1.20's
 * FindMatchingVolume with a node): everything but the node is checked once a cycle; per node only
 * node affinity remains. Local volumes pinned to hostnames are indexed by hostname so that a node
 * looks at its own and the unpinned ones only.
 */
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '../../../api/selectors';
import type { KubeObject } from '../../../client/types';
import { accessModesContained, volumeModeMismatch } from '../../../controllers/volume/binder/matching';
import {
  claimClass, claimSpec, isVolumeBoundToClaim, phaseOf, requestedStorage, volumeCapacity, volumeClass, volumeSpec,
} from '../../../controllers/volume/volume-util';
import { volumeFitsNode, type NodeSelectorTerm } from './node-selector';

/** the volumes one claim may get, narrowed once a cycle by everything but the node */
export interface ClaimCandidates {
  claim: KubeObject;
  /** a volume pre-bound to the claim decides alone */
  prebound?: KubeObject;
  /** available volumes pinned to one or more hostnames (local volumes), smallest first, by hostname */
  pinned: Map<string, FreeVolume[]>;
  /** the other available volumes, smallest first */
  unpinned: FreeVolume[];
}

interface FreeVolume {
  pv: KubeObject;
  capacity: number;
  /** its place in the list: among equal sizes the first listed wins, as kube's strict comparison keeps it */
  order: number;
}

const HOSTNAME = 'kubernetes.io/hostname';

/** the hostnames a volume's node affinity is exactly `kubernetes.io/hostname In (...)`, else undefined */
function pinnedHosts(pv: KubeObject): string[] | undefined {
  const terms = (pv.spec as { nodeAffinity?: { required?: { nodeSelectorTerms?: NodeSelectorTerm[] } | null } | null } | undefined)?.nodeAffinity?.required?.nodeSelectorTerms;
  if (!terms || terms.length !== 1) return undefined;
  const [term] = terms;
  if (term.matchFields?.length || term.matchExpressions?.length !== 1) return undefined;
  const [e] = term.matchExpressions;
  if (e.key !== HOSTNAME || e.operator !== 'In' || !e.values?.length) return undefined;
  return e.values;
}

const before = (a: FreeVolume, b: FreeVolume) => a.capacity < b.capacity || (a.capacity === b.capacity && a.order < b.order);


const claimKeyOf = (pvc: KubeObject) => `${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`;

/** the volumes a claim may get on some node: of its class, large enough, of its modes, selected, available */
export function claimCandidates(claim: KubeObject, volumes: readonly KubeObject[]): ClaimCandidates {
  const requested = requestedStorage(claim);
  const wantedClass = claimClass(claim);
  const wantedModes = claimSpec(claim).accessModes ?? [];
  let selector: LabelSelector | undefined;
  const sel = claimSpec(claim).selector;
  if (sel) {
    try {
      selector = labelSelectorFromObject(sel as LabelSelectorObject);
    } catch (err) {
      throw new Error(`error creating internal label selector for claim: ${claimKeyOf(claim)}: ${(err as Error).message}`);
    }
  }
  const c: ClaimCandidates = { claim, pinned: new Map(), unpinned: [] };
  const free: FreeVolume[] = [];
  for (const pv of volumes) {
    if (volumeClass(pv) !== wantedClass) continue;
    const spec = volumeSpec(pv);
    const boundToClaim = isVolumeBoundToClaim(pv, claim);
    if (spec.claimRef && !boundToClaim) continue;
    if (volumeCapacity(pv) < requested) continue;
    if (volumeModeMismatch(pv, claim)) continue;
    if (pv.metadata?.deletionTimestamp) continue;
    if (boundToClaim) {
      c.prebound ??= pv;
      continue;
    }
    if (phaseOf(pv) !== 'Available') continue;
    if (selector && !selector.matches(pv.metadata?.labels ?? {})) continue;
    if (!accessModesContained(spec.accessModes ?? [], wantedModes)) continue;
    free.push({ pv, capacity: volumeCapacity(pv), order: free.length });
  }
  free.sort((a, b) => a.capacity - b.capacity || a.order - b.order);
  for (const f of free) {
    const hosts = pinnedHosts(f.pv);
    if (!hosts) {
      c.unpinned.push(f);
      continue;
    }
    for (const h of new Set(hosts)) {
      let list = c.pinned.get(h);
      if (!list) c.pinned.set(h, (list = []));
      list.push(f);
    }
  }
  return c;
}

/** the smallest candidate the node can reach that no other claim of the pod took; a pre-bound volume decides alone */
export function matchVolume(c: ClaimCandidates, labels: Readonly<Record<string, string>>, chosen: ReadonlySet<string>): KubeObject | undefined {
  if (c.prebound && !chosen.has(c.prebound.metadata?.name ?? '')) return volumeFitsNode(c.prebound, labels) ? c.prebound : undefined;
  // volumes pinned to this node's hostname fit it without a check; merge them with the rest by size
  const hostname = labels[HOSTNAME];
  const pinned = hostname === undefined ? [] : c.pinned.get(hostname) ?? [];
  const rest = c.unpinned;
  let i = 0;
  let j = 0;
  while (i < pinned.length || j < rest.length) {
    const takePinned = j >= rest.length || (i < pinned.length && before(pinned[i], rest[j]));
    const f = takePinned ? pinned[i++] : rest[j++];
    if (chosen.has(f.pv.metadata?.name ?? '')) continue;
    if (takePinned || volumeFitsNode(f.pv, labels)) return f.pv;
  }
  return undefined;
}
