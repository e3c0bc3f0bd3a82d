/**
 * flowcontrol.apiserver.k8s.io conversions to and from v1, the version kube 1.32 stores:
 * - FlowSchema has the same fields in every version;
 * - PriorityLevelConfiguration: v1beta3 holds nominalConcurrencyShares by value, and keeps an
 *   explicit 0 through kube's `flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares`
 *   annotation; v1beta2, v1beta1 and v1alpha1 call it assuredConcurrencyShares; v1alpha1 (kube
 *   1.20's shape) has no lendablePercent, borrowingLimitPercent or exempt settings, which it keeps
 *   aside in an annotation (preserved-fields.ts).
 */
import type { KubeObject } from '../../kind';
import { restoreFields, stashFields } from '../preserved-fields';
import { clone, isObj, objAt } from '../util';
import type { Obj } from '../util';

export type FlowcontrolVersion = 'v1' | 'v1beta3' | 'v1beta2' | 'v1beta1' | 'v1alpha1';

export const GROUP = 'flowcontrol.apiserver.k8s.io';
export const PRESERVE_ZERO_SHARES_ANNOTATION = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';
const NOT_IN_V1ALPHA1 = ['spec.limited.lendablePercent', 'spec.limited.borrowingLimitPercent', 'spec.exempt'];

/** the name of the shares field in a version */
export function sharesField(version: FlowcontrolVersion): 'nominalConcurrencyShares' | 'assuredConcurrencyShares' {
  return version === 'v1' || version === 'v1beta3' ? 'nominalConcurrencyShares' : 'assuredConcurrencyShares';
}

function withVersion(obj: KubeObject, version: FlowcontrolVersion): KubeObject {
  const out = clone(obj);
  out.apiVersion = `${GROUP}/${version}`;
  return out;
}

/** rename one key of spec.limited in place, keeping the key order */
function renameShares(obj: KubeObject, from: string, to: string, map: (v: unknown) => unknown): void {
  const spec = objAt(obj, 'spec');
  const limited = objAt(spec, 'limited');
  if (!spec || !limited || !(from in limited)) return;
  const out: Obj = {};
  for (const [k, v] of Object.entries(limited)) {
    if (k === from) out[to] = map(v);
    else out[k] = v;
  }
  spec.limited = out;
}

function dropAnnotation(obj: KubeObject, key: string): void {
  const meta = obj.metadata;
  if (!meta || !isObj(meta.annotations)) return;
  delete meta.annotations[key];
  if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
}

/** a stored (v1) priority level in `version` */
export function priorityLevelFromV1(version: FlowcontrolVersion, obj: KubeObject): KubeObject {
  const out = withVersion(obj, version);
  if (version === 'v1') return out;
  const shares = objAt(objAt(obj, 'spec'), 'limited')?.nominalConcurrencyShares;
  if (version === 'v1beta3') {
    renameShares(out, 'nominalConcurrencyShares', 'nominalConcurrencyShares', (v) => v ?? 0);
    if (shares === 0) {
      const meta = (out.metadata ??= {});
      meta.annotations = { ...(isObj(meta.annotations) ? meta.annotations : {}), [PRESERVE_ZERO_SHARES_ANNOTATION]: '' };
    }
    return out;
  }
  renameShares(out, 'nominalConcurrencyShares', 'assuredConcurrencyShares', (v) => v ?? 0);
  if (version === 'v1alpha1') stashFields(out, NOT_IN_V1ALPHA1);
  return out;
}

/** a priority level of `version` in v1 */
export function priorityLevelToV1(version: FlowcontrolVersion, obj: KubeObject): KubeObject {
  const out = withVersion(obj, 'v1');
  if (version === 'v1beta3') dropAnnotation(out, PRESERVE_ZERO_SHARES_ANNOTATION);
  if (version === 'v1beta2' || version === 'v1beta1' || version === 'v1alpha1') {
    renameShares(out, 'assuredConcurrencyShares', 'nominalConcurrencyShares', (v) => v);
  }
  if (version === 'v1alpha1') restoreFields(out, NOT_IN_V1ALPHA1);
  return out;
}

/** FlowSchema: only the apiVersion changes */
export function flowSchemaInVersion(version: FlowcontrolVersion, obj: KubeObject): KubeObject {
  return withVersion(obj, version);
}
