/**
 * A small vocabulary for writing definitions by hand. Each helper returns a plain SchemaNode in
 * kube's OpenAPI v2 shape (`$ref` siblings carry the description, as kube's own document does), so
 * the definition files read like a field table and the output needs no post-processing.
 */
import type { Definitions, SchemaNode } from './types';

export const CORE = 'io.k8s.api.core.v1.';
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
export const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

/** `io.k8s.api.core.v1.<name>` */
export const core = (name: string): string => CORE + name;
/** `io.k8s.apimachinery.pkg.apis.meta.v1.<name>` */
export const meta = (name: string): string => META + name;

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface ObjOptions {
  required?: string[];
  /** structType=atomic in kube: the struct is replaced as a whole by apply */
  atomic?: boolean;
  gvk?: GroupVersionKind;
}

function described(node: SchemaNode, desc?: string): SchemaNode {
  return desc ? { description: desc, ...node } : node;
}

export function obj(desc: string, properties: Record<string, SchemaNode>, opts: ObjOptions = {}): SchemaNode {
  const node: SchemaNode = { description: desc, type: 'object', properties };
  if (opts.required?.length) node.required = opts.required;
  if (opts.atomic) node['x-kubernetes-map-type'] = 'atomic';
  if (opts.gvk) node['x-kubernetes-group-version-kind'] = [{ ...opts.gvk }];
  return node;
}

export interface ScalarOptions {
  enum?: unknown[];
  default?: unknown;
}

function scalar(base: SchemaNode, desc: string | undefined, opts: ScalarOptions = {}): SchemaNode {
  const node = described(base, desc);
  if (opts.enum) node.enum = [...opts.enum];
  if (opts.default !== undefined) node.default = opts.default;
  return node;
}

export const str = (desc?: string, opts?: ScalarOptions): SchemaNode => scalar({ type: 'string' }, desc, opts);
/** a string limited to kube's enum values (`+enum` types) */
export const oneOf = (desc: string, values: string[], opts: ScalarOptions = {}): SchemaNode =>
  scalar({ type: 'string' }, desc, { ...opts, enum: values });
export const int32 = (desc?: string, opts?: ScalarOptions): SchemaNode =>
  scalar({ type: 'integer', format: 'int32' }, desc, opts);
export const int64 = (desc?: string, opts?: ScalarOptions): SchemaNode =>
  scalar({ type: 'integer', format: 'int64' }, desc, opts);
export const bool = (desc?: string, opts?: ScalarOptions): SchemaNode => scalar({ type: 'boolean' }, desc, opts);
/** []byte in Go: base64 in JSON */
export const bytes = (desc?: string): SchemaNode => described({ type: 'string', format: 'byte' }, desc);

export const ref = (name: string, desc?: string): SchemaNode => described({ $ref: `#/definitions/${name}` }, desc);
/** metav1.Time: RFC 3339 timestamp string */
export const time = (desc: string): SchemaNode => ref(meta('Time'), desc);
/** metav1.MicroTime: RFC 3339 timestamp with microseconds */
export const microTime = (desc: string): SchemaNode => ref(meta('MicroTime'), desc);
export const intOrString = (desc: string): SchemaNode => ref(INT_OR_STRING, desc);
export const quantity = (desc: string): SchemaNode => ref(QUANTITY, desc);
export const objectMeta = (desc = 'Metadata of the object: name, namespace, labels and the like.'): SchemaNode =>
  ref(meta('ObjectMeta'), desc);

export interface MapOptions {
  mapType?: 'atomic' | 'granular';
}

/** map[string]<values>; values default to strings */
export function map(desc: string, values: SchemaNode = { type: 'string' }, opts: MapOptions = {}): SchemaNode {
  const node: SchemaNode = { description: desc, type: 'object', additionalProperties: values };
  if (opts.mapType) node['x-kubernetes-map-type'] = opts.mapType;
  return node;
}

/** kube's ResourceList: resource name -> quantity */
export const resourceList = (desc: string): SchemaNode => map(desc, ref(QUANTITY));

/** a list with no list-type marker in kube */
export const list = (items: SchemaNode, desc: string): SchemaNode => ({ description: desc, type: 'array', items });
/** listType=atomic: replaced as a whole by merges */
export const atomic = (items: SchemaNode, desc: string): SchemaNode => ({
  ...list(items, desc),
  'x-kubernetes-list-type': 'atomic',
});

export interface SetOptions {
  /** also carries patchStrategy=merge for strategic merge patch */
  merge?: boolean;
}

/** listType=set: scalar items, each present once */
export function set(items: SchemaNode, desc: string, opts: SetOptions = {}): SchemaNode {
  const node = list(items, desc);
  if (opts.merge) node['x-kubernetes-patch-strategy'] = 'merge';
  node['x-kubernetes-list-type'] = 'set';
  return node;
}

/** listType=map keyed by `keys`, with no strategic-merge marker */
export function listMap(items: SchemaNode, keys: string[], desc: string): SchemaNode {
  return { ...list(items, desc), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': [...keys] };
}

export interface MergeOptions {
  /** list-map keys for apply; default [mergeKey] */
  keys?: string[];
  /** the apply list type; some kube lists merge by key under SMP yet are atomic for apply */
  listType?: 'map' | 'atomic' | 'none';
  /** patch strategy; default 'merge' */
  strategy?: string;
}

/** strategic merge patch merges items by `mergeKey` (and apply by the list-map keys) */
export function mergeList(items: SchemaNode, mergeKey: string, desc: string, opts: MergeOptions = {}): SchemaNode {
  const node: SchemaNode = {
    ...list(items, desc),
    'x-kubernetes-patch-merge-key': mergeKey,
    'x-kubernetes-patch-strategy': opts.strategy ?? 'merge',
  };
  const listType = opts.listType ?? 'map';
  if (listType === 'map') {
    node['x-kubernetes-list-type'] = 'map';
    node['x-kubernetes-list-map-keys'] = [...(opts.keys ?? [mergeKey])];
  } else if (listType === 'atomic') {
    node['x-kubernetes-list-type'] = 'atomic';
  }
  return node;
}

/** a property carrying a strategic-merge strategy on a struct (DeploymentSpec.strategy: retainKeys) */
export const withPatchStrategy = (node: SchemaNode, strategy: string): SchemaNode => ({
  ...node,
  'x-kubernetes-patch-strategy': strategy,
});

/** a free-form JSON value kept as sent (RawExtension-like) */
export const preserved = (desc: string): SchemaNode => ({
  description: desc,
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
});

/** the common head of a top-level kind: apiVersion, kind, metadata */
export function kindProps(): Record<string, SchemaNode> {
  return {
    apiVersion: str('Versioned schema of this object, as group/version (or just version for the core group).'),
    kind: str('Kind of this object, in CamelCase.'),
    metadata: objectMeta(),
  };
}

/** a top-level kind: apiVersion, kind, metadata, then `props`, tagged with its GroupVersionKind */
export function kind(gvk: GroupVersionKind, desc: string, props: Record<string, SchemaNode>, required?: string[]): SchemaNode {
  return obj(desc, { ...kindProps(), ...props }, { gvk, required });
}

/** the `<Kind>List` definition for items of definition `itemName` */
export function kindList(gvk: GroupVersionKind, itemName: string): SchemaNode {
  return obj(
    `A list of ${gvk.kind} objects.`,
    {
      apiVersion: str('Versioned schema of this list, as group/version.'),
      items: list(ref(itemName), `The ${gvk.kind} objects.`),
      kind: str('Kind of this list, in CamelCase.'),
      metadata: ref(meta('ListMeta'), 'List metadata: resourceVersion and continue token.'),
    },
    { gvk: { ...gvk, kind: `${gvk.kind}List` }, required: ['items'] },
  );
}

/** adds `<prefix><Kind>` and `<prefix><Kind>List` to `defs` */
export function addKind(
  defs: Definitions,
  prefix: string,
  gvk: GroupVersionKind,
  desc: string,
  props: Record<string, SchemaNode>,
  required?: string[],
): void {
  defs[prefix + gvk.kind] = kind(gvk, desc, props, required);
  defs[`${prefix}${gvk.kind}List`] = kindList(gvk, prefix + gvk.kind);
}

/** a condition entry in kube's common shape: type, status, reason, message and timestamps */
export function condition(desc: string, typeDesc: string, times: string[], typeEnum?: string[]): SchemaNode {
  const props: Record<string, SchemaNode> = {
    type: typeEnum ? oneOf(typeDesc, typeEnum) : str(typeDesc),
    status: str('True, False or Unknown.'),
  };
  for (const t of times) props[t] = time(TIME_DESCRIPTIONS[t] ?? 'A timestamp of this condition.');
  props.reason = str('Machine-readable, CamelCase reason for the last transition.');
  props.message = str('Human-readable details of the last transition.');
  return obj(desc, props, { required: ['type', 'status'] });
}

const TIME_DESCRIPTIONS: Record<string, string> = {
  lastTransitionTime: 'When the condition last changed status.',
  lastUpdateTime: 'When the condition was last updated.',
  lastProbeTime: 'When the condition was last probed.',
  lastHeartbeatTime: 'When the condition was last reported by its owner.',
};
