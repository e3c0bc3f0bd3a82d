/**
 * kube's APF configuration ensurer (pkg/registry/flowcontrol/ensurer) as bootstrap objects:
 * - mandatory objects (`exempt`, `catch-all`) always get kube's spec back and the autoupdate
 *   annotation set to "true"; differences in the exempt level's own settings (spec.exempt, which
 *   administrators may change) do not count as a change;
 * - suggested objects are created when missing and updated only while their
 *   `apf.kubernetes.io/autoupdate-spec` annotation says true (or, without a readable annotation,
 *   while the object is still at generation 1, i.e. nobody has changed its spec).
 * Specs are compared after kube's v1 defaults, so an object that differs only by defaults is left alone.
 */
import type { BootstrapObject } from '../../bootstrap-objects';
import type { KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { clone, isObj } from '../util';
import {
  AUTO_UPDATE_ANNOTATION, mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels,
} from './flowcontrol-bootstrap-objects';
import { defaultFlowSchema, defaultPriorityLevel } from './flowcontrol-defaults';

/** Go's strconv.ParseBool; undefined when the text is not a boolean */
function parseBool(text: unknown): boolean | undefined {
  if (typeof text !== 'string') return undefined;
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  return undefined;
}

function annotation(obj: KubeObject): unknown {
  const a = obj.metadata?.annotations;
  return isObj(a) ? a[AUTO_UPDATE_ANNOTATION] : undefined;
}

/** kube's shouldUpdateSpec for suggested objects */
function autoUpdates(existing: KubeObject): boolean {
  const parsed = parseBool(annotation(existing));
  if (parsed !== undefined) return parsed;
  return existing.metadata?.generation === 1;
}

function defaulted(obj: KubeObject): unknown {
  const copy = clone(obj);
  if (copy.kind === 'FlowSchema') defaultFlowSchema(copy);
  else defaultPriorityLevel('v1', copy);
  return copy.spec;
}

/** kube's SpecEqualish: equal after defaults; the exempt level's own settings do not count */
function specEqualish(existing: KubeObject, wanted: KubeObject): boolean {
  const want = defaulted(wanted) as Record<string, unknown>;
  const have = defaulted(existing) as Record<string, unknown>;
  if (existing.kind === 'PriorityLevelConfiguration' && existing.metadata?.name === 'exempt') {
    if (!isObj(have.exempt)) return false;
    return jsonEqual({ ...have, exempt: undefined }, { ...want, exempt: undefined });
  }
  return jsonEqual(have, want);
}

function revise(existing: KubeObject, wanted: KubeObject, always: boolean): KubeObject | undefined {
  const update = always || autoUpdates(existing);
  if (!update) return undefined;
  const annotationStale = parseBool(annotation(existing)) !== true;
  const specChanged = !specEqualish(existing, wanted);
  if (!annotationStale && !specChanged) return undefined;
  const next = clone(existing);
  if (specChanged) next.spec = clone(wanted.spec);
  const meta = (next.metadata ??= {});
  meta.annotations = { ...(isObj(meta.annotations) ? meta.annotations : {}), [AUTO_UPDATE_ANNOTATION]: 'true' };
  return next;
}

const mandatory = (object: KubeObject): BootstrapObject => ({ object, reconcile: (existing, wanted) => revise(existing, wanted, true) });
const suggested = (object: KubeObject): BootstrapObject => ({ object, reconcile: (existing, wanted) => revise(existing, wanted, false) });

/** priority levels before the schemas that name them, suggested before mandatory (kube's order) */
export function flowcontrolBootstrapObjects(): BootstrapObject[] {
  return [
    ...suggestedPriorityLevels().map(suggested),
    ...suggestedFlowSchemas().map(suggested),
    ...mandatoryPriorityLevels().map(mandatory),
    ...mandatoryFlowSchemas().map(mandatory),
  ];
}

