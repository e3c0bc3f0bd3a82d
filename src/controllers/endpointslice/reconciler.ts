/**
 * kube's endpointslice reconciler (pkg/controller/endpointslice/reconciler.go): compare the slices a
 * service has with the endpoints its pods make, per address type and per distinct set of ports,
 * and plan the fewest writes: keep endpoints where they are, drop the ones no longer wanted, fill
 * the slices being updated anyway before touching unchanged ones, put what is left into the
 * unchanged slice it fits best, and only then create new slices of at most maxEndpointsPerSlice.
 */
import type { KubeObject } from '../../client/types';
import { podMayServe, podIPs, serviceSpec } from '../util/service-pods';
import {
  addressTypesFor, endpointKey, endpointPortsFor, endpointsEqualBeyondKey, newSlice, podToEndpoint, portMapKey,
  sliceLabels, type AddressType, type EndpointSlice, type SliceEndpoint, type SlicePort,
} from './slice-util';

export interface SlicePlan {
  create: EndpointSlice[];
  update: EndpointSlice[];
  delete: EndpointSlice[];
}

export interface PlanInput {
  service: KubeObject;
  pods: readonly KubeObject[];
  /** the slices this controller manages for the service */
  existing: readonly EndpointSlice[];
  nodeOf: (name: string) => KubeObject | undefined;
  maxEndpointsPerSlice: number;
}

/** a slice belongs to this very service object (not an older one of the same name) */
export function ownedBy(slice: KubeObject, svc: KubeObject): boolean {
  return (slice.metadata?.ownerReferences ?? []).some((r) => r.uid === svc.metadata?.uid);
}

/** the whole plan for a service (kube's reconcile): every address type it serves */
export function planSlices(input: PlanInput): SlicePlan {
  const types = addressTypesFor(input.service);
  const plan: SlicePlan = { create: [], update: [], delete: [] };
  const byType = new Map<AddressType, EndpointSlice[]>();
  for (const s of input.existing) {
    if (!types.includes(s.addressType)) plan.delete.push(s);
    else byType.set(s.addressType, [...(byType.get(s.addressType) ?? []), s]);
  }
  for (const t of types) {
    const p = planAddressType(input, byType.get(t) ?? [], t);
    plan.create.push(...p.create);
    plan.update.push(...p.update);
    plan.delete.push(...p.delete);
  }
  return plan;
}

/** the pod belongs in the slices (kube's ShouldPodBeInEndpoints, and no terminating pods unless unready ones are published) */
function podWanted(pod: KubeObject, svc: KubeObject): boolean {
  if (podIPs(pod).length === 0 || !podMayServe(pod)) return false;
  return !pod.metadata?.deletionTimestamp || serviceSpec(svc).publishNotReadyAddresses === true;
}

function planAddressType(input: PlanInput, existing: readonly EndpointSlice[], addressType: AddressType): SlicePlan {
  const { service } = input;
  const plan: SlicePlan = { create: [], update: [], delete: [] };
  const existingByPorts = new Map<string, EndpointSlice[]>();
  for (const s of existing) {
    if (!ownedBy(s, service)) {
      plan.delete.push(s);
      continue;
    }
    const k = portMapKey(s.ports);
    existingByPorts.set(k, [...(existingByPorts.get(k) ?? []), s]);
  }
  const desired = new Map<string, { ports: SlicePort[]; endpoints: Map<string, SliceEndpoint> }>();
  for (const pod of input.pods) {
    if (!podWanted(pod, service)) continue;
    const ports = endpointPortsFor(service, pod);
    const k = portMapKey(ports);
    let group = desired.get(k);
    if (!group) desired.set(k, (group = { ports, endpoints: new Map() }));
    const nodeName = ((pod.spec ?? {}) as { nodeName?: string }).nodeName;
    const ep = podToEndpoint(pod, nodeName ? input.nodeOf(nodeName) : undefined, service, addressType);
    if (ep.addresses.length > 0) group.endpoints.set(endpointKey(ep), ep);
  }
  for (const [k, group] of desired) {
    const p = planPortMapping(input, existingByPorts.get(k) ?? [], group.endpoints, group.ports, addressType);
    plan.create.push(...p.create);
    plan.update.push(...p.update);
    plan.delete.push(...p.delete);
  }
  for (const [k, slices] of existingByPorts) if (!desired.has(k)) plan.delete.push(...slices);

  // a service with no endpoints still gets one empty slice (kube's placeholder), kept if it is there
  if (existing.length === plan.delete.length && plan.create.length === 0) {
    const placeholder = newSlice(service, [], addressType);
    const keep = plan.delete.findIndex((s) => s.endpoints.length === 0 && s.ports.length === 0 && ownedBy(s, service) && !sliceLabels(s, service).changed);
    if (plan.delete.length === 1 && keep === 0) plan.delete = [];
    else plan.create.push(placeholder);
  }
  return plan;
}

/** kube's reconcileByPortMapping: the slices of one set of ports */
function planPortMapping(
  input: PlanInput,
  existing: readonly EndpointSlice[],
  wanted: Map<string, SliceEndpoint>,
  ports: SlicePort[],
  addressType: AddressType,
): SlicePlan {
  const max = Math.max(1, input.maxEndpointsPerSlice);
  const byName = new Map<string, EndpointSlice>();
  const unchanged = new Set<string>();
  const toUpdate = new Set<string>();
  const toDelete = new Set<string>();

  // 1. keep wanted endpoints where they are, refreshed; drop the rest
  for (const slice of existing) {
    const name = slice.metadata?.name ?? '';
    byName.set(name, slice);
    const kept: SliceEndpoint[] = [];
    let changed = false;
    for (const ep of slice.endpoints) {
      const k = endpointKey(ep);
      const got = wanted.get(k);
      if (!got) continue;
      kept.push(got);
      if (!endpointsEqualBeyondKey(got, ep)) changed = true;
      wanted.delete(k);
    }
    const { labels, changed: labelsChanged } = sliceLabels(slice, input.service);
    if (changed || kept.length !== slice.endpoints.length) {
      if (kept.length === 0) toDelete.add(name);
      else {
        byName.set(name, { ...slice, metadata: { ...slice.metadata, labels }, endpoints: kept });
        toUpdate.add(name);
      }
    } else if (labelsChanged) {
      byName.set(name, { ...slice, metadata: { ...slice.metadata, labels } });
      toUpdate.add(name);
    } else {
      unchanged.add(name);
    }
  }

  const remaining = [...wanted.values()];
  // 2. fill the slices written anyway, fullest first
  if (remaining.length > 0 && toUpdate.size > 0) {
    const slices = [...toUpdate].map((n) => byName.get(n)!).sort((a, b) => b.endpoints.length - a.endpoints.length);
    for (const s of slices) {
      while (remaining.length > 0 && s.endpoints.length < max) s.endpoints = [...s.endpoints, remaining.shift()!];
    }
  }

  // 3. what is left goes into the unchanged slice it fits best, else into new slices
  const create: EndpointSlice[] = [];
  while (remaining.length > 0) {
    let target: EndpointSlice | undefined;
    if (remaining.length < max && unchanged.size > 0) {
      const fit = closestFit([...unchanged].map((n) => byName.get(n)!), remaining.length, max);
      if (fit) {
        target = { ...fit, endpoints: [...fit.endpoints] };
        byName.set(fit.metadata?.name ?? '', target);
      }
    }
    target ??= newSlice(input.service, ports, addressType);
    while (remaining.length > 0 && target.endpoints.length < max) target.endpoints.push(remaining.shift()!);
    const name = target.metadata?.name;
    if (name) {
      toUpdate.add(name);
      unchanged.delete(name);
    } else {
      create.push(target);
    }
  }
  return {
    create,
    update: [...toUpdate].map((n) => byName.get(n)!),
    delete: [...toDelete].map((n) => byName.get(n)!),
  };
}

/** kube's getSliceToFill: the slice that `count` more endpoints fill most closely without overflowing */
export function closestFit<T extends { endpoints: unknown[] }>(slices: readonly T[], count: number, max: number): T | undefined {
  let best: T | undefined;
  let bestDiff = max;
  for (const s of slices) {
    const diff = max - (count + s.endpoints.length);
    if (diff >= 0 && diff < bestDiff) {
      bestDiff = diff;
      best = s;
      if (diff === 0) break;
    }
  }
  return best;
}
