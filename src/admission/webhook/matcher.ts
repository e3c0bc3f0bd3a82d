/**
 * Which webhooks a request calls, and in which version (kube's ShouldCallHook). A webhook whose
 * rules match the request's own group/version/resource is called with it. Otherwise, under
 * matchPolicy Equivalent, the same resource served at another group/version (the kinds sharing its
 * storage, as kube's equivalent-resource registry answers) is tried in the scheme's order; the
 * first one the rules match is the version the webhook sees, and the object is converted to it.
 */
import type { KindDefinition, KubeObject } from '../../api/kind';
import type { Registry } from '../../api/registry/types';
import { apiVersionOf, type Scheme } from '../../api/scheme';
import { str } from '../../api/kinds/util';
import type { AdmissionAttributes } from '../types';
import type { WebhookEntry } from './configuration-source';
import { rulesMatch, type RuleRequest } from './rules';
import { namespaceSelectorMatches, objectSelectorMatches, type NamespaceLabelCache } from './selectors';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** a webhook to call, with the resource and kind it is to be told about */
export interface WebhookInvocation {
  entry: WebhookEntry;
  /** the resource as the webhook sees it (the request's own, or an equivalent one) */
  resource: KindDefinition;
  /** the kind of the objects sent (the object's kind for subresources such as scale) */
  objectKind: GroupVersionKind;
  /** false when the objects stay in the request's version (no equivalent, or none convertible) */
  converted: boolean;
}

function serves(k: KindDefinition, subresource: string): boolean {
  if (subresource === '' || subresource === 'status') return true;
  if (subresource === 'scale') return k.scale !== undefined;
  return (k.subresources ?? []).some((s) => s.name === subresource);
}

/** the kind of what a request on `k`'s `subresource` carries, as kube's request scope names it */
export function objectKindOf(k: KindDefinition, subresource: string): GroupVersionKind {
  if (subresource === 'scale') return { group: 'autoscaling', version: 'v1', kind: 'Scale' };
  const sub = subresource ? (k.subresources ?? []).find((s) => s.name === subresource) : undefined;
  if (sub?.kind) return { ...sub.kind };
  return { group: k.group, version: k.version, kind: k.kind };
}

function ruleRequest(a: AdmissionAttributes, k: KindDefinition): RuleRequest {
  return { operation: a.operation, group: k.group, version: k.version, resource: k.resource, subresource: a.subresource, namespace: a.namespace };
}

const exemptResources = new Set(['mutatingwebhookconfigurations', 'validatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings']);

/** kube never sends admission configurations themselves to webhooks (they could lock themselves in) */
function isWebhookConfiguration(k: KindDefinition): boolean {
  return k.group === 'admissionregistration.k8s.io' && exemptResources.has(k.resource);
}

/** objects of `from`'s own kind can be converted between versions of the scheme */
export function canConvert(obj: KubeObject | undefined, from: KindDefinition): boolean {
  return obj === undefined || (str(obj.apiVersion) === apiVersionOf(from) && str(obj.kind) === from.kind);
}

/** convert an object of `from` into `to` through the storage version */
export function convertObject(obj: KubeObject, from: KindDefinition, to: KindDefinition): KubeObject {
  if (from === to) return obj;
  const stored = from.toStorage ? from.toStorage(structuredClone(obj)) : { ...structuredClone(obj), apiVersion: storageApiVersion(from) };
  return to.fromStorage ? to.fromStorage(stored) : { ...stored, apiVersion: apiVersionOf(to) };
}

function storageApiVersion(k: KindDefinition): string {
  return k.group ? `${k.group}/${k.storageVersion}` : k.storageVersion;
}

export interface MatchOptions {
  registry: Registry;
  scheme: Scheme;
  /** namespace labels already read for this request */
  namespaceLabels?: NamespaceLabelCache;
}

/** the invocation of one webhook for a request, or undefined when it is not to be called */
export async function matchWebhook(entry: WebhookEntry, a: AdmissionAttributes, opts: MatchOptions): Promise<WebhookInvocation | undefined> {
  const hook = entry.hook;
  if (isWebhookConfiguration(a.kind)) return undefined;
  let resource: KindDefinition | undefined;
  if (rulesMatch(hook, ruleRequest(a, a.kind))) resource = a.kind;
  else if ((str(hook.matchPolicy) || 'Equivalent') === 'Equivalent') {
    resource = opts.scheme
      .sharingStorage(a.kind)
      .find((k) => k !== a.kind && serves(k, a.subresource) && rulesMatch(hook, ruleRequest(a, k)));
  }
  if (!resource) return undefined;
  if (!(await namespaceSelectorMatches(hook, a, opts.registry, opts.scheme, opts.namespaceLabels))) return undefined;
  if (!objectSelectorMatches(hook, a)) return undefined;
  const converted = resource !== a.kind && canConvert(a.object, a.kind) && canConvert(a.oldObject, a.kind);
  const objectKind = resource === a.kind || converted ? objectKindOf(resource, a.subresource) : objectKindOf(a.kind, a.subresource);
  return { entry, resource, objectKind, converted };
}
