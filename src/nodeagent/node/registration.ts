/**
 * Registration as kubelet 1.20 does it (kubelet_node_status.go): the Node it creates (initialNode)
 * and, when the Node exists already, the few fields it takes over from its own view
 * (tryRegisterWithAPIServer): the controller-managed-attach-detach annotation, the default labels,
 * extended resources zeroed (no device plugin state survives here) and hugepage capacities.
 */
import type { NodeObject } from './setters';

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_BETA_OS = 'beta.kubernetes.io/os';
export const LABEL_BETA_ARCH = 'beta.kubernetes.io/arch';
export const ANNOTATION_CMAD = 'volumes.kubernetes.io/controller-managed-attach-detach';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/** the labels kubelet keeps in step on an existing node (kubelet's updateDefaultLabels list) */
export const DEFAULT_LABELS = Object.freeze([
  LABEL_HOSTNAME,
  'topology.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
  'beta.kubernetes.io/instance-type',
  LABEL_OS,
  LABEL_ARCH,
  'node.kubernetes.io/windows-build',
  LABEL_BETA_OS,
  LABEL_BETA_ARCH,
]);

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface InitialNodeOptions {
  nodeName: string;
  /** the hostname label's value: the lower-cased host name or --hostname-override */
  hostname: string;
  operatingSystem: string;
  architecture: string;
  /** --node-labels, already validated; they win over the defaults (kubelet warns and overwrites) */
  nodeLabels?: Readonly<Record<string, string>>;
  registerWithTaints?: readonly Taint[];
  /** false: spec.unschedulable and the unschedulable taint (--register-schedulable=false) */
  registerSchedulable?: boolean;
  /** --enable-controller-attach-detach (default true) */
  controllerAttachDetach?: boolean;
  /** a warning for each --node-labels entry that overwrites a default */
  warn?: (message: string) => void;
}

/** the Node kubelet creates, before its status setters run */
export function initialNode(opts: InitialNodeOptions): NodeObject {
  const labels: Record<string, string> = {
    [LABEL_HOSTNAME]: opts.hostname,
    [LABEL_OS]: opts.operatingSystem,
    [LABEL_ARCH]: opts.architecture,
    [LABEL_BETA_OS]: opts.operatingSystem,
    [LABEL_BETA_ARCH]: opts.architecture,
  };
  for (const [k, v] of Object.entries(opts.nodeLabels ?? {})) {
    if (k in labels && labels[k] !== v) opts.warn?.(`the node label ${k}=${v} will overwrite default setting ${labels[k]}`);
    labels[k] = v;
  }
  const schedulable = opts.registerSchedulable ?? true;
  const taints: Taint[] = (opts.registerWithTaints ?? []).map((t) => ({ ...t }));
  if (!schedulable) taints.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
  const node: NodeObject = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: opts.nodeName, labels },
    spec: {},
  };
  if (!schedulable) node.spec!.unschedulable = true;
  if (taints.length) node.spec!.taints = taints;
  if (opts.controllerAttachDetach ?? true) node.metadata.annotations = { [ANNOTATION_CMAD]: 'true' };
  return node;
}

/** kube's IsExtendedResourceName: a name outside kubernetes.io with a domain, not a quota name */
export function isExtendedResource(name: string): boolean {
  if (!name.includes('/') || name.startsWith('requests.')) return false;
  const domain = name.slice(0, name.indexOf('/'));
  return domain !== 'kubernetes.io' && !domain.endsWith('.kubernetes.io');
}

/**
 * Brings an existing node (mutated) in line with the one kubelet would create, as
 * tryRegisterWithAPIServer does; answers whether anything changed (then the status patch is sent).
 */
export function reconcileExistingNode(wanted: NodeObject, existing: NodeObject, opts: { resetExtendedResources?: boolean } = {}): boolean {
  let changed = false;
  // reconcileCMADAnnotationWithExistingNode
  const wantCmad = wanted.metadata.annotations?.[ANNOTATION_CMAD] === 'true';
  const hasCmad = existing.metadata.annotations?.[ANNOTATION_CMAD] === 'true';
  if (wantCmad !== hasCmad) {
    const annotations = (existing.metadata.annotations ??= {});
    if (wantCmad) annotations[ANNOTATION_CMAD] = 'true';
    else delete annotations[ANNOTATION_CMAD];
    changed = true;
  }
  // updateDefaultLabels: only labels the new node has are taken over; an empty value is removed
  const labels = (existing.metadata.labels ??= {});
  for (const key of DEFAULT_LABELS) {
    const value = wanted.metadata.labels?.[key];
    if (value === undefined) continue;
    if (labels[key] !== value) {
      labels[key] = value;
      changed = true;
    }
    if (labels[key] === '') delete labels[key];
  }
  // reconcileExtendedResource: device plugins re-register their resources after a restart
  if (opts.resetExtendedResources ?? true) {
    const status = existing.status ?? {};
    for (const name of Object.keys(status.capacity ?? {})) {
      if (!isExtendedResource(name)) continue;
      if (status.capacity![name] !== '0' || (status.allocatable && status.allocatable[name] !== '0')) changed = true;
      status.capacity![name] = '0';
      if (status.allocatable) status.allocatable[name] = '0';
    }
  }
  // reconcileHugePageResource: the existing node's hugepage capacities become the host's
  const wantedCap = wanted.status?.capacity ?? {};
  const status = (existing.status ??= {});
  const cap = (status.capacity ??= {});
  for (const [name, value] of Object.entries(wantedCap)) {
    if (!name.startsWith('hugepages-') || cap[name] === value) continue;
    cap[name] = value;
    (status.allocatable ??= {})[name] = wanted.status?.allocatable?.[name] ?? value;
    changed = true;
  }
  for (const name of Object.keys(cap)) {
    if (!name.startsWith('hugepages-') || name in wantedCap) continue;
    delete cap[name];
    if (status.allocatable) delete status.allocatable[name];
    changed = true;
  }
  return changed;
}

/** kubelet's nodeutil.GetHostname: --hostname-override trimmed, else the machine's name, lower-cased */
export function nodeHostname(override: string | undefined, machineName: string): string {
  const name = (override?.trim() || machineName).trim().toLowerCase();
  if (!name) throw new Error('empty hostname is invalid');
  return name;
}
