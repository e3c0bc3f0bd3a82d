/**
 * kube's endpointslicemirroring reconciler (pkg/controller/endpointslicemirroring): each subset of
 * a user's Endpoints becomes, per address type, one EndpointSlice of at most
 * --mirroring-max-endpoints-per-subset endpoints (the rest are skipped, with an event), labelled
 * and annotated as the Endpoints are (minus the trigger time), owned by the Endpoints.
 */
import type { KubeObject } from '../../client/types';
import { newControllerRef } from '../util/controller-ref';
import type { SlicePlan } from '../endpointslice/reconciler';
import {
  endpointKey, endpointsEqualBeyondKey, MANAGED_BY_LABEL, portMapKey, SERVICE_NAME_LABEL, slicePrefix, type AddressType,
  type EndpointSlice, type SliceEndpoint, type SlicePort,
} from '../endpointslice/slice-util';
import { LAST_CHANGE_TRIGGER_TIME } from '../util/trigger-time';

export const MIRRORING_CONTROLLER_NAME = 'endpointslicemirroring-controller.k8s.io';

interface Address {
  ip?: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: SliceEndpoint['targetRef'];
}

interface Subset {
  addresses?: Address[];
  notReadyAddresses?: Address[];
  ports?: { name?: string; port?: number; protocol?: string; appProtocol?: string }[];
}

export interface MirrorPlan extends SlicePlan {
  /** addresses that are not IPs */
  invalid: number;
  /** addresses skipped, invalid or beyond the per-subset limit */
  skipped: number;
}

/** an IPv4 or IPv6 address type, or undefined for something that is not an IP */
export function addressTypeOf(ip: string): AddressType | undefined {
  if (/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(ip)) return 'IPv4';
  if (ip.includes(':') && /^[0-9a-fA-F:.]+$/.test(ip) && (ip.match(/::/g) ?? []).length <= 1) return 'IPv6';
  return undefined;
}

function addressToEndpoint(a: Address, ready: boolean): SliceEndpoint {
  const ep: SliceEndpoint = { addresses: [a.ip ?? ''], conditions: { ready } };
  if (a.hostname) ep.hostname = a.hostname;
  if (a.targetRef) ep.targetRef = a.targetRef;
  if (a.nodeName) ep.nodeName = a.nodeName;
  return ep;
}

function withoutKeys(m: Record<string, string> | undefined, ...keys: string[]): Record<string, string> {
  const out = { ...(m ?? {}) };
  for (const k of keys) delete out[k];
  return out;
}

function sameMap(a: Record<string, string>, b: Record<string, string>): boolean {
  const ak = Object.keys(a);
  return ak.length === Object.keys(b).length && ak.every((k) => b[k] === a[k]);
}

/** a new slice mirroring `endpoints` (named `name` when it replaces one) */
export function newMirrorSlice(endpoints: KubeObject, ports: SlicePort[], addressType: AddressType, name?: string): EndpointSlice {
  const owner = newControllerRef({ ...endpoints, apiVersion: 'v1', kind: 'Endpoints' });
  const labels: Record<string, string> = {
    ...(endpoints.metadata?.labels ?? {}),
    [SERVICE_NAME_LABEL]: endpoints.metadata?.name ?? '',
    [MANAGED_BY_LABEL]: MIRRORING_CONTROLLER_NAME,
  };
  const annotations = withoutKeys(endpoints.metadata?.annotations, LAST_CHANGE_TRIGGER_TIME);
  const metadata: KubeObject['metadata'] = { namespace: endpoints.metadata?.namespace, labels, annotations, ownerReferences: [owner] };
  if (name) metadata.name = name;
  else metadata.generateName = slicePrefix(endpoints.metadata?.name ?? '');
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata, addressType, endpoints: [], ports };
}

export function planMirror(endpoints: KubeObject, existing: readonly EndpointSlice[], maxPerSubset: number): MirrorPlan {
  const max = Math.max(1, maxPerSubset);
  const wanted = new Map<string, { ports: SlicePort[]; addressType: AddressType; endpoints: Map<string, SliceEndpoint> }>();
  let invalid = 0;
  let skipped = 0;
  for (const subset of (endpoints.subsets ?? []) as Subset[]) {
    const ports: SlicePort[] = (subset.ports ?? []).map((p) => {
      const out: SlicePort = { name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP' };
      if (p.appProtocol) out.appProtocol = p.appProtocol;
      return out;
    });
    const total = (subset.addresses ?? []).length + (subset.notReadyAddresses ?? []).length;
    let added = 0;
    const add = (a: Address, ready: boolean) => {
      const type = addressTypeOf(a.ip ?? '');
      if (!type) {
        invalid++;
        return;
      }
      const key = `${type}/${portMapKey(ports)}`;
      let group = wanted.get(key);
      if (!group) wanted.set(key, (group = { ports, addressType: type, endpoints: new Map() }));
      const ep = addressToEndpoint(a, ready);
      group.endpoints.set(endpointKey(ep), ep);
      added++;
    };
    for (const a of subset.addresses ?? []) {
      if (added >= max) break;
      add(a, true);
    }
    for (const a of subset.notReadyAddresses ?? []) {
      if (added >= max) break;
      add(a, false);
    }
    skipped += total - added;
  }

  const existingByKey = new Map<string, EndpointSlice[]>();
  for (const s of existing) {
    const key = `${s.addressType}/${portMapKey(s.ports)}`;
    existingByKey.set(key, [...(existingByKey.get(key) ?? []), s]);
  }
  const plan: MirrorPlan = { create: [], update: [], delete: [], invalid, skipped };
  for (const [key, group] of wanted) {
    const slices = existingByKey.get(key) ?? [];
    if (group.endpoints.size === 0) {
      plan.delete.push(...slices);
      continue;
    }
    // one slice per group: the first existing one is kept (if it is already right) or rewritten
    plan.delete.push(...slices.slice(1));
    const first = slices[0];
    if (first && matches(first, endpoints, group.endpoints)) continue;
    const slice = newMirrorSlice(endpoints, group.ports, group.addressType, first?.metadata?.name);
    if (first) slice.metadata!.resourceVersion = first.metadata?.resourceVersion;
    slice.endpoints = [...group.endpoints.values()].slice(0, max);
    (first ? plan.update : plan.create).push(slice);
  }
  for (const [key, slices] of existingByKey) if (!wanted.has(key)) plan.delete.push(...slices);
  return plan;
}

/** the slice already mirrors these endpoints, labels and annotations */
function matches(slice: EndpointSlice, endpoints: KubeObject, wanted: Map<string, SliceEndpoint>): boolean {
  if (slice.endpoints.length !== wanted.size) return false;
  for (const ep of slice.endpoints) {
    const w = wanted.get(endpointKey(ep));
    if (!w || !endpointsEqualBeyondKey(w, ep) || (w.hostname ?? '') !== (ep.hostname ?? '')) return false;
  }
  const labels = withoutKeys(slice.metadata?.labels, MANAGED_BY_LABEL, SERVICE_NAME_LABEL);
  const annotations = withoutKeys(endpoints.metadata?.annotations, LAST_CHANGE_TRIGGER_TIME);
  return sameMap(labels, withoutKeys(endpoints.metadata?.labels, MANAGED_BY_LABEL, SERVICE_NAME_LABEL)) && sameMap(annotations, slice.metadata?.annotations ?? {});
}
