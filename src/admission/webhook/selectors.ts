/**
 * A webhook's namespaceSelector and objectSelector, as kube's predicates evaluate them: an empty
 * selector matches everything; the namespace selector matches every cluster-scoped object but a
 * Namespace, is tested against a Namespace's own labels, and otherwise against the labels of the
 * request's namespace (read through the registry); the object selector matches when the labels of
 * the object or of the old object do. A selector that cannot be parsed or a namespace that cannot
 * be read is an internal error, as in kube.
 */
import { errors, isApiError } from '../../api/errors';
import type { KubeObject } from '../../api/kind';
import type { Registry } from '../../api/registry/types';
import type { Scheme } from '../../api/scheme';
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '../../api/selectors';
import type { Obj } from '../../api/kinds/util';
import type { AdmissionAttributes } from '../types';

function parsed(hook: Obj, key: string): LabelSelector {
  try {
    // an absent selector is defaulted to {} by the configuration kinds; treat it the same
    return labelSelectorFromObject((hook[key] as LabelSelectorObject | undefined) ?? {});
  } catch (err) {
    throw errors.internal(isApiError(err) ? err.message : String(err));
  }
}

function isNamespaceKind(a: AdmissionAttributes): boolean {
  return a.kind.group === '' && a.kind.resource === 'namespaces';
}

/** the namespace labels read for one request, so that several webhooks read them once */
export type NamespaceLabelCache = Map<string, Promise<Record<string, string>>>;

export async function namespaceSelectorMatches(hook: Obj, a: AdmissionAttributes, registry: Registry, scheme: Scheme, cache: NamespaceLabelCache = new Map()): Promise<boolean> {
  const selector = parsed(hook, 'namespaceSelector');
  if (selector.isEmpty()) return true;
  if (isNamespaceKind(a)) {
    const ns = a.operation === 'DELETE' ? a.oldObject : (a.object ?? a.oldObject);
    return selector.matches(ns?.metadata?.labels ?? {});
  }
  if (!a.kind.namespaced || a.namespace === '') return true;
  const kind = scheme.byResource('', 'v1', 'namespaces');
  if (!kind) throw errors.internal('namespaces are not served');
  let labels = cache.get(a.namespace);
  if (!labels) {
    labels = registry.get({ kind, name: a.namespace }, {}).then(
      (ns: KubeObject) => ns.metadata?.labels ?? {},
      (err: unknown) => {
        throw errors.internal(isApiError(err) ? err.message : String(err));
      },
    );
    cache.set(a.namespace, labels);
  }
  return selector.matches(await labels);
}

export function objectSelectorMatches(hook: Obj, a: AdmissionAttributes): boolean {
  const selector = parsed(hook, 'objectSelector');
  if (selector.isEmpty()) return true;
  const test = (o: KubeObject | undefined): boolean => o !== undefined && o !== null && selector.matches(o.metadata?.labels ?? {});
  return test(a.object) || test(a.oldObject);
}
