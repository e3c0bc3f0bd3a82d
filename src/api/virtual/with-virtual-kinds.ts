/**
 * withVirtualKinds: a Registry decorator for the core kinds kube answers without storing them.
 *
 * - componentstatuses (get, list): the health probes the server passes in, made on each request
 *   (component-statuses.ts); label and field selectors (metadata.name) filter the list.
 * - bindings (create): kube's LegacyBindingREST, the same as POST pods/<name>/binding for the pod
 *   the Binding names.
 *
 * Every other kind, and every other verb, goes to the wrapped registry unchanged (the HTTP layer
 * already refuses verbs a kind does not list).
 */
import { withVerbs } from '../registry/with-verbs';
import { ApiError } from '../errors';
import type { KubeObject } from '../kind';
import type { Scheme } from '../scheme';
import { checkFieldSelectorFields, parseFieldSelector, parseLabelSelector } from '../selectors';
import type { KubeList, ListOptions, Registry, Target, WriteOptions, WriteResult } from '../registry/types';
import { getComponentStatus, listComponentStatuses } from './component-statuses';
import type { ComponentProbe } from './component-statuses';

export interface VirtualKindsOptions {
  /** the components `kubectl get componentstatuses` reports on, in answer order */
  componentProbes: readonly ComponentProbe[];
  /** the served kinds: bindings act on the pods kind of their version */
  scheme: Scheme;
}

const isCore = (t: Target, resource: string): boolean => t.kind.group === '' && t.kind.resource === resource;

function refuse(t: Target, verb: string): Promise<never> {
  return Promise.reject(new ApiError(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${t.kind.resource}"`, { kind: t.kind.resource }));
}

function selection(options: ListOptions): (obj: KubeObject) => boolean {
  const labels = options.labelSelector ? parseLabelSelector(options.labelSelector) : undefined;
  const fields = options.fieldSelector ? parseFieldSelector(options.fieldSelector) : undefined;
  if (fields) checkFieldSelectorFields(fields, new Set(['metadata.name', 'metadata.namespace']));
  return (obj) =>
    (!labels || labels.matches(obj.metadata?.labels)) &&
    (!fields || fields.matches({ 'metadata.name': obj.metadata?.name ?? '', 'metadata.namespace': '' }));
}

/** POST bindings: the pods/binding subresource of the pod the Binding names */
function createBinding(registry: Registry, scheme: Scheme, t: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
  const pods = scheme.byResource('', t.kind.version, 'pods');
  if (!pods) return Promise.reject(new ApiError(404, 'NotFound', 'the server could not find the requested resource'));
  // kube's store key function refuses an empty name before anything else
  const name = typeof body.metadata?.name === 'string' ? body.metadata.name : '';
  if (name === '') return Promise.reject(new ApiError(400, 'BadRequest', 'Name parameter required.'));
  return registry.createSubresource({ kind: pods, namespace: t.namespace, name }, 'binding', body, options);
}

export function withVirtualKinds<R extends Registry>(registry: R, opts: VirtualKindsOptions): R {
  const { scheme } = opts;
  const probes = opts.componentProbes;
  const cs = (t: Target): boolean => isCore(t, 'componentstatuses');
  const verbs: Partial<Registry> = {
    get: (t, o) => (cs(t) ? getComponentStatus(probes, t.name ?? '') : registry.get(t, o)),
    list: async (t, o): Promise<KubeList> => (cs(t) ? listComponentStatuses(probes, selection(o)) : registry.list(t, o)),
    watch: (t, o, sink) => (cs(t) ? refuse(t, 'watch') : registry.watch(t, o, sink)),
    create: (t, body, o) => (isCore(t, 'bindings') ? createBinding(registry, scheme, t, body, o) : registry.create(t, body, o)),
  };
  // everything else (bootstrap, close, idle, ...) is the wrapped registry's own
  return withVerbs(registry, verbs);
}
