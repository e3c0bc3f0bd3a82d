/**
 * policy/v1beta1 <-> policy/v1 PodDisruptionBudget, as kube's pkg/apis/policy/v1beta1/conversion.go
 * does it. The versions disagree on an empty selector: v1beta1 `{}` selects no pods, v1 `{}` every
 * pod of the namespace. Kube stores v1 and keeps the v1beta1 meaning with a reserved label key:
 *
 * - v1beta1 `{}`                                   <-> v1 `{matchExpressions: [{key: K, operator: Exists}]}` (nothing)
 * - v1beta1 `{matchExpressions: [{key: K, operator: DoesNotExist}]}` <-> v1 `{}` (everything)
 * - any other v1beta1 selector loses expressions on K (users may not use the key)
 *
 * Selectors are compared as kube's semantic equality does: an absent list or map equals an empty one.
 */
import type { KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { arrAt, clone, isObj, objAt, stringMap } from '../util';
import type { Obj } from '../util';

export const PDB_V1BETA1_LABEL = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';

const matchOnly = (operator: 'Exists' | 'DoesNotExist'): Obj => ({ matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator }] });

/** the selector with empty lists and maps dropped, as semantic equality sees it */
function normalized(selector: Obj): Obj {
  const out: Obj = {};
  if (Object.keys(stringMap(selector.matchLabels)).length > 0) out.matchLabels = selector.matchLabels;
  const exprs = arrAt(selector, 'matchExpressions').map((e) => {
    if (!isObj(e)) return e;
    const { values, ...rest } = e;
    return Array.isArray(values) && values.length > 0 ? { ...rest, values } : rest;
  });
  if (exprs.length > 0) out.matchExpressions = exprs;
  return out;
}

const sameSelector = (a: Obj, b: Obj): boolean => jsonEqual(normalized(a), normalized(b));

/** a v1beta1 object (apiVersion policy/v1beta1) to the stored v1 form */
export function pdbToV1(obj: KubeObject): KubeObject {
  const out = clone(obj);
  out.apiVersion = 'policy/v1';
  const spec = objAt(out, 'spec');
  const selector = objAt(spec, 'selector');
  if (!spec || !selector) return out;
  if (sameSelector(selector, {})) spec.selector = matchOnly('Exists');
  else if (sameSelector(selector, matchOnly('DoesNotExist'))) spec.selector = {};
  else if (Array.isArray(selector.matchExpressions)) {
    const kept = selector.matchExpressions.filter((e) => !(isObj(e) && e.key === PDB_V1BETA1_LABEL));
    if (kept.length > 0) selector.matchExpressions = kept;
    else delete selector.matchExpressions;
  }
  return out;
}

/** the stored v1 form to a v1beta1 object */
export function pdbFromV1(obj: KubeObject): KubeObject {
  const out = clone(obj);
  out.apiVersion = 'policy/v1beta1';
  const spec = objAt(out, 'spec');
  const selector = objAt(spec, 'selector');
  if (!spec || !selector) return out;
  if (sameSelector(selector, matchOnly('Exists'))) spec.selector = {};
  else if (sameSelector(selector, {})) spec.selector = matchOnly('DoesNotExist');
  return out;
}
